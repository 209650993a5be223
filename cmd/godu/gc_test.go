//go:build unix

package main

import (
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/godu-sh/godu/internal/du"
	"github.com/godu-sh/godu/internal/testtree"
)

// TestDeferFirstGC: until the first collection GOGC is firstGCPercent,
// from it on 100; for a walk that lists files, 100 throughout.
func TestDeferFirstGC(t *testing.T) {
	if _, set := os.LookupEnv("GOGC"); set {
		t.Skip("GOGC is set: deferFirstGC leaves it alone")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, o := range []du.Options{{All: true}, {NcduExport: "-"}} {
		deferFirstGC(o)
		if p := debug.SetGCPercent(100); p != 100 {
			t.Fatalf("%+v: GOGC %d, want 100", o, p)
		}
	}
	deferFirstGC(du.Options{MaxDepth: -1})
	if p := debug.SetGCPercent(firstGCPercent); p != firstGCPercent {
		t.Fatalf("GOGC %d before the first collection, want %d", p, firstGCPercent)
	}
	runtime.GC()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if p := debug.SetGCPercent(firstGCPercent); p == 100 {
			debug.SetGCPercent(100)
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("GOGC still deferred 10 s after a collection")
		}
	}
}

// TestNoCollectionOnSmallTrees: godu -s on a tree of 14,000 entries, long
// names, hard links in and out of it, collects nothing; with GOGC=100,
// the runtime's first collection at 4 MB, it collected (the workers'
// buffers are most of that heap), as does godu -a.
func TestNoCollectionOnSmallTrees(t *testing.T) {
	dir := t.TempDir()
	testtree.Generate(t, dir, testtree.Shape{Kind: "random", Size: 14000, NameLen: 213, Binary: true,
		Outside: true, Links: true, Seed: 7})
	gcs := func(opt string, env ...string) int {
		cmd := exec.Command(godu, opt, "-j", "8", "t") // as many buffers on any machine
		cmd.Dir = dir
		for _, e := range os.Environ() {
			if !strings.HasPrefix(e, "GOGC=") && !strings.HasPrefix(e, "GODEBUG=") {
				cmd.Env = append(cmd.Env, e)
			}
		}
		cmd.Env = append(append(cmd.Env, "GODEBUG=gctrace=1"), env...)
		res := runCaptured(t, cmd)
		if res.Code != 0 {
			t.Fatalf("godu %s: status %d: %s", opt, res.Code, res.Stderr)
		}
		return strings.Count("\n"+res.Stderr, "\ngc ")
	}
	if n := gcs("-s"); n != 0 {
		t.Errorf("godu -s collected %d times, want none", n)
	}
	if n := gcs("-s", "GOGC=100"); n == 0 {
		t.Errorf("godu -s with GOGC=100 collected nothing: the tree no longer tells")
	}
	if n := gcs("-a"); n == 0 {
		t.Errorf("godu -a collected nothing: its first collection was deferred")
	}
}
