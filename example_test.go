package godu_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/godu-sh/godu"
)

// makeTree builds a small tree in a temporary directory: a/deep/f (10,000
// bytes), b (300 bytes) and c/b-again, a second link to b.
func makeTree() string {
	root, _ := os.MkdirTemp("", "godu-example-")
	os.MkdirAll(filepath.Join(root, "a", "deep"), 0o755)
	os.WriteFile(filepath.Join(root, "a", "deep", "f"), make([]byte, 10000), 0o644)
	os.WriteFile(filepath.Join(root, "b"), make([]byte, 300), 0o644)
	os.Mkdir(filepath.Join(root, "c"), 0o755)
	os.Link(filepath.Join(root, "b"), filepath.Join(root, "c", "b-again"))
	return root
}

// Sum a tree and look at its first level. The second link to b counts
// once, as in du; apparent sizes are those of files and symlinks, as in
// du 9.2 and later.
func Example() {
	root := makeTree()
	defer os.RemoveAll(root)

	tree, err := godu.Scan(context.Background(), root, godu.Options{MaxDepth: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range tree.Children {
		fmt.Printf("%s: %d entries\n", c.Name, c.Inodes)
	}
	fmt.Printf("total: %d entries, %d bytes of files\n", tree.Inodes, tree.ApparentSize)
	// Output:
	// a: 3 entries
	// c: 1 entries
	// total: 6 entries, 10300 bytes of files
}

// Receive directories as they complete, children first, and stop early.
func ExampleOptions_onNode() {
	root := makeTree()
	defer os.RemoveAll(root)

	var seen []string
	_, err := godu.Scan(context.Background(), root, godu.Options{
		OnNode: func(path string, n *godu.Node) error {
			rel, _ := filepath.Rel(root, path)
			seen = append(seen, rel)
			if rel == "a" {
				return godu.Stop
			}
			return nil
		},
		Skip: func(path string) bool { return filepath.Base(path) == "c" },
	})
	fmt.Println(seen, err == godu.Stop)
	// Output: [a/deep a] true
}

// Several operands as one du command line: the link in c to b, counted
// under the first operand, is not counted again.
func ExampleScanner() {
	root := makeTree()
	defer os.RemoveAll(root)

	s := godu.NewScanner(godu.Options{Summarize: true})
	for _, op := range []string{root, filepath.Join(root, "c")} {
		n, err := s.Scan(context.Background(), op)
		switch {
		case err != nil:
			fmt.Println(err)
		case n == nil:
			fmt.Println("counted already")
		default:
			fmt.Printf("%d entries\n", n.Inodes)
		}
	}
	// Output:
	// 6 entries
	// counted already
}

// An operand that does not exist is an error errors.Is recognises.
func ExampleScan_missing() {
	_, err := godu.Scan(context.Background(), "/nonexistent/godu-example", godu.Options{})
	fmt.Println(errors.Is(err, fs.ErrNotExist))
	// Output: true
}
