// Command typecheck type-checks the module's packages, their tests
// included, for other systems, from source: the standard library and the
// dependencies are read and checked by go/types, never compiled, so that
// a target costs seconds where a go build or go vet for it compiles the
// standard library for that system first (minutes on an empty build
// cache). make cross-all compiles and vets one system of each family and
// checks the rest with this.
//
//	go run ./.ci/typecheck GOOS/GOARCH...
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// pkg is what go list says of one of the module's packages.
type pkg struct {
	ImportPath   string
	Dir          string
	GoFiles      []string
	TestGoFiles  []string
	XTestGoFiles []string
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: typecheck GOOS/GOARCH...")
		os.Exit(2)
	}
	bad := false
	for _, t := range os.Args[1:] {
		goos, goarch, ok := strings.Cut(t, "/")
		if !ok {
			fmt.Fprintf(os.Stderr, "typecheck: %q is not GOOS/GOARCH\n", t)
			os.Exit(2)
		}
		n, errs := check(goos, goarch)
		for _, e := range errs {
			fmt.Fprintf(os.Stderr, "%s: %s\n", t, e)
		}
		if len(errs) > 0 {
			bad = true
			continue
		}
		fmt.Printf("%s: %d packages type-check, tests included\n", t, n)
	}
	if bad {
		os.Exit(1)
	}
}

// check type-checks every package of the module for goos/goarch without
// cgo, each with its tests, and its external tests against it.
func check(goos, goarch string) (int, []string) {
	env := append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0")
	list := exec.Command("go", "list", "-e", "-json=ImportPath,Dir,GoFiles,TestGoFiles,XTestGoFiles", "./...")
	list.Env = env
	list.Stderr = os.Stderr
	out, err := list.Output()
	if err != nil {
		return 0, []string{"go list: " + err.Error()}
	}
	var pkgs []pkg
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return 0, []string{"go list: " + err.Error()}
		}
		pkgs = append(pkgs, p)
	}

	// The source importer finds packages through go/build's default
	// context, which then selects files for the target.
	build.Default.GOOS, build.Default.GOARCH, build.Default.CgoEnabled = goos, goarch, false
	fset := token.NewFileSet()
	src := importer.ForCompiler(fset, "source", nil).(types.ImporterFrom)
	var errs []string
	conf := func() *types.Config {
		return &types.Config{
			Importer: src,
			Error: func(err error) {
				if len(errs) < 50 {
					errs = append(errs, err.Error())
				}
			},
		}
	}
	n := 0
	for _, p := range pkgs {
		files := parse(fset, p.Dir, append(p.GoFiles, p.TestGoFiles...), &errs)
		if len(files) == 0 {
			continue
		}
		n++
		self, _ := conf().Check(p.ImportPath, fset, files, nil)
		if len(p.XTestGoFiles) == 0 || self == nil {
			continue
		}
		// The external tests import the package with its own tests, as
		// go test builds it.
		xc := conf()
		xc.Importer = withPackage{src, self}
		xc.Check(p.ImportPath+"_test", fset, parse(fset, p.Dir, p.XTestGoFiles, &errs), nil)
	}
	return n, errs
}

func parse(fset *token.FileSet, dir string, names []string, errs *[]string) []*ast.File {
	var files []*ast.File
	for _, name := range names {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			*errs = append(*errs, err.Error())
			continue
		}
		files = append(files, f)
	}
	return files
}

// withPackage imports pkg itself for its path, anything else from source.
type withPackage struct {
	types.ImporterFrom
	pkg *types.Package
}

func (w withPackage) Import(path string) (*types.Package, error) {
	return w.ImportFrom(path, "", 0)
}

func (w withPackage) ImportFrom(path, dir string, mode types.ImportMode) (*types.Package, error) {
	if path == w.pkg.Path() {
		return w.pkg, nil
	}
	return w.ImporterFrom.ImportFrom(path, dir, mode)
}
