package main

import (
	"strings"
	"sync"

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
// up to "--".
func asDu92(args []string) (old []string, fix func(string) string) {
	if v := localDuVersion(); v == 0 || v >= 902 {
		return args, func(s string) string { return s }
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
		case len(a) > 1 && a[0] == '-':
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
	return old, r.Replace
}
