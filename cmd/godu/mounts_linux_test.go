//go:build linux

package main

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestBindMountsAcrossOperands: with several operands du remembers every
// file and directory it meets, so one reached again by another path (a
// bind mount below an operand) counts once, at its first path in du's
// order, files with one link included: a file bound onto another, a
// directory bound below its own parent whose bind leaves out a mount
// inside it. In a tree listed by name (tmpfs), du's order is godu's.
func TestBindMountsAcrossOperands(t *testing.T) {
	needDu(t)
	if os.Geteuid() != 0 {
		t.Skip("bind mounts need root")
	}
	root, sorted := sortedTree(t, map[string]string{
		"a/f": "file:100000", "b/g": "file:0",
		"t/d/f": "file:20000", "t/d/sub/": "/", "t/zz/": "/", "o/": "/",
	})
	if !sorted {
		t.Skip("no file system here lists directories by name")
	}
	mount := func(src, dst, fstype string, flags uintptr) {
		if err := unix.Mount(src, filepath.Join(root, dst), fstype, flags, ""); err != nil {
			t.Skipf("mount %s: %v", dst, err)
		}
		t.Cleanup(func() { unix.Unmount(filepath.Join(root, dst), unix.MNT_DETACH) })
	}
	mount(filepath.Join(root, "a/f"), "b/g", "", unix.MS_BIND)
	mount(filepath.Join(root, "t/d"), "t/zz", "", unix.MS_BIND)
	mount("godu-test", "t/d/sub", "tmpfs", 0)
	if err := os.WriteFile(filepath.Join(root, "t/d/sub/g"), make([]byte, 50000), 0o644); err != nil {
		t.Fatal(err)
	}
	lines := [][]string{{"a", "b"}, {"-c", "a", "b"}, {"--inodes", "a", "b"}, {"-a", "b", "a"}}
	if !onXnu { // the darwin core sees a bound directory as the one it covers (README, macOS)
		lines = append(lines, [][]string{{"-s", "t", "o"}, {"-s", "-x", "t", "o"}, {"-c", "t/d/..", "o"},
			{"-d1", "t", "o"}, {"-s", "t", "t/zz"}, {"-s", "t"}, {"-a", "t"}}...)
	}
	for _, args := range lines {
		sameRun(t, root, nil, args)
	}
}
