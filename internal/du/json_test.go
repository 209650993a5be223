package du

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/godu-sh/godu/internal/walk"
)

// FuzzJSONEntry: an entry for a path of any bytes is valid JSON that gives
// the path back exactly, and its strings are escaped as encoding/json
// escapes them.
func FuzzJSONEntry(f *testing.F) {
	for _, s := range []string{"a/b", "\xff\xfe", "<&>\u2028\"\\\x00\x1f\x7f", "é\xc3", "\xed\xa0\x80"} {
		f.Add(s)
	}
	o := &Options{}
	f.Fuzz(func(t *testing.T, path string) {
		b := o.appendJSONEntry(nil, "  ", path, walk.Totals{Blocks: 3, Bytes: -1, Inodes: 7}, true, true)
		if !utf8.Valid(b) { // JSON text is UTF-8; encoding/json does not check it
			t.Fatalf("%q: not UTF-8: %q", path, b)
		}
		var e struct {
			Path      string `json:"path"`
			PathBytes string `json:"path_bytes"`
			Type      string `json:"type"`
			DiskUsage int64  `json:"disk_usage"`
			Inodes    int64  `json:"inodes"`
		}
		if err := json.Unmarshal(b, &e); err != nil {
			t.Fatalf("%q: %v in %s", path, err, b)
		}
		got := e.Path
		if e.PathBytes != "" {
			raw, err := base64.StdEncoding.DecodeString(e.PathBytes)
			if err != nil {
				t.Fatal(err)
			}
			got = string(raw)
		}
		if got != path || e.Type != "directory" || e.DiskUsage != 1536 || e.Inodes != 7 {
			t.Fatalf("%q: read back %+v from %s", path, e, b)
		}
		if (e.PathBytes != "") == utf8.ValidString(path) {
			t.Fatalf("%q: path_bytes %q", path, e.PathBytes)
		}
		// "path": each byte of an invalid sequence one U+FFFD, as
		// encoding/json writes it.
		var shown string
		if raw, _ := json.Marshal(path); json.Unmarshal(raw, &shown) != nil || e.Path != shown {
			t.Fatalf("%q: path %q, encoding/json %q", path, e.Path, shown)
		}
		valid := validUTF8(path)
		want, _ := json.Marshal(valid)
		if got := appendJSONString(nil, valid); !bytes.Equal(got, want) {
			t.Fatalf("%q: %s, encoding/json writes %s", valid, got, want)
		}
	})
}

// TestJSONAnyBytes writes a tree whose names are random bytes (every value
// but '/' and NUL) and reads --json -a back: exactly the tree's paths, in
// du's order.
func TestJSONAnyBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	root := t.TempDir()
	want := []string{}
	for i := 0; i < 200; i++ {
		name := make([]byte, 1+rng.IntN(12))
		for j := range name {
			for name[j] == 0 || name[j] == '/' {
				name[j] = byte(rng.IntN(256))
			}
		}
		if string(name) == "." || string(name) == ".." {
			continue
		}
		f, err := os.OpenFile(filepath.Join(root, string(name)), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if os.IsExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		want = append(want, filepath.Join(root, string(name)))
	}
	sort.Strings(want)
	want = append(want, root)
	var out, errs bytes.Buffer
	o := Options{JSON: true, All: true, MaxDepth: -1, Progress: -1}
	if code := Run(context.Background(), o, []string{root}, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	var doc struct {
		Entries []struct {
			Path      string `json:"path"`
			PathBytes []byte `json:"path_bytes"`
		} `json:"entries"`
	}
	if !utf8.Valid(out.Bytes()) {
		t.Fatal("the document is not UTF-8")
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range doc.Entries {
		if e.PathBytes != nil {
			e.Path = string(e.PathBytes)
		}
		got = append(got, e.Path)
	}
	if len(got) != len(want) {
		t.Fatalf("%d paths read back, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("path %d read back %q, want %q", i, got[i], want[i])
		}
	}
}

// errWriter fails every write.
type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, os.ErrClosed }

// A failed write of the JSON document is an error, never exit 0.
func TestJSONWriteError(t *testing.T) {
	var errs bytes.Buffer
	o := Options{JSON: true, MaxDepth: -1, Progress: -1}
	if code := Run(context.Background(), o, []string{t.TempDir()}, errWriter{}, &errs); code == 0 || !strings.Contains(errs.String(), "write error") {
		t.Fatalf("exit %d, %q", code, errs.String())
	}
}
