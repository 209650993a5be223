// Package sys is the walk's view of the operating system's directory
// descriptors: the few calls and constants of golang.org/x/sys/unix it
// uses, under the same names on every system. On Unix they are x/sys/unix's
// own; on Windows a descriptor is a handle, a directory below another is
// opened relative to its parent's handle (NtCreateFile's RootDirectory),
// and reparse points are not followed unless asked.
package sys
