//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// doubling measures godu -s on trees that double one dimension at a time,
// the others fixed: entries (directories of 100 files), depth (a chain,
// a file at each level) and name length (20,000 files in 200 directories).
// Each step: godu and the floor timed in turns (median of rounds, of the
// wall time and of the CPU time, user and system, which a loaded machine
// disturbs less), peak RSS under /usr/bin/time. Linear growth shows as a
// ratio of about 2 per step, flat ns per entry and an RSS that grows no
// faster than the input.
func doubling(dir, godu, floor string, rounds int) {
	type step struct {
		label string
		n     int // entries walked
		build func(string) error
	}
	dims := []struct {
		name  string
		steps []step
	}{{"entries", nil}, {"depth", nil}, {"name length", nil}}
	for _, n := range []int{12500, 25000, 50000, 100000, 200000} {
		dims[0].steps = append(dims[0].steps, step{fmt.Sprint(n, " files"), n + n/100 + 1,
			func(root string) error { return filesIn(root, n/100, 100, 8) }})
	}
	for _, d := range []int{1250, 2500, 5000, 10000, 20000} {
		dims[1].steps = append(dims[1].steps, step{fmt.Sprint(d, " levels"), 2*d + 1,
			func(root string) error { return chain(root, d) }})
	}
	for _, l := range []int{16, 32, 64, 128, 255} {
		dims[2].steps = append(dims[2].steps, step{fmt.Sprint(l, "-byte names"), 20201,
			func(root string) error { return filesIn(root, 200, 100, l) }})
	}
	for _, dim := range dims {
		fmt.Printf("### doubling: %s\n\n| tree | entries | godu -s | CPU | CPU × previous | CPU ns/entry | floor | floor CPU | godu/floor (CPU) | godu peak RSS |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n", dim.name)
		prev := 0.0
		for _, s := range dim.steps {
			root := filepath.Join(dir, "doubling", strings.ReplaceAll(s.label, " ", "-"))
			if err := buildOnce(root, s.build); err != nil {
				fatal(err)
			}
			g, f, gc, fc := pairedMedians([]string{godu, "-s", root}, []string{floor, root}, rounds)
			rss, _, err := timeRSS([]string{godu, "-s", root})
			if err != nil {
				fatal(err)
			}
			ratio := "–"
			if prev > 0 {
				ratio = fmt.Sprintf("%.2f", gc/prev)
			}
			prev = gc
			fmt.Printf("| %s | %d | %.1f ms | %.1f ms | %s | %.0f | %.1f ms | %.1f ms | %.2f | %.1f MiB |\n", s.label, s.n,
				g*1e3, gc*1e3, ratio, gc*1e9/float64(s.n), f*1e3, fc*1e3, gc/fc, float64(rss)/1024)
		}
		fmt.Println()
	}
}

// pairedMedians runs a and b in turns, rounds times after a warm-up, and
// returns the median of each one's wall times, then of its CPU times, in
// seconds.
func pairedMedians(a, b []string, rounds int) (float64, float64, float64, float64) {
	var ta, tb, ca, cb []float64
	for r := -1; r < rounds; r++ {
		for k, argv := range [][]string{a, b} {
			start := time.Now()
			cmd := exec.Command(argv[0], argv[1:]...)
			if err := cmd.Run(); err != nil {
				fatal(fmt.Errorf("%s: %v", argv[0], err))
			}
			d := time.Since(start).Seconds()
			c := (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
			if r < 0 {
				continue
			}
			if k == 0 {
				ta, ca = append(ta, d), append(ca, c)
			} else {
				tb, cb = append(tb, d), append(cb, c)
			}
		}
	}
	med := func(x []float64) float64 {
		sort.Float64s(x)
		return x[len(x)/2]
	}
	return med(ta), med(tb), med(ca), med(cb)
}

// filesIn makes dirs directories of files empty files each below root,
// every name nameLen bytes long.
func filesIn(root string, dirs, files, nameLen int) error {
	name := func(prefix string) string {
		return prefix + strings.Repeat("n", max(0, nameLen-len(prefix)))
	}
	for d := 0; d < dirs; d++ {
		dir := filepath.Join(root, name("d"+strconv.Itoa(d)))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		for f := 0; f < files; f++ {
			fh, err := os.Create(filepath.Join(dir, name("f"+strconv.Itoa(f))))
			if err != nil {
				return err
			}
			fh.Close()
		}
	}
	return nil
}
