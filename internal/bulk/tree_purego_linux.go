//go:build (!cgo || purego) && !godu_xnu && !godu_portable

package bulk

import "time"

// CanTree reports whether Reader.Tree is available: on Linux.
const CanTree = true

func coreTree(t *treeCtl, rootfd int, anc []uint64, r *Reader) { goTree(t, rootfd, anc, r) }

// CanHelp reports whether free workers can join a running subtree walk
// (Reader.Help): the walk in Go takes none.
const CanHelp = false

func coreHelp(*Live, *Reader) int { return 0 }

func setHelpTest(time.Duration, bool) {}
