package du

import (
	"strings"
	"syscall"
	"testing"

	"github.com/godu-sh/godu/internal/walk"
)

func TestQuoteName(t *testing.T) {
	// Expectations are GNU du 9.1's messages in C.UTF-8 (and C for é).
	for _, c := range []struct {
		in, want string
		utf8     bool
	}{
		{"/nonexist/a\nb", `'/nonexist/a'$'\n''b'`, true},
		{"/nonexist/it's", `"/nonexist/it's"`, true},
		{"/nonexist/\xff", `'/nonexist/'$'\377'`, true},
		{"/nonexist/é", `'/nonexist/é'`, true},
		{"/nonexist/é", `'/nonexist/'$'\303\251'`, false},
		{"/nonexist/t\tb", `'/nonexist/t'$'\t''b'`, true},
		{"sp ace", `'sp ace'`, true},
		{"$x", `'$x'`, true},
		{"/nonexist/\x01", `'/nonexist/'$'\001'`, true},
		{"\nab", `''$'\n''ab'`, true},
		{"it's$x", `'it'\''s$x'`, true},
		{`it's"`, `'it'\''s"'`, true},
		{"a`b", "'a`b'", true},
	} {
		if got := quoteIn(c.in, shellEscapeAlways, c.utf8); got != c.want {
			t.Errorf("quote(%q, utf8=%v) = %s, want %s", c.in, c.utf8, got, c.want)
		}
	}
}

func TestFormat(t *testing.T) {
	h, _ := ParseBlockSize("human-readable")
	si, _ := ParseBlockSize("si")
	for _, c := range []struct {
		bs   BlockSize
		n    uint64
		want string
	}{
		{h, 0, "0"}, {h, 1023, "1023"}, {h, 1024, "1.0K"}, {h, 1025, "1.1K"}, {h, 4096, "4.0K"},
		{h, 10239, "10K"}, {h, 10240, "10K"}, {h, 10241, "11K"}, {h, 1048575, "1.0M"},
		{h, 1048576, "1.0M"}, {h, 1048577, "1.1M"}, {h, 1024*1023 + 1, "1.0M"},
		{si, 999, "999"}, {si, 1000, "1.0k"}, {si, 1001, "1.1k"}, {si, 999999, "1.0M"},
		{BlockSize{Size: 1024}, 1, "1"}, {BlockSize{Size: 1024}, 4096, "4"}, {BlockSize{Size: 1024}, 4097, "5"},
		{BlockSize{Size: 1 << 20}, 1, "1"},
	} {
		if got := c.bs.Format(c.n); got != c.want {
			t.Errorf("Format(%d) in %+v = %q, want %q", c.n, c.bs, got, c.want)
		}
	}
	k, _ := ParseBlockSize("K")
	kb, _ := ParseBlockSize("KB")
	kib, _ := ParseBlockSize("KiB")
	for _, c := range []struct {
		bs   BlockSize
		want string
	}{{k, "5K"}, {kb, "5kB"}, {kib, "5KiB"}} {
		if got := c.bs.Format(4097); got != c.want {
			t.Errorf("Format(4097) in %+v = %q, want %q", c.bs, got, c.want)
		}
	}
}

func TestParseBlockSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		size uint64
		err  NumError
	}{
		{"1", 1, NumOK}, {"1K", 1024, NumOK}, {"1KB", 1000, NumOK}, {"1KiB", 1024, NumOK}, {"M", 1 << 20, NumOK},
		{"0x10", 16, NumOK}, {"010", 8, NumOK}, {"'1", 1, NumOK}, {"2G", 2 << 30, NumOK}, {"1Q", 0, NumInvalidSuffix},
		{"0", 0, NumInvalid}, {"x", 0, NumInvalid}, {"1X", 0, NumInvalidSuffix}, {"-1", 0, NumInvalid},
		{"99999999999999999999", 0, NumOverflow}, {"1KBB", 0, NumInvalidSuffix}, {"1Y", 0, NumOverflow},
		{"99999999999999999999X", 0, NumOverflow | NumInvalidSuffix}, {" +0x1fk", 31 << 10, NumOK},
	} {
		bs, err := ParseBlockSize(c.in)
		if err != c.err || (err == NumOK && bs.Size != c.size) {
			t.Errorf("ParseBlockSize(%q) = %d, %v; want %d, %v", c.in, bs.Size, err, c.size, c.err)
		}
	}
}

func TestTrimSlashes(t *testing.T) {
	for in, want := range map[string]string{"a": "a", "a/": "a/", "a//": "a/", "a///": "a/", "/": "/", "//": "//", "///": "/"} {
		if got := walk.TrimSlashes(in); got != want {
			t.Errorf("TrimSlashes(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestErrorText(t *testing.T) {
	if got := ErrorText(&errWrap{}); !strings.HasPrefix(got, "Permission denied") {
		t.Errorf("ErrorText = %q", got)
	}
}

type errWrap struct{}

func (*errWrap) Error() string { return "wrapped" }
func (*errWrap) Unwrap() error { return syscall.EACCES }

// TestUnescapeMount: mountinfo's octal escapes, and what is not one.
func TestUnescapeMount(t *testing.T) {
	for in, want := range map[string]string{`/a\040b`: "/a b", `/t\011\012`: "/t\t\n", `/x\134y`: `/x\y`, `/e\0`: `/e\0`, `/q\9zz`: `/q\9zz`, `/plain`: "/plain"} {
		if got := unescapeMount(in); got != want {
			t.Errorf("unescapeMount(%q) = %q, want %q", in, got, want)
		}
	}
}
