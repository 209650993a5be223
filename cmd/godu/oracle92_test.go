//go:build unix

package main

import (
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/godu-sh/godu/internal/testtree"
)

var localDuVersion = sync.OnceValue(testtree.DuVersion)

// duLongWithArg are du's long options that take their argument as the next
// word when none follows '='.
var duLongWithArg = []string{"block-size", "exclude", "exclude-from", "files0-from", "max-depth", "threshold", "time-style"}

// asDu92 adapts a du command line to a local du older than 9.2, for the
// one way they read a valid command line differently: since 9.2 the
// threshold takes the suffixes R (ronna) and Q (quetta), which 9.1 calls
// invalid. 9.2 reads them as powers past any int64 but for a count of 0,
// as 9.1 reads Y: each threshold argument holding R or Q is given to the
// old du with Y instead, and fix puts the argument as written back into
// what du says of it. Options are found as du's getopt finds them (short
// clusters, long names by unique prefix, arguments attached or next),
// up to "--", or with POSIXLY_CORRECT in env (or the test's environment)
// up to the first operand. fix changes only du's messages about a
// threshold argument.
func asDu92(args, env []string) (old []string, fix func(string) string) {
	if v := localDuVersion(); v == 0 || v >= 902 {
		return args, func(s string) string { return s }
	}
	return threshold92(args, env)
}

// threshold92 is asDu92 whatever the local du.
func threshold92(args, env []string) (old []string, fix func(string) string) {
	_, posix := os.LookupEnv("POSIXLY_CORRECT")
	for _, e := range env {
		if k, _, _ := strings.Cut(e, "="); k == "POSIXLY_CORRECT" {
			posix = true
		}
	}
	old = append([]string(nil), args...)
	var quoted []string // pairs: as given to the old du, as written
	rewrite := func(i, from int) {
		v := old[i][from:]
		if !strings.ContainsAny(v, "RQ") {
			return
		}
		y := strings.NewReplacer("R", "Y", "Q", "Y").Replace(v)
		quoted = append(quoted, "'"+y+"'", "'"+v+"'")
		old[i] = old[i][:from] + y
	}
	unique := func(name string) (string, bool) {
		found := ""
		for _, l := range append(duLongWithArg, "all", "apparent-size", "bytes", "count-links", "dereference", "dereference-args",
			"human-readable", "inodes", "no-dereference", "null", "one-file-system", "separate-dirs", "si", "summarize", "time", "total", "help", "version") {
			if l == name {
				return l, true
			}
			if strings.HasPrefix(l, name) {
				if found != "" {
					return "", false
				}
				found = l
			}
		}
		return found, found != ""
	}
	for i := 0; i < len(old); i++ {
		a := old[i]
		switch {
		case a == "--":
			i = len(old)
		case strings.HasPrefix(a, "--"):
			name, _, hasVal := strings.Cut(a[2:], "=")
			l, ok := unique(name)
			if !ok {
				break
			}
			takes := false
			for _, w := range duLongWithArg {
				takes = takes || w == l
			}
			switch {
			case l == "threshold" && hasVal:
				rewrite(i, 2+len(name)+1)
			case takes && !hasVal && i+1 < len(old):
				i++
				if l == "threshold" {
					rewrite(i, 0)
				}
			}
		case len(a) < 2 || a[0] != '-':
			if posix {
				i = len(old) // the first operand ends the options
			}
		default:
			for j := 1; j < len(a); j++ {
				c := a[j]
				if strings.IndexByte("dBXt", c) < 0 {
					continue
				}
				switch {
				case j+1 < len(a):
					if c == 't' {
						rewrite(i, j+1)
					}
				case i+1 < len(old):
					i++
					if c == 't' {
						rewrite(i, 0)
					}
				}
				break
			}
		}
	}
	r := strings.NewReplacer(quoted...)
	return old, func(stderr string) string {
		lines := strings.SplitAfter(stderr, "\n")
		for i, l := range lines {
			if strings.Contains(l, " argument '") && (strings.Contains(l, "-t ") || strings.Contains(l, "threshold")) {
				lines[i] = r.Replace(l)
			}
		}
		return strings.Join(lines, "")
	}
}

// TestThreshold92: the rewriting finds threshold arguments where du's
// getopt does, and no others; the messages put back are only those about
// a threshold argument.
func TestThreshold92(t *testing.T) {
	for _, c := range []struct {
		args, env []string
		want      string
	}{
		{[]string{"-t", "1R", "d"}, nil, "-t 1Y d"},
		{[]string{"-st1Q", "d"}, nil, "-st1Y d"},
		{[]string{"-st", "0RiB"}, nil, "-st 0YiB"},
		{[]string{"--thr=1R", "--th", "Q"}, nil, "--thr=1Y --th Y"},
		{[]string{"--threshold", "-0R"}, nil, "--threshold -0Y"},
		{[]string{"-d", "-t1R"}, nil, "-d -t1R"},                           // -t1R is -d's argument
		{[]string{"--max-depth", "--thr=1R"}, nil, "--max-depth --thr=1R"}, // likewise
		{[]string{"--t=1R", "--ti=1Q"}, nil, "--t=1R --ti=1Q"},             // ambiguous, or --time
		{[]string{"-B1R", "--block-size=1Q", "-X", "1R"}, nil, "-B1R --block-size=1Q -X 1R"},
		{[]string{"--", "-t1R"}, nil, "-- -t1R"},
		{[]string{"d", "-t1R"}, nil, "d -t1Y"},
		{[]string{"d", "-t1R"}, []string{"POSIXLY_CORRECT=1"}, "d -t1R"},
	} {
		old, _ := threshold92(c.args, c.env)
		if got := strings.Join(old, " "); got != c.want {
			t.Errorf("%q %q: %q, want %q", c.env, c.args, got, c.want)
		}
	}
	_, fix := threshold92([]string{"-t", "0Q", "0Y"}, nil)
	in := "du: cannot access '0Y': No such file or directory\ndu: -t argument '0Y' too large\n"
	want := "du: cannot access '0Y': No such file or directory\ndu: -t argument '0Q' too large\n"
	if got := fix(in); got != want {
		t.Errorf("fix(%q) = %q, want %q", in, got, want)
	}
}
