//go:build !cgo || purego

package bulk

func cParseAttrBuffer(buf []byte, count int, req *attrReq, dirDev uint64) ([]Record, []byte, int) {
	panic("no C parser in this build")
}

// haveCParser says whether this build can run csrc's parser.
const haveCParser = false
