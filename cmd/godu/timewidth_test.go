//go:build unix

package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"testing"

	"github.com/godu-sh/godu/internal/testtree"
)

// TestTimeStyleWideFields: a --time-style field's width may reach
// 2^31-1, where GNU's strftime stops counting. du writes such padding as
// it goes; so does godu: the same bytes (fields a megabyte wide, padded
// in each way, in subformats too), and a 2 GiB field streams in
// constant memory (godu built each line in memory first: 4 GiB and 5 s
// before its first byte).
func TestTimeStyleWideFields(t *testing.T) {
	needDu(t)
	root := t.TempDir()
	// One entry a directory: the lines come in one order on any file system.
	testtree.Build(t, root, map[string]string{"d/e/b": "file:5000"})
	env := append(os.Environ(), "LC_ALL=C", "TZ=UTC")
	for _, style := range []string{
		"+%1000000d", "+%_1000000H|%-1000000M|%01000000S", "+%1000000F", "+%1000000N",
		"+%+1000000Y", "+%_1000000z %1000000:z", "+%1000000c%1000000x", "+%^1000000a%#1000000b",
		"+%1000000%", "+%10000000R%10000000T",
	} {
		args := []string{"-a", "--time", "--time-style=" + style, "d"}
		want := testtree.Run(t, root, nil, "du", args...)
		got := testtree.Run(t, root, nil, godu, args...)
		if got != want {
			t.Errorf("%q: godu's output (%d bytes, status %d) differs from du's (%d bytes, status %d)",
				args, len(got.Stdout), got.Code, len(want.Stdout), want.Code)
		}
	}

	// 2^31-1 wide: read 16 MiB of it, then close the pipe.
	for _, prog := range []string{"du", godu} {
		cmd := exec.Command(prog, "--time", "--time-style=+%99999999999999999999d", "-s", "d")
		cmd.Dir, cmd.Env = root, env
		r, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		head, err := io.ReadAll(io.LimitReader(r, 16<<20))
		// The high-water mark of the program's own memory, read while
		// it writes (its rusage would count the test's, shared at fork).
		status, statusErr := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
		r.Close()
		cmd.Wait()
		if err != nil || len(head) != 16<<20 {
			t.Fatalf("%s: read %d bytes, %v", prog, len(head), err)
		}
		if i := bytes.IndexByte(head, '\t'); i < 0 || bytes.Count(head[i+1:], []byte{'0'}) != len(head)-i-1 {
			t.Errorf("%s: %q... is not a size and zeros", prog, head[:min(len(head), 40)])
		}
		var hwm int
		if i := bytes.Index(status, []byte("VmHWM:")); i >= 0 {
			fmt.Sscan(string(status[i+len("VmHWM:"):]), &hwm)
		}
		if prog == godu && statusErr == nil && (hwm == 0 || hwm > 64<<10) { // (Linux's /proc only)
			t.Errorf("godu held %d KiB writing a 2 GiB field (read from its /proc status): it is written as it is made", hwm)
		}
	}
}
