package walk

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestPrivateTempNoPlantedName: whoever shares $TMPDIR learns each name
// the spill file was made at (inotify here) and plants, at that name, a
// symlink to a file of the user's. Neither way of making the spill file
// ever opens what lies at a name already taken: no name comes back, the
// file made is never the victim, and the victim is left as it was.
func TestPrivateTempNoPlantedName(t *testing.T) {
	for name, open := range map[string]func(string) (*os.File, error){"openPrivateTemp": openPrivateTemp, "createUnlinked": createUnlinked} {
		dir := t.TempDir()
		victim := filepath.Join(t.TempDir(), "victim")
		if err := os.WriteFile(victim, []byte("precious"), 0o600); err != nil {
			t.Fatal(err)
		}
		var vst unix.Stat_t
		if err := unix.Stat(victim, &vst); err != nil {
			t.Fatal(err)
		}
		in, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
		if err != nil {
			t.Skip("inotify:", err)
		}
		if _, err := unix.InotifyAddWatch(in, dir, unix.IN_CREATE); err != nil {
			unix.Close(in)
			t.Skip("inotify:", err)
		}
		used := map[string]bool{}
		for i := 0; i < 8; i++ {
			f, err := open(dir)
			if err != nil {
				t.Fatalf("%s, call %d: %v", name, i, err)
			}
			var st unix.Stat_t
			if err := unix.Fstat(int(f.Fd()), &st); err != nil {
				t.Fatal(err)
			}
			f.WriteAt([]byte("spilled"), 0)
			f.Close()
			if st.Dev == vst.Dev && st.Ino == vst.Ino {
				t.Fatalf("%s, call %d: opened the victim through a planted symlink", name, i)
			}
			if b, _ := os.ReadFile(victim); !bytes.Equal(b, []byte("precious")) {
				t.Fatalf("%s, call %d: the victim now holds %q", name, i, b)
			}
			for _, n := range createdNames(t, in) {
				if used[n] {
					t.Fatalf("%s, call %d: made at %q again", name, i, n)
				}
				used[n] = true
				os.Symlink(victim, filepath.Join(dir, n)) // the plant
			}
			createdNames(t, in) // the plants' own events
		}
		unix.Close(in)
		if name == "createUnlinked" && len(used) != 8 {
			t.Fatalf("createUnlinked: inotify saw %d names for 8 files: the plants prove nothing", len(used))
		}
	}
}

// createdNames reads the names of the IN_CREATE events waiting on in.
func createdNames(t *testing.T, in int) []string {
	var names []string
	buf := make([]byte, 64<<10)
	for {
		n, err := unix.Read(in, buf)
		if err == unix.EAGAIN {
			return names
		}
		if err != nil {
			t.Fatal(err)
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			if ev.Mask&unix.IN_CREATE != 0 && len(name) > 0 {
				names = append(names, string(name))
			}
			off += unix.SizeofInotifyEvent + int(ev.Len)
		}
	}
}
