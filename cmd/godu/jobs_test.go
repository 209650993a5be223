//go:build unix

package main

import (
	"fmt"
	"testing"

	"github.com/godu-sh/godu/internal/testtree"
)

// TestJobsBeyondMax: -j past the walk's bound (walk.MaxJobs) walks with
// that many workers and prints du's lines; -j 99999999999 ended in the
// runtime's out of memory, and -j 9223372036854775807 printed nothing
// with status 0.
func TestJobsBeyondMax(t *testing.T) {
	needDu(t)
	root := t.TempDir()
	spec := map[string]string{}
	for i := range 200 {
		spec[fmt.Sprintf("d/s%03d/f", i)] = "file:3000"
	}
	testtree.Build(t, root, spec)
	want := testtree.Run(t, root, nil, "du", "-s", "d")
	for _, j := range []string{"4097", "99999999999", "9223372036854775807"} {
		if got := testtree.Run(t, root, nil, godu, "-s", "-j", j, "d"); got != want {
			t.Errorf("-j %s: %q %q, status %d; du %q, status %d", j, got.Stdout, got.Stderr, got.Code, want.Stdout, want.Code)
		}
	}
}
