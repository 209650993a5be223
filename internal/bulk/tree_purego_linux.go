//go:build (!cgo || purego) && !godu_xnu && !godu_portable

package bulk

// CanTree reports whether Reader.Tree is available: on Linux.
const CanTree = true

func coreTree(t *treeCtl, rootfd int, anc []uint64, r *Reader) { goTree(t, rootfd, anc, r) }
