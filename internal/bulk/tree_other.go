//go:build !linux || godu_xnu || godu_portable

package bulk

// CanTree reports whether Reader.Tree is available: with the Linux reader.
const CanTree = false

func coreTree(*treeCtl, int, []uint64, *Reader) { panic("bulk: no subtree walk on this system") }
