package main

// keepSignals has nothing to keep on Windows.
func keepSignals(ignored uint64) {}
