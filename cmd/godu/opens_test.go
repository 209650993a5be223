//go:build unix

package main

import (
	"fmt"
	"testing"

	"github.com/godu-sh/godu/internal/testtree"
)

// TestShapes compares godu with du on every generated shape (a chain, a
// star, a comb, a complete k-ary tree, long and non-UTF-8 names, files
// linked outside the tree, random trees), for each total du offers, the
// options taking turns at 1, 2 and 16 workers.
func TestShapes(t *testing.T) {
	needDu(t)
	for _, s := range testtree.Shapes() {
		t.Run(s.Name, func(t *testing.T) {
			dir := t.TempDir()
			op := testtree.Generate(t, dir, s)
			for i, args := range [][]string{{"-s"}, {"-a"}, {"-l"}, {"--inodes"}, {"-b"}, {"-a", "--apparent-size", "--block-size=1"}, {"-s", "-l"}, {"-a", "-l"}, {"-s"}} {
				jobs := []int{1, 2, 16}[i%3]
				compareWith(t, dir, []string{fmt.Sprintf("--jobs=%d", jobs)}, args, []string{op})
			}
		})
	}
}
