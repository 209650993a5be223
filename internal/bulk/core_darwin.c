//go:build cgo && !purego

// The darwin core, compiled by cgo from the module's csrc/.
#include "../../csrc/bulk_darwin.c"
