//go:build cgo && !purego

// The Linux core, compiled by cgo from the module's csrc/.
#include "../../csrc/bulk_linux.c"
