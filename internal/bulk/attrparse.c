//go:build cgo && !purego

// The getattrlistbulk record parser, compiled on every system so that the
// tests can run it where no Mac is.
#include "../../csrc/attrparse.c"
