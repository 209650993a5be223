//go:build unix

package godu_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/godu-sh/godu/internal/testtree"
)

// goCmd runs the go command in dir with env added; it fails the test with
// the command's output when the command fails.
func goCmd(t *testing.T, dir string, env []string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), append([]string{"GOPROXY=off", "GOFLAGS=-mod=mod"}, env...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
}

// consumer copies testdata/consumer, a module of its own, to a temporary
// directory with its replace pointed at this checkout.
func consumer(t *testing.T) string {
	t.Helper()
	top, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "consumer")
	if err := os.CopyFS(dir, os.DirFS("testdata/consumer")); err != nil {
		t.Fatal(err)
	}
	goCmd(t, dir, nil, "mod", "edit", "-replace", "github.com/godu-sh/godu="+top)
	return dir
}

// A program of another module builds against the package plain, vendored
// (with cgo, with -tags purego, without cgo), and prints du -sB1's line;
// vendored without cgo it cross-compiles for Windows.
func TestConsumerModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module four ways")
	}
	tree := filepath.Join(t.TempDir(), "tree")
	testtree.Build(t, tree, map[string]string{"a/f": "file:70000", "a/g": "link:a/f", "b/s": "sparse:1000000", "c/d": "/"})
	want := testtree.Run(t, "/", nil, "du", "-sB1", tree).Stdout

	dir := consumer(t)
	builds := []struct {
		name string
		env  []string
		args []string
	}{
		{"plain", []string{"CGO_ENABLED=1"}, nil},
		{"vendor-cgo", []string{"CGO_ENABLED=1", "GOFLAGS=-mod=vendor"}, nil},
		{"vendor-purego", []string{"CGO_ENABLED=1", "GOFLAGS=-mod=vendor"}, []string{"-tags", "purego"}},
		{"vendor-nocgo", []string{"CGO_ENABLED=0", "GOFLAGS=-mod=vendor"}, nil},
	}
	for i, b := range builds {
		if i == 1 {
			goCmd(t, dir, nil, "mod", "vendor")
			if _, err := os.Stat(filepath.Join(dir, "vendor/github.com/godu-sh/godu/csrc/bulk_linux.c")); err != nil {
				t.Fatalf("vendor tree lacks the C core: %v", err)
			}
		}
		bin := filepath.Join(dir, b.name)
		goCmd(t, dir, b.env, append(append([]string{"build", "-o", bin}, b.args...), ".")...)
		if got := testtree.Run(t, "/", nil, bin, tree); got.Stdout != want || got.Code != 0 {
			t.Errorf("%s: %q (%d, %s), du %q", b.name, got.Stdout, got.Code, got.Stderr, want)
		}
	}
	// Vendored and without cgo, the consumer cross-compiles for Windows,
	// whose reader shares no file with Linux's (built, not run, here).
	goCmd(t, dir, []string{"CGO_ENABLED=0", "GOOS=windows", "GOARCH=amd64", "GOFLAGS=-mod=vendor"},
		"build", "-o", filepath.Join(dir, "consumer.exe"), ".")
}

// Two modules carrying copies of the engine link into one program: the C
// core exports no symbol that could clash. The copy is this checkout under
// another module path.
func TestTwoCopiesLink(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module")
	}
	top, _ := os.Getwd()
	cp := filepath.Join(t.TempDir(), "copy")
	err := filepath.WalkDir(top, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(top, p)
		if d.IsDir() {
			if rel == ".git" || rel == "testdata" || rel == "cmd" || rel == "bin" {
				return filepath.SkipDir
			}
			return nil
		}
		switch ext := filepath.Ext(rel); {
		case strings.HasSuffix(rel, "_test.go"):
			return nil
		case ext != ".go" && ext != ".c" && ext != ".h" && rel != "go.mod" && rel != "go.sum":
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		b = []byte(strings.ReplaceAll(string(b), "github.com/godu-sh/godu", "example.com/engine2"))
		os.MkdirAll(filepath.Join(cp, filepath.Dir(rel)), 0o755)
		return os.WriteFile(filepath.Join(cp, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	dir := consumer(t)
	main := `package main

import (
	"context"
	"fmt"
	"os"

	engine2 "example.com/engine2"
	"github.com/godu-sh/godu"
)

func main() {
	a, err1 := godu.Scan(context.Background(), os.Args[1], godu.Options{Summarize: true})
	b, err2 := godu.Scan(context.Background(), os.Args[1], godu.Options{Summarize: true})
	c, err3 := engine2.Scan(context.Background(), os.Args[1], engine2.Options{Summarize: true})
	if err1 != nil || err2 != nil || err3 != nil {
		os.Exit(1)
	}
	fmt.Println(a.DiskUsage == b.DiskUsage, a.DiskUsage == c.DiskUsage)
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	goCmd(t, dir, nil, "mod", "edit", "-require", "example.com/engine2@v0.0.0", "-replace", "example.com/engine2="+cp)
	bin := filepath.Join(dir, "two")
	goCmd(t, dir, []string{"CGO_ENABLED=1"}, "build", "-o", bin, ".")
	if got := testtree.Run(t, "/", nil, bin, top); got.Stdout != "true true\n" {
		t.Fatalf("%+v", got)
	}
	nm, err := exec.Command("nm", "--defined-only", "-g", bin).Output()
	if err != nil {
		t.Skip("no nm:", err)
	}
	for _, l := range strings.Split(string(nm), "\n") {
		if f := strings.Fields(l); len(f) == 3 && strings.HasPrefix(f[2], "godu_") {
			t.Errorf("exported C symbol %s", f[2])
		}
	}
}
