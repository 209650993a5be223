package main

import (
	"fmt"
	"testing"

	"github.com/godu-sh/godu/internal/testtree"
)

// TestShapes compares godu with du on every generated shape (a chain, a
// star, a comb, a complete k-ary tree, long and non-UTF-8 names, files
// linked outside the tree, random trees), for each total du offers, with
// one worker and with many.
func TestShapes(t *testing.T) {
	needDu(t)
	for _, s := range testtree.Shapes() {
		t.Run(s.Name, func(t *testing.T) {
			dir := t.TempDir()
			op := testtree.Generate(t, dir, s)
			for _, args := range [][]string{{"-s"}, {"-a"}, {"-l"}, {"--inodes"}, {"-b"}, {"-a", "--apparent-size", "--block-size=1"}, {"-s", "-l"}} {
				for _, jobs := range []int{1, 16} {
					compareWith(t, dir, []string{fmt.Sprintf("--jobs=%d", jobs)}, args, []string{op})
				}
			}
		})
	}
}
