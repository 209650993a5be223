package bulk

// TuneProcess makes the process-wide settings the godu command wants and a
// library must not make on import: with the cgo core, glibc's single
// malloc arena on Linux, and on macOS no download of dataless
// (cloud-evicted) files. Call it once, early; it is a no-op elsewhere.
func TuneProcess() { tuneProcess() }
