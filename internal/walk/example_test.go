package walk_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/godu-sh/godu/internal/walk"
)

// A tool that lifts the engine: sum a tree, report its first level, and
// collect errors instead of printing them.
func Example() {
	root, _ := os.MkdirTemp("", "walk-example-")
	defer os.RemoveAll(root)
	os.MkdirAll(filepath.Join(root, "a", "deep"), 0o755)
	os.WriteFile(filepath.Join(root, "a", "deep", "f"), make([]byte, 10000), 0o644)
	os.WriteFile(filepath.Join(root, "b"), make([]byte, 300), 0o644)
	os.Mkdir(filepath.Join(root, "c"), 0o755)
	os.Link(filepath.Join(root, "b"), filepath.Join(root, "c", "b-again")) // counted once, as b

	var errs []error
	w := walk.New(walk.Options{
		MaxDepth:  1,
		ListFiles: true,
		OnError:   func(e *walk.Error) { errs = append(errs, e) },
	})
	tree, err := w.Walk(context.Background(), root)
	if err != nil {
		panic(err)
	}
	for _, c := range tree.Children {
		fmt.Printf("%s: %d bytes apparent, %d entries\n", c.Name, c.Bytes, c.Inodes)
	}
	fmt.Printf("total: %d bytes apparent, %d entries, %d errors\n", tree.Bytes, tree.Inodes, len(errs))
	// Output:
	// a: 10000 bytes apparent, 3 entries
	// b: 300 bytes apparent, 1 entries
	// c: 0 bytes apparent, 1 entries
	// total: 10300 bytes apparent, 6 entries, 0 errors
}
