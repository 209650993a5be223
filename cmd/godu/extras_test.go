//go:build unix

package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/godu-sh/godu/internal/testtree"
	"golang.org/x/sys/unix"
)

func bigTree(t *testing.T) string {
	return filesTree(t, "big", 20, 200, "f", []byte("x"))
}

// filesTree makes top/dN/PREFIXM below a new directory, dirs directories
// of files files each holding content, and returns the directory.
func filesTree(t *testing.T, top string, dirs, files int, prefix string, content []byte) string {
	root := t.TempDir()
	for d := 0; d < dirs; d++ {
		dir := filepath.Join(root, top, fmt.Sprintf("d%d", d))
		os.MkdirAll(dir, 0o755)
		for f := 0; f < files; f++ {
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s%d", prefix, f)), content, 0o644)
		}
	}
	return root
}

// TestProgressOnTerminal runs godu under a pseudo-terminal (script(1)):
// the progress line appears, rewrites itself, and is erased before the
// result, which is du's line.
func TestProgressOnTerminal(t *testing.T) {
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("script(1) is not installed")
	}
	root := bigTree(t)
	want := testtree.Run(t, root, nil, "du", "-s", "big").Stdout
	cmd := exec.Command("script", "-qfec", godu+" -s -j 1 big", "/dev/null")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GODU_PROGRESS_AFTER=0s", "GORACE=atexit_sleep_ms=0", "LC_ALL=C")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("script: %v", err)
	}
	frames := bytes.Count(out, []byte("\r\x1b[K"))
	if frames < 2 || !bytes.Contains(out, []byte(" entries, ")) {
		t.Fatalf("no progress line in %q", out)
	}
	last := out[bytes.LastIndex(out, []byte("\x1b[K"))+3:]
	if got := strings.ReplaceAll(string(last), "\r\n", "\n"); got != want {
		t.Errorf("after the progress line: %q, want %q", got, want)
	}
}

func TestNoProgressOnPipe(t *testing.T) {
	root := bigTree(t)
	cmd := exec.Command(godu, "-s", "big")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GODU_PROGRESS_AFTER=0s", "GORACE=atexit_sleep_ms=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil || stderr.Len() != 0 {
		t.Fatalf("stderr not a terminal: %v, %q", err, stderr.String())
	}
	cmd = exec.Command(godu, "-s", "--progress", "big")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GODU_PROGRESS_AFTER=0s", "GORACE=atexit_sleep_ms=0")
	stderr.Reset()
	cmd.Stderr = &stderr
	cmd.Run()
	if !strings.Contains(stderr.String(), "\x1b[K") {
		t.Errorf("--progress showed nothing: %q", stderr.String())
	}
}

// TestJSON parses --json back and requires the plain output's numbers.
func TestJSON(t *testing.T) {
	root := richTree(t)
	// -l: which of a file's links is counted may differ from run to run.
	for _, args := range [][]string{{"-l", "-a", "-b"}, {"-l", "-d", "1", "-k", "-c"}, {"-s", "--inodes"}} {
		plain := testtree.Run(t, root, nil, godu, append(append([]string{"-0"}, args...), "t")...)
		js := testtree.Run(t, root, nil, godu, append(append([]string{"--json"}, args...), "t")...)
		var doc struct {
			Entries []struct {
				Path         string `json:"path"`
				PathBytes    string `json:"path_bytes"`
				Type         string `json:"type"`
				DiskUsage    int64  `json:"disk_usage"`
				ApparentSize int64  `json:"apparent_size"`
				Inodes       int64  `json:"inodes"`
			} `json:"entries"`
			Total  *struct{} `json:"total"`
			Errors []any     `json:"errors"`
		}
		if err := json.Unmarshal([]byte(js.Stdout), &doc); err != nil {
			t.Fatalf("%q: %v in %s", args, err, js.Stdout)
		}
		lines := strings.Split(strings.TrimSuffix(plain.Stdout, "\x00"), "\x00")
		n := len(doc.Entries)
		if doc.Total != nil {
			n++
		}
		if n != len(lines) {
			t.Fatalf("%q: %d JSON entries, %d lines", args, n, len(lines))
		}
		for i, e := range doc.Entries {
			size, path, _ := strings.Cut(lines[i], "\t")
			p := e.Path
			if e.PathBytes != "" {
				b, _ := base64.StdEncoding.DecodeString(e.PathBytes)
				p = string(b)
			}
			if p != path {
				t.Errorf("%q: entry %d path %q, line %q", args, i, p, path)
			}
			v, _ := strconv.ParseInt(size, 10, 64)
			var want int64
			switch {
			case args[len(args)-1] == "--inodes":
				want = e.Inodes
			case args[len(args)-1] == "-b":
				want = e.ApparentSize
			default:
				want = (e.DiskUsage + 1023) / 1024
			}
			if v != want {
				t.Errorf("%q: %s: JSON gives %d, line %d", args, path, want, v)
			}
		}
	}
}

func TestCompletionsAndStats(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish", "powershell"} {
		r := testtree.Run(t, "/", nil, godu, "--completion="+sh)
		if r.Code != 0 || !strings.Contains(r.Stdout, "godu") || len(r.Stdout) < 500 {
			t.Errorf("completion %s: %d, %d bytes, %q", sh, r.Code, len(r.Stdout), r.Stderr)
		}
	}
	root := bigTree(t)
	r := testtree.Run(t, root, nil, godu, "-s", "--stats", "big")
	if !strings.Contains(r.Stderr, "godu: 21 directories, 4,000 files, 0 hard links counted once, 0 errors") {
		t.Errorf("--stats: %q", r.Stderr)
	}
}

