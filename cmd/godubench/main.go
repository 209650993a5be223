//go:build unix

// Command godubench builds godu's benchmark trees and measures godu, GNU du,
// the peers found on PATH and the floor walker on each, printing one
// markdown table per tree. It is what `make bench` runs.
//
//	godubench -dir CACHE -godu bin/godu -purego bin/godu-purego -floor bin/floor [-trees deep,wide,...]
//
// Trees (built once under CACHE and reused):
//
//	deep       binary tree 12 levels deep: 4,095 directories, 100 files of 70 bytes in each
//	wide       one directory of 200,000 files of 100 bytes
//	hardlinks  1,000 files with 10 links each, spread over 100 directories
//	real       a copy of /usr/share and /usr/include
//	chain      a chain of 10,000 nested directories, a file in each
//	longnames  2,000 directories of 25 files, every name 100-255 bytes
//	star       one directory of 100,000 empty subdirectories
//	outside    deep, every file also linked outside the walked tree (a
//	           snapshot made with cp -al): the tree is outside/t, the
//	           other links in outside/o
//
// Below each tree's table: the statx, openat and getdents64 calls of
// godu -s and of the floor (strace -c -f), against the tree's entries and
// directories, when strace is installed.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

func main() {
	dir := flag.String("dir", filepath.Join(os.TempDir(), "godu-bench"), "where the trees live")
	godu := flag.String("godu", "bin/godu", "godu (cgo build)")
	purego := flag.String("purego", "bin/godu-purego", "godu (purego build)")
	floor := flag.String("floor", "bin/floor", "the floor walker")
	trees := flag.String("trees", "deep,wide,hardlinks,real,chain,longnames,outside,star", "trees to measure")
	runs := flag.Int("runs", 10, "hyperfine runs per command")
	rounds := flag.Int("paired", 30, "rounds of the paired comparison of godu with the floor (0: none)")
	jobs := flag.Int("jobs", 0, "godu's worker count, also the floor's (0: godu's default)")
	scaleTrees := flag.String("scale", "", "instead: peak RSS and time on the scale trees named (0.4M,4M; scale.go)")
	doubles := flag.Bool("doubling", false, "instead: time and peak RSS of godu -s as entries, depth and name length double in turn (doubling.go)")
	hello := flag.String("startup", "", "instead: start-up against this Go+cgo hello, paired (startup.go)")
	dynamic := flag.String("dynamic", "", "with -startup: godu as go install builds it")
	flag.Parse()
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		fatal(err)
	}
	if *scaleTrees != "" {
		scale(*dir, *godu, *scaleTrees, 3)
		return
	}
	if *hello != "" {
		startup(*dir, map[string]string{"hello": *hello, "godu": *godu, "dynamic": *dynamic}, max(*rounds, 1))
		return
	}
	if *doubles {
		doubling(*dir, *godu, *floor, max(*runs, 5))
		return
	}
	j := *jobs
	if j == 0 {
		j = defaultJobs(*godu)
	}
	fmt.Printf("Machine: %s, %d CPUs, %s; godu workers: %d\n\n", runtime.GOOS+"/"+runtime.GOARCH, runtime.NumCPU(), cpuModel(), j)
	for _, name := range strings.Split(*trees, ",") {
		root := filepath.Join(*dir, name)
		if err := build(name, root); err != nil {
			fatal(err)
		}
		if name == "outside" {
			root = filepath.Join(root, "t")
		}
		ts := tools(root, *godu, *purego, *floor, j)
		measure(name, root, ts, *runs)
		counts(root, ts)
		if runtime.GOOS == "linux" && *rounds > 0 {
			paired(ts[:3], *rounds)
		}
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "godubench:", err)
	os.Exit(1)
}

// defaultJobs asks godu which worker count it picks by default.
func defaultJobs(godu string) int {
	out, _ := exec.Command(godu, "--help").Output()
	m := regexp.MustCompile(`default: (\d+)`).FindSubmatch(out)
	if m != nil {
		n, _ := strconv.Atoi(string(m[1]))
		return n
	}
	return 3 * runtime.NumCPU()
}

func cpuModel() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	if m := regexp.MustCompile(`model name\s*:\s*(.*)`).FindSubmatch(b); m != nil {
		return string(m[1])
	}
	return "unknown CPU"
}

