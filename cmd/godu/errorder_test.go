//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestErrorsInDuOrder: error messages come in du's order, each where du
// prints it among the lines (stdout and stderr on one pipe), and every
// run the same, whichever worker meets the error: a directory that
// cannot be read (its message right before its line), entries that
// cannot be examined (each at its place among its directory's), at every
// depth, above and below the -d limit. On tmpfs, where every directory
// lists by name, du's output is godu's byte for byte.
func TestErrorsInDuOrder(t *testing.T) {
	cred := nobody(t)
	needDu(t)
	spec := map[string]string{}
	for _, d := range []string{"a", "b", "c", "d/e", "d/f/g", "d/f/h", "d/k", "m", "n/o/p", "q", "z"} {
		for i := range 3 {
			spec[fmt.Sprintf("t/%s/f%d", d, i)] = fmt.Sprintf("file:%d", 1000*(i+1))
		}
	}
	spec["t/c/sub/x"] = "file:10"
	spec["t/q/sub/x"] = "file:10"
	root, sorted := sortedTree(t, spec)
	openUp(t, root)
	// No read: b, d/f/g, n/o; no search (entries cannot be examined): c,
	// d/k, q, z.
	modes := map[string]os.FileMode{"b": 0o311, "d/f/g": 0o311, "n/o": 0o311, "c": 0o644, "d/k": 0o644, "q": 0o644, "z": 0o644}
	for d, m := range modes {
		os.Chmod(filepath.Join(root, "t", d), m)
	}
	t.Cleanup(func() {
		for d := range modes {
			os.Chmod(filepath.Join(root, "t", d), 0o755)
		}
	})
	run := func(prog string, args []string) string {
		cmd := exec.Command(prog, append(args, "t")...)
		cmd.Args[0] = "du"
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "LC_ALL=C", "GORACE=atexit_sleep_ms=0")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out // one pipe: du's interleaving
		code := runCaptured(t, cmd).Code
		return fmt.Sprintf("%s\nstatus %d", out.String(), code)
	}
	for _, args := range [][]string{{"-s"}, {"-a"}, {"-d", "1"}, {"-d", "2"}, {"-S"}, {"-ca", "-d", "2"}, {"-a", "-0"}, {}} {
		want := run("du", args)
		if !strings.Contains(want, "Permission denied") {
			t.Fatalf("%q: no error from du:\n%s", args, want)
		}
		first := ""
		for i := range 12 {
			got := run(godu, append([]string{fmt.Sprintf("-j%d", 1+i%16*5%16)}, args...))
			if sorted && got != want {
				t.Fatalf("%q: godu\n%s\nwant du's\n%s", args, got, want)
			}
			if i > 0 && got != first {
				t.Fatalf("%q: two runs differ:\n%s\nand\n%s", args, first, got)
			}
			first = got
		}
	}
}
