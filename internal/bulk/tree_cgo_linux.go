//go:build cgo && !purego && !godu_xnu && !godu_portable

package bulk

/*
#include "../../csrc/bulk.h"
*/
import "C"

import "unsafe"

// CanTree reports whether Reader.Tree is available: on Linux.
const CanTree = true

// CanHelp reports whether free workers can join a running subtree walk
// (Reader.Help): the core's walk takes helpers.
const CanHelp = true

const (
	_ = uintptr(unsafe.Sizeof(TreeNode{}) - C.sizeof_godu_tnode)
	_ = uintptr(C.sizeof_godu_tnode - unsafe.Sizeof(TreeNode{}))
	_ = uintptr(unsafe.Sizeof(treeCtl{}) - C.sizeof_godu_tree)
	_ = uintptr(C.sizeof_godu_tree - unsafe.Sizeof(treeCtl{}))
	_ = uintptr(unsafe.Offsetof(treeCtl{}.mixedFiles) - unsafe.Offsetof(C.godu_tree{}.mixed_files))
	_ = uintptr(unsafe.Offsetof(C.godu_tree{}.mixed_files) - unsafe.Offsetof(treeCtl{}.mixedFiles))
	_ = uintptr(unsafe.Offsetof(TreeNode{}.FTnsec) - unsafe.Offsetof(C.godu_tnode{}.ftnsec))
	_ = uintptr(unsafe.Offsetof(C.godu_tnode{}.ftnsec) - unsafe.Offsetof(TreeNode{}.FTnsec))
	_ = uintptr(unsafe.Offsetof(TreeNode{}.Err) - unsafe.Offsetof(C.godu_tnode{}.err))
	_ = uintptr(unsafe.Offsetof(C.godu_tnode{}.err) - unsafe.Offsetof(TreeNode{}.Err))
	_ = uintptr(unsafe.Offsetof(TreeNode{}.Fd) - unsafe.Offsetof(C.godu_tnode{}.fd))
	_ = uintptr(unsafe.Offsetof(C.godu_tnode{}.fd) - unsafe.Offsetof(TreeNode{}.Fd))
	_ = uintptr(unsafe.Offsetof(TreeNode{}.Done) - unsafe.Offsetof(C.godu_tnode{}.read))
	_ = uintptr(unsafe.Offsetof(C.godu_tnode{}.read) - unsafe.Offsetof(TreeNode{}.Done))
	_ = uintptr(unsafe.Offsetof(treeCtl{}.tmaxNsec) - unsafe.Offsetof(C.godu_tree{}.tmax_nsec))
	_ = uintptr(unsafe.Offsetof(C.godu_tree{}.tmax_nsec) - unsafe.Offsetof(treeCtl{}.tmaxNsec))
	_ = uintptr(unsafe.Offsetof(treeCtl{}.rootDev) - unsafe.Offsetof(C.godu_tree{}.root_dev))
	_ = uintptr(unsafe.Offsetof(treeCtl{}.yieldMin) - unsafe.Offsetof(C.godu_tree{}.yield_min))
	_ = uintptr(unsafe.Offsetof(C.godu_tree{}.yield_min) - unsafe.Offsetof(treeCtl{}.yieldMin))
	// The tree flags are the core's.
	_ = uint32(TreeOneFS - C.GODU_TREE_ONE_FS)
	_ = uint32(C.GODU_TREE_ONE_FS - TreeOneFS)
	_ = uint32(TreeAllLinks - C.GODU_TREE_ALL_LINKS)
	_ = uint32(C.GODU_TREE_ALL_LINKS - TreeAllLinks)
	_ = uint32(TreeLinkIDs - C.GODU_TREE_LINK_IDS)
	_ = uint32(C.GODU_TREE_LINK_IDS - TreeLinkIDs)
	_ = uintptr(unsafe.Sizeof(Live{}) - C.sizeof_godu_live)
	_ = uintptr(C.sizeof_godu_live - unsafe.Sizeof(Live{}))
	_ = uintptr(unsafe.Offsetof(Live{}.Jobs) - unsafe.Offsetof(C.godu_live{}.jobs))
	_ = uintptr(unsafe.Offsetof(C.godu_live{}.jobs) - unsafe.Offsetof(Live{}.Jobs))
	_ = uintptr(unsafe.Offsetof(Live{}.Stacked) - unsafe.Offsetof(C.godu_live{}.stacked))
	_ = uintptr(unsafe.Offsetof(C.godu_live{}.stacked) - unsafe.Offsetof(Live{}.Stacked))
	_ = uintptr(unsafe.Offsetof(C.godu_tree{}.root_dev) - unsafe.Offsetof(treeCtl{}.rootDev))
	_ = uintptr(unsafe.Offsetof(Live{}.walk) - unsafe.Offsetof(C.godu_live{}.walk))
	_ = uintptr(unsafe.Offsetof(C.godu_live{}.walk) - unsafe.Offsetof(Live{}.walk))
	_ = uintptr(unsafe.Offsetof(Live{}.attach) - unsafe.Offsetof(C.godu_live{}.attach))
	_ = uintptr(unsafe.Offsetof(C.godu_live{}.attach) - unsafe.Offsetof(Live{}.attach))
	_ = uintptr(unsafe.Offsetof(Live{}.Spinning) - unsafe.Offsetof(C.godu_live{}.spinning))
	_ = uintptr(unsafe.Offsetof(C.godu_live{}.spinning) - unsafe.Offsetof(Live{}.Spinning))
)