// counts prints the statx, openat and getdents64 calls of godu -s (the
// cgo build) and of the floor on root, under strace -c -f, against the
// tree's entries and directories.
func counts(root string, ts []tool) {
	if _, err := exec.LookPath("strace"); err != nil || runtime.GOOS != "linux" {
		return
	}
	entries, dirs := 1, 1
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		fatal(err)
	}
	countBelow(fd, &entries, &dirs)
	fmt.Printf("System calls (strace -c -f) on %d entries, %d directories:\n\n| tool | statx | openat | getdents64 | statx − entries | openat − directories |\n|---|---:|---:|---:|---:|---:|\n", entries, dirs)
	for _, t := range ts[:2] {
		c := syscalls(t.argv)
		fmt.Printf("| %s | %d | %d | %d | %+d | %+d |\n", t.name, c["statx"], c["openat"], c["getdents64"],
			c["statx"]-entries, c["openat"]-dirs)
	}
	fmt.Println()
}

// countBelow counts the entries and directories below the directory open
// as fd, which it closes, opening each relative to its parent (no path
// grows with the depth, as a chain's would past PATH_MAX).
func countBelow(fd int, entries, dirs *int) {
	f := os.NewFile(uintptr(fd), "")
	defer f.Close()
	es, _ := f.ReadDir(-1)
	for _, e := range es {
		*entries++
		if !e.IsDir() {
			continue
		}
		*dirs++
		if sub, err := unix.Openat(fd, e.Name(), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0); err == nil {
			countBelow(sub, entries, dirs)
		}
	}
}

// syscalls runs argv under strace -c -f and returns the calls by name.
func syscalls(argv []string) map[string]int {
	f, err := os.CreateTemp("", "godubench-strace")
	if err != nil {
		fatal(err)
	}
	f.Close()
	defer os.Remove(f.Name())
	cmd := exec.Command("strace", append([]string{"-c", "-f", "-o", f.Name()}, argv...)...)
	if err := cmd.Run(); err != nil {
		fatal(fmt.Errorf("strace %s: %v", argv[0], err))
	}
	b, _ := os.ReadFile(f.Name())
	return parseStrace(string(b))
}

// parseStrace reads strace -c's table: calls are the column before the
// errors (which may be empty) and the name.
func parseStrace(s string) map[string]int {
	c := map[string]int{}
	for _, l := range strings.Split(s, "\n") {
		f := strings.Fields(l)
		if len(f) < 5 || f[0] == "%" || strings.HasPrefix(f[0], "-") || f[len(f)-1] == "total" {
			continue
		}
		name := f[len(f)-1]
		n, err := strconv.Atoi(f[3])
		if err != nil {
			continue
		}
		c[name] = n
	}
	return c
}

type tool struct {
	name string
	argv []string
}

