//go:build cgo && !purego

package bulk

/*
int godu_no_materialize(void);
*/
import "C"

// Turn off the download of dataless (cloud-evicted) files for the whole
// process before anything is read, as macOS's du does.
func init() { C.godu_no_materialize() }
