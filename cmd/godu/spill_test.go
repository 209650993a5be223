//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/godu-sh/godu/internal/testtree"
)

// TestSpillFileLeavesNothing: a directory whose listed files go to the
// spill file (GODU_SPILL_AT makes that happen early) prints what it prints
// without, and leaves nothing in $TMPDIR when godu succeeds, fails to
// write, or is killed by SIGINT or SIGTERM while its spill file is open.
func TestSpillFileLeavesNothing(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "t")
	os.Mkdir(dir, 0o755)
	for i := 0; i < 20000; i++ {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%05d", i)), nil, 0o644)
	}
	tmp := t.TempDir()
	env := append(os.Environ(), "TMPDIR="+tmp, "GODU_SPILL_AT=4096", "GORACE=atexit_sleep_ms=0")
	empty := func(when string) {
		t.Helper()
		if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
			t.Errorf("%s: %d names left in TMPDIR", when, len(ents))
		}
	}
	want := testtree.Run(t, root, nil, godu, "-a", "t")
	cmd := exec.Command(godu, "-a", "t")
	cmd.Dir, cmd.Env = root, env
	got, err := cmd.Output()
	if err != nil || string(got) != want.Stdout {
		t.Fatalf("spilling: %v, output equal: %v", err, string(got) == want.Stdout)
	}
	empty("after success")

	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer full.Close()
	cmd = exec.Command(godu, "-a", "t")
	var stderr strings.Builder
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = root, env, full, &stderr
	if err := cmd.Run(); err == nil || !strings.Contains(stderr.String(), "write error") {
		t.Errorf("writing to /dev/full: %v, %q", err, stderr.String())
	}
	empty("after a write error")

	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		cmd = exec.Command(godu, "-a", "t")
		cmd.Dir, cmd.Env = root, env
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout = w // read by nobody: godu blocks once the pipe is full
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		w.Close()
		open := false
		for try := 0; try < 1000 && !open; try++ {
			fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", cmd.Process.Pid))
			for _, fd := range fds {
				target, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", cmd.Process.Pid, fd.Name()))
				open = open || strings.HasPrefix(target, tmp)
			}
			if !open {
				time.Sleep(10 * time.Millisecond)
			}
		}
		if !open {
			t.Errorf("%v: no spill file open in TMPDIR", sig)
		}
		cmd.Process.Signal(sig)
		cmd.Wait()
		r.Close()
		empty("after " + sig.String())
	}
}
