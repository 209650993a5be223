//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// scaleTrees are the trees of `make scale`: the shape of deep (binary,
// files in every directory), and one flat directory, of empty files so
// that the disk stays small.
var scaleTrees = map[string]struct{ levels, files int }{
	"0.4M": {12, 100}, // 4,095 directories: 413,595 entries
	"4M":   {15, 124}, // 32,767 directories: 4,095,875 entries
	// One directory of a million files: -a holds no more than du.
	"1M-flat": {1, 1000000},
}

// scale measures peak RSS and time of godu's outputs against du's on the
// named scale trees: whether memory stays flat as the tree grows tenfold.
func scale(dir, godu, names string, runs int) {
	for _, name := range strings.Split(names, ",") {
		shape, ok := scaleTrees[name]
		if !ok {
			fatal(fmt.Errorf("unknown scale tree %q (0.4M, 4M, 1M-flat)", name))
		}
		root := filepath.Join(dir, "scale-"+name)
		if err := buildOnce(root, func(root string) error { return scaleTree(root, shape.levels, shape.files) }); err != nil {
			fatal(err)
		}
		fmt.Printf("### scale %s (%d levels, %d empty files per directory)\n\n", name, shape.levels, shape.files)
		fmt.Println("| command | peak RSS (MiB) | time (s, best of", runs, ") |")
		fmt.Println("|---|---:|---:|")
		for _, c := range [][]string{
			{"du", "-s"}, {godu, "-s"},
			{"du", "-a"}, {godu, "-a"},
			{"du", "-d", "3"}, {godu, "-d", "3"},
			{godu, "--json", "-a"},
			{godu, "--ncdu-export=-"},
			{"ncdu", "-0", "-o", "-"},
		} {
			if _, err := exec.LookPath(c[0]); err != nil {
				continue
			}
			rss, best := 0, time.Duration(0)
			for i := 0; i < runs; i++ {
				r, d, err := timeRSS(append(c, root))
				if err != nil {
					fatal(fmt.Errorf("%q: %v", c, err))
				}
				rss = max(rss, r)
				if best == 0 || d < best {
					best = d
				}
			}
			name := strings.Join(append([]string{filepath.Base(c[0])}, c[1:]...), " ")
			fmt.Printf("| `%s` | %.1f | %.2f |\n", name, float64(rss)/1024, best.Seconds())
		}
		fmt.Println()
	}
}

// timeRSS runs argv with its output discarded, under /usr/bin/time: peak
// RSS in KiB and elapsed time.
func timeRSS(argv []string) (int, time.Duration, error) {
	cmd := exec.Command("/usr/bin/time", append([]string{"-f", "%M %e"}, argv...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return 0, 0, fmt.Errorf("%v: %s", err, stderr.String())
	}
	m := regexp.MustCompile(`(\d+) ([\d.]+)\s*$`).FindStringSubmatch(stderr.String())
	if m == nil {
		return 0, 0, fmt.Errorf("no figures in %q", stderr.String())
	}
	rss, _ := strconv.Atoi(m[1])
	secs, _ := strconv.ParseFloat(m[2], 64)
	return rss, time.Duration(secs * float64(time.Second)), nil
}

func scaleTree(dir string, levels, files int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i := 0; i < files; i++ {
		f, err := os.Create(filepath.Join(dir, "f"+strconv.Itoa(i)))
		if err != nil {
			return err
		}
		f.Close()
	}
	if levels == 1 {
		return nil
	}
	for _, c := range []string{"a", "b"} {
		if err := scaleTree(filepath.Join(dir, c), levels-1, files); err != nil {
			return err
		}
	}
	return nil
}
