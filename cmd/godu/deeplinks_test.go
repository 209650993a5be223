//go:build linux

package main

import (
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"github.com/godu-sh/godu/internal/testtree"
)

// TestLinksBelowDepthLimit: files linked at several depths of one
// directory at the -d limit, directly in it and in subdirectories on both
// sides of its direct name in order, and in a later directory: which
// link counts decides the directory's own figure (-S) and every total,
// as in du. The tree lists every directory by name, so du's order is
// godu's and the lines compare as they are.
func TestLinksBelowDepthLimit(t *testing.T) {
	needDu(t)
	spec := map[string]string{
		"stage/":         "/",
		"w/D/m":          "file:5000",
		"w/D/a/x/y/l1":   "link:w/D/m", // before m in du's order: not D's own
		"w/D/z/l2":       "link:w/D/m",
		"w/D/n":          "file:9000",
		"w/D/z/q/l3":     "link:w/D/n", // after n: n is D's own
		"w/D/b/l4":       "file:13000",
		"w/D/c":          "link:w/D/b/l4", // after b/l4
		"w/E/d/e/f/g/l5": "link:w/D/n",    // counted in D already
		"w/E/k":          "file:7000",
		"w/A/k2":         "link:w/E/k", // A comes first: counted there
		"w/E/h/i/l6":     "link:w/E/k",
	}
	root, sorted := sortedTreeLinks(t, rand.New(rand.NewSource(1)), spec)
	if !sorted {
		t.Skip("no file system here lists directories by name")
	}
	root = filepath.Join(root, "w")
	for _, args := range [][]string{{"-d", "0"}, {"-d", "1"}, {"-d", "1", "-S"}, {"-d", "2", "-S"},
		{"-d", "2"}, {"-S"}, {"-a", "-d", "1"}, {"-a", "-S", "-d", "2"}, {"-d", "1", "--inodes"}, {"-c", "-S", "-d", "1", "D", "E", "A"}} {
		ops := []string{"."}
		if strings.HasPrefix(args[len(args)-1], "A") {
			args, ops = args[:len(args)-3], args[len(args)-3:]
		}
		for _, jobs := range []string{"--jobs=1", "--jobs=8"} {
			all := append(append([]string{}, args...), ops...)
			want := testtree.Run(t, root, nil, "du", all...)
			got := testtree.Run(t, root, nil, godu, append([]string{jobs}, all...)...)
			if got.Stdout != want.Stdout || got.Code != want.Code {
				t.Errorf("godu %s %q:\n got %q\nwant %q", jobs, all, got.Stdout, want.Stdout)
			}
		}
	}
}
