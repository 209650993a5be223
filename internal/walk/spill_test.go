//go:build unix

package walk

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// Both ways of making the spill file leave no name in the directory and
// give a file only its owner may read, which works.
func TestPrivateTemp(t *testing.T) {
	for name, open := range map[string]func(string) (*os.File, error){"openPrivateTemp": openPrivateTemp, "createUnlinked": createUnlinked} {
		dir := t.TempDir()
		f, err := open(dir)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var st unix.Stat_t
		if err := unix.Fstat(int(f.Fd()), &st); err != nil {
			t.Fatal(err)
		}
		if st.Mode&0o777 != 0o600 || st.Nlink != 0 {
			t.Errorf("%s: mode %o, %d links; want 600, 0", name, st.Mode&0o777, st.Nlink)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("%s: %d names left in the directory", name, len(ents))
		}
		sf := spillFile{f: f}
		off, err := sf.write([]byte("abc"))
		if err != nil || off != 0 {
			t.Fatalf("%s: write: %d, %v", name, off, err)
		}
		if off, err = sf.write([]byte("de")); err != nil || off != 3 {
			t.Fatalf("%s: second write at %d, %v", name, off, err)
		}
		b := make([]byte, 5)
		if _, err := f.ReadAt(b, 0); err != nil || string(b) != "abcde" {
			t.Fatalf("%s: read back %q, %v", name, b, err)
		}
		sf.close()
	}
}
