//go:build unix

package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestTimesBefore1970: du keeps a directory's latest time in per-level
// sums that start at 1970-01-01 (zeroed memory) for the levels of the
// first entry it counts, and at "no time" once it descends again; its
// total starts at 1970 too. So an empty directory, or an operand after
// the first, shows its own time before 1970, while the directories above
// du's first entry and the total show 1970 at the least. Each tree here
// has one entry a level, so du's order is the only one.
func TestTimesBefore1970(t *testing.T) {
	root := t.TempDir()
	old := time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, d := range []string{"d", "e", "c/s/t", "g/h"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	os.WriteFile(filepath.Join(root, "e", "f"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(root, "g", "h", "f"), []byte("x"), 0o644)
	for _, p := range []string{"d", "e/f", "e", "c/s/t", "c/s", "c", "g/h/f", "g/h", "g"} {
		if err := os.Chtimes(filepath.Join(root, p), old, old); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"--time", "d"}, {"--time", "e"}, {"--time", "-a", "c"}, {"--time", "-S", "c"},
		{"--time", "-s", "e"}, {"--time", "-c", "d", "e"}, {"--time", "-c", "d", "c", "g"},
		{"--time", "-a", "g", "c"}, {"--time", "--time-style=+%s", "-d", "1", "g"},
		{"--time", "-c", "--exclude=d", "d", "e"},
		// -L counts every file at its first path (the ordered walk).
		{"--time", "-L", "d", "e"}, {"--time", "-L", "-a", "c", "g"}, {"--time", "-sL", "d", "g"},
	} {
		compare(t, root, args, nil)
	}
}
