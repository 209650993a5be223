//go:build !linux || godu_xnu

package bulk

// CanTree reports whether Reader.Tree is available: on Linux.
const CanTree = false

func coreTree(*treeCtl, int, []uint64, *Reader) { panic("bulk: no subtree walk on this system") }
