//go:build !linux || !cgo || purego

package bulk

// CanTree reports whether Reader.Tree is available: on Linux, in the cgo
// core.
const CanTree = false

func coreTree(*treeCtl, int, []uint64, *Reader) { panic("bulk: no subtree walk in this build") }
