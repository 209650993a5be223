package bulk

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestSampleSleep: a timed call that sleeps counts its sleep; one that
// keeps its CPU counts none; an untimed call counts nothing, and a call
// is timed once per Sample.
func TestSampleSleep(t *testing.T) {
	// On one thread: a goroutine preempted while it spins may resume on
	// another, and the call is then not counted.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r := NewReader()
	var w Waits
	r.Sample(&w)
	r.timed(func() { unix.Nanosleep(&unix.Timespec{Nsec: 20e6}, nil) })
	took, slept := w.Took.Load(), w.Slept.Load()
	if took < 20e6 || slept < 15e6 {
		t.Errorf("sleeping 20 ms: took %v, slept %v; want both about 20 ms", time.Duration(took), time.Duration(slept))
	}
	r.timed(func() { unix.Nanosleep(&unix.Timespec{Nsec: 1e6}, nil) }) // not sampled
	if w.Took.Load() != took || w.Slept.Load() != slept {
		t.Errorf("an unsampled call was timed")
	}
	// Spinning 5 ms, just after a reschedule: the runtime preempts a
	// goroutine only after 10 ms, and its preempting the goroutine of a
	// locked thread is a voluntary switch of the thread. The system's
	// preempting the thread (a CPU shared with others) is not. Three
	// tries: one may meet a collection.
	var tries []string
	for try := 0; try < 3; try++ {
		var busy Waits
		runtime.Gosched()
		r.Sample(&busy)
		r.timed(func() {
			for start := time.Now(); time.Since(start) < 5*time.Millisecond; {
			}
		})
		took, slept := busy.Took.Load(), busy.Slept.Load()
		if took >= 5e6 && slept <= took/4 {
			return
		}
		tries = append(tries, fmt.Sprintf("took %v, slept %v", time.Duration(took), time.Duration(slept)))
	}
	t.Errorf("spinning 5 ms, three times: %v; want about 5 ms, and little slept", tries)
}

// TestSampleCalls: Read, Stat and Tree each time the call that follows
// Sample.
func TestSampleCalls(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"a/b", "c"} {
		if err := os.MkdirAll(filepath.Join(dir, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "f"), make([]byte, 100), 0o644)
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		t.Fatal(err)
	}
	runtime.LockOSThread() // a call that ends on another thread is not timed
	defer runtime.UnlockOSThread()
	r := NewReader()
	var d Dir
	d.Open(unix.AT_FDCWD, dir, NamesOnly, uint64(st.Dev))
	defer d.Close()
	var w Waits
	timed := func(what string, f func()) {
		before := w.Took.Load()
		r.Sample(&w)
		f()
		if w.Took.Load() == before {
			t.Errorf("%s: not timed", what)
		}
		if r.waits != nil {
			t.Errorf("%s: the next call would be timed too", what)
		}
	}
	var b Batch
	timed("Read", func() {
		var err error
		if b, err = r.Read(&d); err != nil || len(b.Records) != 3 {
			t.Fatalf("read: %v, %d records", err, len(b.Records))
		}
	})
	timed("Stat", func() { b = r.Stat(d.Fd(), uint64(st.Dev), b, 0) })
	if !CanTree {
		return
	}
	r.TreeStart()
	for i := range b.Records {
		if rec := &b.Records[i]; rec.Type == Directory {
			r.TreeAdd(rec, b.Name(rec))
		}
	}
	timed("Tree", func() { r.Tree(d.Fd(), uint64(st.Dev), nil, 1<<20, 0, nil) })
}

// TestTuneProcessAddsP: the command's process gets one P more than the
// runtime chose (unless GOMAXPROCS is set), not at TuneProcess but at the
// first SpareP, and at no later one; CPUs is the runtime's choice
// throughout; TuneProcess again changes nothing.
func TestTuneProcessAddsP(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	untuned := func() {
		runtime.GOMAXPROCS(before)
		tuneOnce, _ = sync.Once{}, tunedCPUs.Swap(0)
		spared.Store(false)
	}
	untuned() // (a test run again, or another that tuned)
	defer untuned()
	keepSched(t)
	if SpareP() {
		t.Errorf("SpareP before TuneProcess added a P")
	}
	TuneProcess()
	TuneProcess()
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Errorf("GOMAXPROCS %d after TuneProcess, want %d until SpareP", got, before)
	}
	set := os.Getenv("GOMAXPROCS") != ""
	if got := SpareP(); got == set {
		t.Errorf("SpareP = %v with GOMAXPROCS %q", got, os.Getenv("GOMAXPROCS"))
	}
	want := before + 1
	if set {
		want = before
	}
	for i := 0; i < 2; i++ {
		if got := runtime.GOMAXPROCS(0); got != want {
			t.Errorf("GOMAXPROCS %d after SpareP %d times, want %d", got, i+1, want)
		}
		if got := CPUs(); got != before {
			t.Errorf("CPUs %d, want %d", got, before)
		}
		if SpareP() {
			t.Errorf("SpareP added a P a second time")
		}
	}
}
