//go:build godu_xnu

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/godu-sh/godu/internal/bulk"
	"github.com/godu-sh/godu/internal/testtree"
	"github.com/godu-sh/godu/internal/xnu"
)

// The godu_xnu build: godu under test runs the darwin core over the
// getattrlistbulk emulation (internal/xnu); these drive its knobs through
// the environment of the godu process.
func init() { buildTags = append(buildTags, "godu_xnu") }

// onXnu reports whether godu runs the darwin core over the emulation.
const onXnu = true

// xnuArgs are du's options the knob tests run under.
var xnuArgs = [][]string{{"-a", "-0"}, {"-s"}, {"-ab", "-0"}, {"-ah", "-d2", "-0"}, {"--inodes", "-a", "-0"},
	{"-al", "-0"}, {"-L", "-s"}, {"-ax", "-0"}, {"-S", "-a", "-0"}, {"--time", "-s"}, {"-c", "-s"}}

// TestXnuKnobs: whatever the kernel's call does (few records a call,
// buffers that cut records anywhere, unpadded last records, EINTR, a
// volume that refuses the call), godu prints what du prints.
func TestXnuKnobs(t *testing.T) {
	root := richTree(t)
	for _, knobs := range []string{"max=1", "max=3,eintr=2", "buf=700", "buf=1001,unpadded", "buf=1600,eintr=3",
		"enotsup=t:files:names", "einval=nested:hard", "enotsup=b,einval=a,max=2"} {
		t.Setenv(xnu.EnvVar, knobs)
		for _, args := range xnuArgs {
			compare(t, root, args, []string{"t", "u"})
		}
		if t.Failed() {
			t.Fatalf("knobs %s", knobs)
		}
	}
}

// TestXnuVanish: an entry removed between the listing and its
// examination is reported as du reports a file it cannot access, and the
// rest is counted as du counts the tree without it.
func TestXnuVanish(t *testing.T) {
	for _, args := range xnuArgs {
		root := richTree(t)
		t.Setenv(xnu.EnvVar, "vanish=100k,max=4")
		got := testtree.Run(t, root, nil, godu, append(args, "t")...)
		os.Unsetenv(xnu.EnvVar)
		compareOutput(t, root, got, args, []string{"t"}, false)
		if w := "godu: cannot access 't/files/100k': No such file or directory\n"; !strings.Contains(got.Stderr, w) || got.Code != 1 {
			t.Errorf("godu %q t: status %d, stderr %q; want 1, %q", args, got.Code, got.Stderr, w)
		}
	}
}

// TestXnuFirmlinkDataless: a firmlink is not counted (its tree is counted
// where it is mounted): du on the tree without it prints the same; a
// dataless file is counted as its attributes say.
func TestXnuFirmlinkDataless(t *testing.T) {
	for _, args := range xnuArgs {
		if contains(args, "-L") {
			continue // t/links/to-dir leads into the firmlink
		}
		root := richTree(t)
		t.Setenv(xnu.EnvVar, "firmlink=nested,dataless=3m:4097")
		got := testtree.Run(t, root, nil, godu, append(args, "t")...)
		os.Unsetenv(xnu.EnvVar)
		if err := os.Rename(filepath.Join(root, "t", "nested"), filepath.Join(root, "away")); err != nil {
			t.Fatal(err)
		}
		compareOutput(t, root, got, args, []string{"t"}, true)
	}
}

// TestXnuSameAsLinux: godu with the darwin core over the emulation prints
// what godu with the Linux core prints, across du's options.
func TestXnuSameAsLinux(t *testing.T) {
	linux := filepath.Join(t.TempDir(), "godu")
	args := []string{"build", "-o", linux}
	if bulk.Variant == "purego" {
		args = append(args, "-tags", "purego")
	}
	cmd := exec.Command("go", append(args, ".")...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building godu: %v\n%s", err, out)
	}
	root := richTree(t)
	sets := append([][]string{{"--apparent-size", "-a"}, {"-k", "-a"}, {"-m", "-s"}, {"--si", "-a"}, {"-0", "-a"},
		{"-a", "--exclude=*k"}, {"-at", "5000"}, {"-d0"}, {"--time=ctime", "-a"}, {"-B", "1K", "-a"}, {"-a", "-P"}},
		xnuArgs...)
	for _, a := range sets {
		for _, ops := range [][]string{{"t", "u"}, {"t/links/to-dir", "t/hard"}, {"missing", "t/files"}} {
			all := append(append([]string{}, a...), ops...)
			want := testtree.Run(t, root, nil, linux, all...)
			got := testtree.Run(t, root, nil, godu, all...)
			null := contains(a, "-0")
			if !reflect.DeepEqual(testtree.Lines(got.Stdout, null), testtree.Lines(want.Stdout, null)) ||
				got.Stderr != want.Stderr || got.Code != want.Code {
				t.Errorf("godu %q: darwin core\n%s%s(%d)\nLinux core\n%s%s(%d)", all, got.Stdout, got.Stderr, got.Code,
					want.Stdout, want.Stderr, want.Code)
			}
		}
	}
	if out, _ := exec.Command("go", "tool", "nm", linux).Output(); strings.Contains(string(out), "xnu") {
		t.Errorf("the Linux build links the emulation")
	}
}
