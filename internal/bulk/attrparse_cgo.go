//go:build cgo && !purego

package bulk

/*
#include <stdlib.h>
#include "../../csrc/attrparse.c"
*/
import "C"

import "unsafe"

// cParseAttrBuffer runs csrc's parser over buf, as godu_attr_parse_buffer.
// The bytes are copied into a C allocation of exactly len(buf), so that a
// read past the end is caught by AddressSanitizer (make asan).
func cParseAttrBuffer(buf []byte, count int, req *attrReq, dirDev uint64) ([]Record, []byte, int) {
	cbuf := C.malloc(C.size_t(max(len(buf), 1)))
	defer C.free(cbuf)
	copy(unsafe.Slice((*byte)(cbuf), len(buf)), buf)
	recs := make([]Record, count+1)
	names := make([]byte, len(buf)+1)
	creq := C.godu_attrreq{common: C.uint32_t(req.common), dir: C.uint32_t(req.dir), file: C.uint32_t(req.file), options: C.uint32_t(req.options)}
	n := int(C.godu_attr_parse_buffer((*C.uchar)(cbuf), C.size_t(len(buf)), C.uint32_t(count), &creq,
		C.uint64_t(dirDev), (*C.godu_rec)(unsafe.Pointer(&recs[0])), C.uint32_t(len(recs)),
		(*C.char)(unsafe.Pointer(&names[0])), C.uint32_t(len(names))))
	parsed := n
	if n < 0 {
		parsed = -1 - n
	}
	used := 0
	if parsed > 0 {
		last := recs[parsed-1]
		used = int(last.NameOff + last.NameLen + 1)
	}
	var ns []byte
	if used > 0 {
		ns = names[:used]
	}
	if parsed == 0 {
		return nil, ns, n
	}
	return recs[:parsed], ns, n
}

// haveCParser says whether this build can run csrc's parser.
const haveCParser = true
