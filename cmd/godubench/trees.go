//go:build unix

package main

// The benchmark trees: what make bench measures, built once and cached.

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// buildOnce makes a tree at root with make unless a finished one is there
// (root.done, written once make succeeds).
func buildOnce(root string, make func(root string) error) error {
	done := root + ".done"
	if _, err := os.Stat(done); err == nil {
		return nil
	}
	os.RemoveAll(root)
	fmt.Fprintf(os.Stderr, "building %s ...\n", root)
	if err := make(root); err != nil {
		return err
	}
	return os.WriteFile(done, nil, 0o644)
}

// build makes tree name at root unless a finished one is there.
func build(name, root string) error {
	return buildOnce(root, func(root string) error { return buildTree(name, root) })
}

func buildTree(name, root string) error {
	var err error
	switch name {
	case "deep":
		err = deep(root, 12, bytes.Repeat([]byte{'x'}, 70))
	case "wide":
		err = files(root, 200000, bytes.Repeat([]byte{'x'}, 100))
	case "hardlinks":
		err = hardlinks(root)
	case "chain":
		err = chain(root, 10000)
	case "longnames":
		err = longNames(root)
	case "star":
		err = star(root, 100000)
	case "outside":
		if err = deep(filepath.Join(root, "t"), 12, bytes.Repeat([]byte{'x'}, 70)); err == nil {
			err = linkOutside(filepath.Join(root, "t"), filepath.Join(root, "o"))
		}
	case "real":
		if err = os.MkdirAll(root, 0o755); err == nil {
			err = exec.Command("cp", "-a", "/usr/share", "/usr/include", root).Run()
		}
	default:
		err = fmt.Errorf("unknown tree %q", name)
	}
	return err
}

func files(dir string, n int, content []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		if err := os.WriteFile(filepath.Join(dir, "f"+strconv.Itoa(i)), content, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func deep(dir string, levels int, content []byte) error {
	if err := files(dir, 100, content); err != nil {
		return err
	}
	if levels == 1 {
		return nil
	}
	for _, c := range []string{"a", "b"} {
		if err := deep(filepath.Join(dir, c), levels-1, content); err != nil {
			return err
		}
	}
	return nil
}

func hardlinks(root string) error {
	for d := 0; d < 100; d++ {
		if err := os.MkdirAll(filepath.Join(root, "d"+strconv.Itoa(d)), 0o755); err != nil {
			return err
		}
	}
	content := bytes.Repeat([]byte{'x'}, 5000)
	for f := 0; f < 1000; f++ {
		first := filepath.Join(root, "d"+strconv.Itoa(f%100), "f"+strconv.Itoa(f))
		if err := os.WriteFile(first, content, 0o644); err != nil {
			return err
		}
		for l := 1; l < 10; l++ {
			p := filepath.Join(root, "d"+strconv.Itoa((f+l*7)%100), "f"+strconv.Itoa(f)+"-"+strconv.Itoa(l))
			if err := os.Link(first, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// star makes n empty directories in root.
func star(root string, n int) error {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		if err := os.Mkdir(filepath.Join(root, "d"+strconv.Itoa(i)), 0o755); err != nil {
			return err
		}
	}
	return nil
}

// chain makes levels nested directories below root, a file in each,
// working from descriptors (no path grows with the depth).
func chain(root string, levels int) error {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return err
	}
	for i := 0; i < levels; i++ {
		f, err := unix.Openat(fd, "f", unix.O_CREAT|unix.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		unix.Close(f)
		if err := unix.Mkdirat(fd, "d", 0o755); err != nil {
			return err
		}
		sub, err := unix.Openat(fd, "d", unix.O_RDONLY|unix.O_DIRECTORY, 0)
		unix.Close(fd)
		if err != nil {
			return err
		}
		fd = sub
	}
	return unix.Close(fd)
}

// longNames makes 2,000 directories, 20 below each of 100, of 25 small
// files each, every name 100-255 bytes long.
func longNames(root string) error {
	rng := rand.New(rand.NewSource(1))
	name := func(prefix string) string {
		n := 100 + rng.Intn(156)
		return prefix + strings.Repeat("n", n-len(prefix))
	}
	content := bytes.Repeat([]byte{'x'}, 300)
	for i := 0; i < 100; i++ {
		top := filepath.Join(root, name("t"+strconv.Itoa(i)))
		for j := 0; j < 20; j++ {
			d := filepath.Join(top, name("d"+strconv.Itoa(j)))
			if err := os.MkdirAll(d, 0o755); err != nil {
				return err
			}
			for k := 0; k < 25; k++ {
				if err := os.WriteFile(filepath.Join(d, name("f"+strconv.Itoa(k))), content, 0o644); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// linkOutside gives every file below root a second link in out.
func linkOutside(root, out string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	n := 0
	return filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		return os.Link(p, filepath.Join(out, strconv.Itoa(n)))
	})
}