// TestStatsCountsOperands: --stats counts what the lines report, the
// operands too: files given as operands, a directory operand that cannot
// be read (its line is printed), and the operands' own errors, as many
// as the messages.
func TestStatsCountsOperands(t *testing.T) {
	root := t.TempDir()
	testtree.Build(t, root, map[string]string{"d/f": "file:10", "lf": "symlink:d/f", "z000/x": "/", "z111/x": "/"})
	if err := unix.Mkfifo(filepath.Join(root, "ff"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		cred *syscall.Credential
		want string
	}{
		{[]string{"d/f", "lf", "ff"}, nil, "0 directories, 3 files"},
		{[]string{"-s", "", "d", "missing"}, nil, "1 directories, 1 files, 0 hard links counted once, 2 errors"},
	}
	if os.Getuid() == 0 {
		os.Chmod(filepath.Join(root, "z000"), 0o000)
		os.Chmod(filepath.Join(root, "z111"), 0o111)
		defer os.Chmod(filepath.Join(root, "z000"), 0o755)
		defer os.Chmod(filepath.Join(root, "z111"), 0o755)
		openUp(t, root)
		cases = append(cases, struct {
			args []string
			cred *syscall.Credential
			want string
		}{[]string{"z000", "z111"}, &syscall.Credential{Uid: 65534, Gid: 65534}, "2 directories, 0 files, 0 hard links counted once, 2 errors"})
	}
	for _, c := range cases {
		r := testtree.Run(t, root, c.cred, godu, append([]string{"--stats"}, c.args...)...)
		if !strings.Contains(r.Stderr, "godu: "+c.want) {
			t.Errorf("--stats %q: %q, want %q", c.args, r.Stderr, c.want)
		}
	}
}

// TestExcludeFromNul: a pattern of -X ends at a NUL byte, as du reads it
// (a C string): "t\0u" excludes t, not u; a line of NULs is a pattern that
// matches nothing, and trailing blanks go only at the end of the line.
func TestExcludeFromNul(t *testing.T) {
	needDu(t)
	root := t.TempDir()
	for _, d := range []string{"t", "u", "tu", "t  "} {
		os.Mkdir(filepath.Join(root, d), 0o755)
	}
	for i, pats := range []string{"t\x00u\x00\n", "\x00\n\x00\x00", "u\x00 \n", "t  \x00x\n", "\x00t"} {
		file := filepath.Join(root, "pats"+strconv.Itoa(i))
		os.WriteFile(file, []byte(pats), 0o644)
		compare(t, root, []string{"-a", "-X", file}, []string{"t", "u", "tu", "t  "})
		cmd := exec.Command(godu, "-a", "-X", "-", "t", "u", "tu", "t  ")
		want := exec.Command("du", "-a", "-X", "-", "t", "u", "tu", "t  ")
		for _, c := range []*exec.Cmd{cmd, want} {
			c.Dir = root
			c.Stdin = strings.NewReader(pats)
		}
		g, _ := cmd.CombinedOutput()
		w, _ := want.CombinedOutput()
		if string(g) != string(w) {
			t.Errorf("-X - with %q: %q, want %q", pats, g, w)
		}
	}
}

// TestJSONOperandErrors: every message du prints is in --json's errors,
// those about an operand it refuses before walking too (a zero-length
// name, given or read by --files0-from; "-" read from standard input),
// with the status du exits with. (They went to stderr only.)
func TestJSONOperandErrors(t *testing.T) {
	root := t.TempDir()
	testtree.Build(t, root, map[string]string{"d/f": "file:10"})
	os.WriteFile(filepath.Join(root, "names"), []byte("d\x00\x00d\x00"), 0o644)
	for _, c := range []struct {
		args  []string
		stdin string
	}{
		{[]string{""}, ""},
		{[]string{"d", "", "d"}, ""},
		{[]string{"--files0-from=names"}, ""},
		{[]string{"--files0-from=-"}, "d\x00-\x00"},
		{[]string{"--files0-from=missing"}, ""}, // a list that cannot be opened
	} {
		cmd := exec.Command(godu, append([]string{"--json"}, c.args...)...)
		cmd.Dir = root
		cmd.Stdin = strings.NewReader(c.stdin)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		cmd.Run()
		want := exec.Command("du", c.args...)
		want.Dir = root
		want.Stdin = strings.NewReader(c.stdin)
		var wantErr bytes.Buffer
		want.Stderr = &wantErr
		want.Run()
		var doc struct {
			Errors []struct {
				Op, Path, Error string
			} `json:"errors"`
		}
		if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
			t.Fatalf("%q: %v in %s", c.args, err, stdout.String())
		}
		msgs := strings.Split(strings.TrimSuffix(wantErr.String(), "\n"), "\n")
		if cmd.ProcessState.ExitCode() != want.ProcessState.ExitCode() || len(doc.Errors) != len(msgs) {
			t.Errorf("%q: exit %d, errors %+v; du exit %d, %q", c.args, cmd.ProcessState.ExitCode(), doc.Errors, want.ProcessState.ExitCode(), wantErr.String())
			continue
		}
		for i, e := range doc.Errors {
			if e.Op != "operand" || "du: "+e.Error != msgs[i] {
				t.Errorf("%q: error %d %+v, du %q", c.args, i, e, msgs[i])
			}
		}
	}
}
