//go:build unix

package walk

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"unsafe"
)

// pendingDirBytes bounds the live heap a reported subdirectory takes from
// the moment its parent lists it until the stream hands it out: a
// directory of N subdirectories holds N of them at once (du's own
// entries take about 300 bytes each).
const pendingDirBytes = 720

// TestPendingDirMemory: on a star of empty subdirectories, what the walk
// holds when the first one is streamed (every other one listed, waiting)
// grows by at most pendingDirBytes per subdirectory (stars of 2,000 and
// 8,000: the difference, without the walk's fixed buffers), in every
// streamed mode that reports them.
func TestPendingDirMemory(t *testing.T) {
	star := func(n int) string {
		root := filepath.Join(t.TempDir(), "star")
		if err := os.Mkdir(root, 0o755); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			if err := os.Mkdir(filepath.Join(root, fmt.Sprintf("d%05d", i)), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		return root
	}
	small, big := star(2000), star(8000)
	for _, opts := range []Options{{MaxDepth: -1}, {MaxDepth: -1, ListFiles: true}, {MaxDepth: 1}, {MaxDepth: -1, ListFiles: true, Details: true}} {
		opts.Jobs = 1
		held := func(root string) int64 {
			var base, held runtime.MemStats
			first := true
			opts.Stream = func(string, *Node) {
				if first {
					first = false
					runtime.GC()
					runtime.ReadMemStats(&held)
				}
			}
			w := New(opts)
			runtime.GC()
			runtime.ReadMemStats(&base)
			if _, err := w.Walk(context.Background(), root); err != nil {
				t.Fatal(err)
			}
			return int64(held.HeapAlloc) - int64(base.HeapAlloc)
		}
		per := (held(big) - held(small)) / 6000
		t.Logf("ListFiles %v MaxDepth %d Details %v: %d bytes held per subdirectory", opts.ListFiles, opts.MaxDepth, opts.Details, per)
		if per > pendingDirBytes {
			t.Errorf("ListFiles %v MaxDepth %d Details %v: %d bytes held per subdirectory waiting, more than %d",
				opts.ListFiles, opts.MaxDepth, opts.Details, per, pendingDirBytes)
		}
	}
}

// TestDirFitsItsClass: a dir takes 288 bytes at most, the malloc size
// class below 320 (its fields are ordered for it: 296 bytes, and so 320,
// when its flags lay between wider fields).
func TestDirFitsItsClass(t *testing.T) {
	if n := unsafe.Sizeof(dir{}); n > 288 {
		t.Errorf("a dir takes %d bytes, over 288", n)
	}
}
