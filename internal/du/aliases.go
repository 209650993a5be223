package du

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// aliasedOperands reports whether something below the operands may be
// reached by a path other than its hard links: a mount point lies below
// one of them (a bind mount shows a file or directory a second time), or
// one is in /proc, where each task's directory shows its process's files
// again. With several operands du remembers every file and directory it
// meets, whatever its links, and counts each once; godu remembers those
// with several links, and the rest only where they may come again (a
// later file operand; here, walk.Options.Aliased). Where the mounts are
// not known (no /proc/self/mountinfo), none is assumed.
func aliasedOperands(args []string) bool {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return false
	}
	type mount struct{ dir, fstype string }
	var mounts []mount
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		sep := -1
		for i, w := range f {
			if w == "-" && i >= 6 {
				sep = i
				break
			}
		}
		if sep < 0 || sep+1 >= len(f) {
			continue
		}
		mounts = append(mounts, mount{unescapeMount(f[4]), f[sep+1]})
	}
	for _, a := range args {
		p, err := filepath.Abs(a)
		if err != nil {
			continue
		}
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		for _, m := range mounts {
			if m.dir != p && (p == "/" || strings.HasPrefix(m.dir, p+"/")) {
				return true // a mount point below the operand
			}
			if m.fstype == "proc" && (p == m.dir || strings.HasPrefix(p, m.dir+"/")) {
				return true
			}
		}
	}
	return false
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