// tools are the commands measured on root: godu, du, the floor, and each
// peer that is installed (the missing ones are named).
func tools(root, godu, purego, floor string, jobs int) []tool {
	j := strconv.Itoa(jobs)
	var ts []tool
	if runtime.GOOS == "linux" {
		ts = append(ts, tool{"floor (C, statx)", []string{floor, "-j", j, root}})
	}
	ts = append(ts, []tool{
		{"godu -sh (cgo)", []string{godu, "-sh", root}},
		{"godu -sh (purego)", []string{purego, "-sh", root}},
		{"du -sh", []string{"du", "-sh", root}},
	}...)
	peers := []tool{
		{"diskus", []string{"diskus", root}},
		{"dust -d 0", []string{"dust", "-d", "0", "-c", "-b", root}},
		{"dua aggregate", []string{"dua", "aggregate", root, root}},
		{"pdu -H", []string{"pdu", "-H", "--max-depth=1", root}},
		{"gdu -snp", []string{"gdu", "-snp", root}},
		{"ncdu -o /dev/null", []string{"ncdu", "-0", "-o", "/dev/null", root}},
	}
	var missing []string
	for _, p := range peers {
		if path, err := exec.LookPath(p.argv[0]); err == nil {
			p.argv[0] = path
			ts = append(ts, p)
		} else if home, _ := os.UserHomeDir(); fileExists(filepath.Join(home, ".cargo/bin", p.argv[0])) {
			p.argv[0] = filepath.Join(home, ".cargo/bin", p.argv[0])
			ts = append(ts, p)
		} else {
			missing = append(missing, p.argv[0])
		}
	}
	if len(missing) > 0 {
		fmt.Printf("Not installed, not measured: %s\n\n", strings.Join(missing, ", "))
	}
	return ts
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func quoteArgv(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

// measure runs one hyperfine over every tool on root, then each tool once
// under /usr/bin/time -v for its peak RSS, and prints the table.
func measure(name, root string, ts []tool, runs int) {
	out := filepath.Join(os.TempDir(), "godubench-"+name+".json")
	// -i: a peer that fails on a tree (dust on a chain deeper than
	// PATH_MAX) is timed and marked, not the end of the run.
	args := []string{"-N", "-i", "--warmup", "3", "--runs", strconv.Itoa(runs), "--export-json", out, "--style", "none"}
	for _, t := range ts {
		args = append(args, "-n", t.name, quoteArgv(t.argv))
	}
	cmd := exec.Command("hyperfine", args...)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		fatal(fmt.Errorf("hyperfine on %s: %v", name, err))
	}
	var res struct {
		Results []struct {
			Command string  `json:"command"`
			Median  float64 `json:"median"`
			Stddev  float64 `json:"stddev"`
		} `json:"results"`
	}
	b, err := os.ReadFile(out)
	if err != nil {
		fatal(err)
	}
	if err := json.Unmarshal(b, &res); err != nil {
		fatal(err)
	}
	// Ratios are to the first tool: the floor on Linux, godu elsewhere.
	floor := res.Results[0].Median
	fmt.Printf("### %s\n\n| tool | median | ± σ | × %s | peak RSS | output |\n|---|---:|---:|---:|---:|---|\n", name, ts[0].name)
	for i, r := range res.Results {
		rss, first := rssAndOutput(ts[i].argv)
		fmt.Printf("| %s | %.1f ms | %.1f | %.2f | %.1f MiB | `%s` |\n", r.Command, r.Median*1000, r.Stddev*1000, r.Median/floor, rss, first)
	}
	fmt.Println()
}

// rssAndOutput runs argv once under /usr/bin/time for its peak RSS in MiB
// (GNU time -v reports KiB; BSD time -l, on macOS, bytes) and returns the
// first line it printed.
func rssAndOutput(argv []string) (rss float64, first string) {
	flag, prefix, unit := "-v", "Maximum resident set size (kbytes): ", 1024.0
	if runtime.GOOS == "darwin" {
		flag, prefix, unit = "-l", "", 1024*1024
	}
	cmd := exec.Command("/usr/bin/time", append([]string{flag}, argv...)...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() > 0 {
			// GNU time exits with the command's status.
			defer func() { first = fmt.Sprintf("FAILED (exit %d) ", ee.ExitCode()) + first }()
		}
	}
	sc := bufio.NewScanner(&e)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if runtime.GOOS == "darwin" {
			if v, ok := strings.CutSuffix(l, "maximum resident set size"); ok {
				rss, _ = strconv.ParseFloat(strings.TrimSpace(v), 64)
			}
		} else if v, ok := strings.CutPrefix(l, prefix); ok {
			rss, _ = strconv.ParseFloat(v, 64)
		}
	}
	line, _, _ := strings.Cut(strings.TrimSpace(o.String()), "\n")
	line = strings.ReplaceAll(line, "\t", " ")
	line = regexp.MustCompile(`\x1b\[[0-9;]*m`).ReplaceAllString(line, "")
	if len(line) > 40 {
		line = line[:40] + "…"
	}
	return rss / unit, line
}

// paired times the floor (ts[0]) and the godu builds (the rest) in turn,
// in a shuffled order each round, and prints each build's time over the
// floor's in the same round: median and quartiles. On a shared machine
// whose speed drifts, hyperfine's blocks of runs of one command at a time
// can move a ratio by more than the difference measured; pairs cannot.
func paired(ts []tool, rounds int) {
	ratios := make([][]float64, len(ts))
	times := make([]float64, len(ts))
	order := make([]int, len(ts))
	for i := range order {
		order[i] = i
	}
	for r := -2; r < rounds; r++ { // two rounds of warm-up
		rand.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, i := range order {
			cmd := exec.Command(ts[i].argv[0], ts[i].argv[1:]...)
			start := time.Now()
			if err := cmd.Run(); err != nil {
				fatal(fmt.Errorf("%s: %v", ts[i].name, err))
			}
			times[i] = time.Since(start).Seconds()
		}
		for i := 1; r >= 0 && i < len(ts); i++ {
			ratios[i] = append(ratios[i], times[i]/times[0])
		}
	}
	fmt.Printf("Paired with the floor, %d rounds (time over the floor's in the same round, median [quartiles]):", rounds)
	for i := 1; i < len(ts); i++ {
		q := ratios[i]
		sort.Float64s(q)
		fmt.Printf(" %s %.3f [%.3f–%.3f];", ts[i].name, q[len(q)/2], q[len(q)/4], q[3*len(q)/4])
	}
	fmt.Print("\n\n")
}
