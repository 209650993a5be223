//go:build !linux || godu_xnu || godu_portable

package bulk

import "time"

// CanTree reports whether Reader.Tree is available: with the Linux reader.
const CanTree = false

func coreTree(*treeCtl, int, []uint64, *Reader) { panic("bulk: no subtree walk on this system") }

// CanHelp reports whether free workers can join a running subtree walk
// (Reader.Help): no subtree walk here.
const CanHelp = false

func coreHelp(*Live, *Reader) int { return 0 }

func setHelpTest(time.Duration, bool) {}
