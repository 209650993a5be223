package main

// spareDescriptors reports whether n more descriptors can be opened: on
// Windows handles have no per-process limit that a walk could reach first.
func spareDescriptors(n int) bool { return true }
