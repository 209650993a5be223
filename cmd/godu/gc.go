package main

import (
	"os"
	"runtime"
	"runtime/debug"

	"github.com/godu-sh/godu/internal/du"
)

// firstGCPercent is GOGC until the first collection: its heap is 4 MB
// times it over 100.
const firstGCPercent = 400

// deferFirstGC puts the runtime's first collection off from a 4 MB heap
// to a 16 MB one, for a walk that lists no files (o.All, an ncdu export):
// what it allocates and drops is little beyond what it keeps. The
// workers' buffers alone (about 0.5 MB each, kept for the whole walk)
// nearly fill 4 MB, so that most such walks paid one collection, its page
// faults and sweep and a P given to its marking, for nothing freed:
// `real` and `deep` each ran one, with 3 MB live after it, and peak at
// the same RSS without it. Once the first collection has run, GOGC is
// the runtime's 100 again: a walk whose live heap grows (millions of hard
// links) is collected as it would be. A walk that lists files makes
// garbage in proportion to them (its lines), where the deferred
// collection would double its peak RSS (-a on 4 million files: 9.8 MB,
// 20.8 deferred). A GOGC the user set is left alone.
func deferFirstGC(o du.Options) {
	if _, set := os.LookupEnv("GOGC"); set || o.All || o.NcduExport != "" {
		return
	}
	debug.SetGCPercent(firstGCPercent)
	// Unreachable from the start: its cleanup runs after the first
	// collection. (Large enough not to share a tiny block, whose cleanup
	// may never run.)
	runtime.AddCleanup(new([64]byte), func(int) { debug.SetGCPercent(100) }, 0)
}
