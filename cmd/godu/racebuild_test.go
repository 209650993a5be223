//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/godu-sh/godu/internal/testtree"
)

// TestRaceBuild: under -race, godu built with the race detector prints,
// on trees that keep every worker busy, exactly what the plain godu the
// rest of the suite runs prints: the same output, messages and status, and
// no race report (which would add to its messages and end it with 66).
// The command lines cover each output (lines, -0, --json, the ncdu
// export, --stats, the progress line), hard links across operands, -L,
// --time, few and many workers, and a descriptor limit that sheds.
func TestRaceBuild(t *testing.T) {
	if goduRace == "" {
		t.Skip("the race build is made under -race only")
	}
	root := richTree(t)
	for _, s := range testtree.Shapes() {
		dir := filepath.Join(root, "shapes", s.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		testtree.Generate(t, dir, s)
	}
	for _, c := range []struct {
		limit string
		args  []string
	}{
		{"", []string{"-a", "t", "u", "shapes"}},
		{"", []string{"-s", "-j", "16", "shapes", "t"}},
		{"", []string{"-d", "2", "-c", "-l", "t", "u"}},
		{"", []string{"-a0", "-j", "1", "shapes"}},
		{"", []string{"--json", "-a", "t", "shapes"}},
		{"", []string{"-o", "-", "shapes"}},
		{"", []string{"-aL", "--time", "-S", "t"}},
		{"", []string{"-aL", "-j", "16", "t", "u", "shapes"}},
		{"", []string{"-sL", "t", "u"}},
		{"", []string{"--stats", "--progress", "-s", "shapes"}},
		{"12", []string{"-a", "-j", "8", "shapes"}},
	} {
		run := func(prog string) testtree.Result {
			script := `exec -a du "$0" "$@"`
			if c.limit != "" {
				script = "ulimit -n " + c.limit + "; " + script
			}
			cmd := exec.Command("bash", append([]string{"-c", script, prog}, c.args...)...)
			cmd.Dir = root
			cmd.Env = append(os.Environ(), "LC_ALL=C", "GODU_PROGRESS_AFTER=0s", "GORACE=atexit_sleep_ms=0 halt_on_error=1")
			res := runCaptured(t, cmd)
			res.Stderr = withoutTimes(withoutFrames(res.Stderr))
			if strings.Contains(strings.Join(c.args, " "), "-o") {
				// The export's header holds the time of the scan.
				res.Stdout = strings.SplitN(res.Stdout, "\n", 2)[len(strings.SplitN(res.Stdout, "\n", 2))-1]
			}
			return res
		}
		got, want := run(goduRace), run(godu)
		if strings.Contains(got.Stderr, "DATA RACE") || got != want {
			t.Errorf("godu %q (race build) differs from the plain build:\nrace  %+v\nplain %+v", c.args, got, want)
		}
	}
}
