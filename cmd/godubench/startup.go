//go:build unix

package main

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"time"
)

// startup measures what godu costs before and around a walk: godu -s on
// an empty directory and on small flat directories, the build `go
// install` makes next to the one `make build` makes, against a Go
// program with cgo that prints a line (hello) and against du, in
// shuffled order within each round; each time is divided by hello's in
// the same round.
func startup(dir string, cmds map[string]string, rounds int) {
	empty := filepath.Join(dir, "startup-empty")
	if err := os.MkdirAll(empty, 0o755); err != nil {
		fatal(err)
	}
	var ts []tool
	ts = append(ts, tool{name: "hello (Go+cgo)", argv: []string{cmds["hello"]}})
	for _, n := range []int{0, 32, 1000, 3000} {
		root := empty
		if n > 0 {
			root = filepath.Join(dir, "startup-"+strconv.Itoa(n))
			if err := buildOnce(root, func(root string) error { return files(root, n, nil) }); err != nil {
				fatal(err)
			}
		}
		what := fmt.Sprintf("%d files", n)
		if n == 0 {
			what = "empty"
		}
		for _, c := range []struct{ name, path string }{
			{"godu -s", cmds["godu"]}, {"godu -s (go install's build)", cmds["dynamic"]}, {"du -s", "du"},
		} {
			if c.path == "" || n > 0 && c.name == "godu -s (go install's build)" {
				continue
			}
			ts = append(ts, tool{name: c.name + " " + what, argv: []string{c.path, "-s", root}})
		}
	}
	// A binary's start-up varies by some 10 % with where its pages sit in
	// memory: each is run as copies fresh to the page cache, and a
	// command's time in a round is the mean over its copies.
	copies := 4
	tmp, err := os.MkdirTemp("", "godu-startup-")
	if err != nil {
		fatal(err)
	}
	defer os.RemoveAll(tmp)
	argv := make([][][]string, len(ts)) // argv[i][c]: command i, copy c
	for i, t := range ts {
		for c := range copies {
			a := append([]string(nil), t.argv...)
			if t.argv[0] != "du" {
				a[0] = filepath.Join(tmp, fmt.Sprintf("%d-%d", i, c))
				if err := copyFile(t.argv[0], a[0]); err != nil {
					fatal(err)
				}
			}
			argv[i] = append(argv[i], a)
		}
	}
	type run struct{ i, c int }
	var order []run
	for i := range ts {
		for c := range copies {
			order = append(order, run{i, c})
		}
	}
	ratios := make([][]float64, len(ts))
	times := make([][]float64, len(ts))
	last := make([]float64, len(ts))
	for r := -5; r < rounds; r++ { // five rounds of warm-up
		rand.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		clear(last)
		for _, x := range order {
			a := argv[x.i][x.c]
			cmd := exec.Command(a[0], a[1:]...)
			start := time.Now()
			if err := cmd.Run(); err != nil {
				fatal(fmt.Errorf("%s: %v", ts[x.i].name, err))
			}
			last[x.i] += time.Since(start).Seconds() * 1000 / float64(copies)
		}
		for i := 0; r >= 0 && i < len(ts); i++ {
			times[i] = append(times[i], last[i])
			ratios[i] = append(ratios[i], last[i]/last[0])
		}
	}
	fmt.Printf("### start-up (%d rounds of %d copies of each binary; time over hello's in the same round)\n\n", rounds, copies)
	fmt.Println("| command | median (ms) | over hello, median [quartiles] |")
	fmt.Println("|---|---:|---:|")
	for i, t := range ts {
		sort.Float64s(times[i])
		q := ratios[i]
		sort.Float64s(q)
		fmt.Printf("| `%s` | %.3f | %.3f [%.3f–%.3f] |\n", t.name, times[i][len(q)/2], q[len(q)/2], q[len(q)/4], q[3*len(q)/4])
	}
	fmt.Println()
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o755)
}
