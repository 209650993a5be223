//go:build linux

package main

import (
	"reflect"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/godu-sh/godu/internal/testtree"
)

// TestFollowAllPathMax: following every symlink (-L), du names each
// entry by its whole path, and one of PATH_MAX bytes or more cannot be
// examined ("File name too long"): it is not counted, and the status is
// 1. godu, which reads relative to directories, once counted them all.
// Paths of 4,093 to 4,098 bytes, files and directories, and a symlink
// back up (a cycle, skipped silently).
func TestFollowAllPathMax(t *testing.T) {
	needDu(t)
	dir := t.TempDir()
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	plen := len("u")
	down := func(name string) { fd = testtree.Descend(t, fd, name) }
	down("u")
	for plen < 3900 {
		k := min(200, 3990-plen-1)
		down(strings.Repeat("m", k))
		plen += k + 1
		if err := unix.Symlinkat("..", fd, "up"); err != nil {
			t.Fatal(err)
		}
	}
	for total := 4093; total <= 4098; total++ {
		f, err := unix.Openat(fd, strings.Repeat("f", total-plen-1), unix.O_CREAT|unix.O_WRONLY|unix.O_CLOEXEC, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		unix.Write(f, []byte("x"))
		unix.Close(f)
	}
	for _, total := range []int{4094, 4095, 4096, 4097} {
		if err := unix.Mkdirat(fd, strings.Repeat("s", total-plen-1), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	unix.Close(fd)
	for _, args := range [][]string{{"-aL"}, {"-sL"}, {"-L", "-d", "1"}, {"-cL", "-S"}, {"-aL", "--inodes"}, {"-a"}} {
		all := append(args, "u")
		want := testtree.Run(t, dir, nil, "du", all...)
		got := testtree.Run(t, dir, nil, godu, all...)
		// Entries of a directory come in its listing's order in du:
		// compare the lines as sets.
		wo, go_ := testtree.Lines(want.Stdout, false), testtree.Lines(got.Stdout, false)
		we := testtree.Lines(strings.ReplaceAll(want.Stderr, "du: ", "godu: "), false)
		ge := testtree.Lines(got.Stderr, false)
		if !reflect.DeepEqual(wo, go_) || !reflect.DeepEqual(we, ge) || want.Code != got.Code {
			t.Errorf("godu %q: status %d, want %d; %d lines, %d messages; want %d lines, %d messages",
				all, got.Code, want.Code, len(go_), len(ge), len(wo), len(we))
		}
	}
}
