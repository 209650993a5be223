//go:build unix

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// waiting is a program run under sh (sh's traps first), waiting on its
// standard input.
type waiting struct {
	name   string
	cmd    *exec.Cmd
	in     io.WriteCloser
	stderr bytes.Buffer
	status syscall.WaitStatus
}

func startWaiting(t *testing.T, traps, name string, args ...string) *waiting {
	t.Helper()
	w := &waiting{name: name, cmd: exec.Command("sh", append([]string{"-c", traps + `exec "$0" "$@"`, name}, args...)...)}
	var err error
	if w.in, err = w.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	w.cmd.Stderr = &w.stderr
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return w
}

// reading reports whether a thread of process pid is blocked reading
// descriptor 0 (Linux: /proc/PID/task/*/syscall), and whether that can
// be told here.
func reading(pid int) (yes, known bool) {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/syscall", pid))
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		known = true
		if strings.HasPrefix(string(b), "0 0x0 ") { // read(0, ...)
			return true, true
		}
	}
	return false, known
}

// signalAll sends each run its signal once it reads its input (godu has
// then set its signals up; where that cannot be seen, after 300 ms), then
// closes their input, and waits for them all.
func signalAll(t *testing.T, runs []*waiting, sigs []syscall.Signal) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for i, w := range runs {
		for {
			yes, known := reading(w.cmd.Process.Pid)
			if !known {
				time.Sleep(300 * time.Millisecond)
				break
			}
			if yes {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: not reading its input after 20 s", w.name)
			}
			time.Sleep(5 * time.Millisecond)
		}
		w.cmd.Process.Signal(sigs[i])
	}
	time.Sleep(100 * time.Millisecond)
	for _, w := range runs {
		w.in.Close()
	}
	for i, w := range runs {
		done := make(chan error, 1)
		go func() { done <- w.cmd.Wait() }()
		var err error
		select {
		case err = <-done:
		case <-time.After(20 * time.Second):
			w.cmd.Process.Kill()
			t.Fatalf("%s: still running 20 s after %v", w.name, sigs[i])
		}
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		w.status = w.cmd.ProcessState.Sys().(syscall.WaitStatus)
	}
}

// TestSignalsAsDu: each signal that ends du ends godu as it ends du, by
// the signal and without a word (the Go runtime would print a goroutine
// dump and exit 2 on SIGQUIT, and catch and drop SIGUSR1, SIGALRM,
// SIGXCPU, ...); and one ignored at exec (a background job's SIGQUIT, a
// trap ” in a script) is ignored, as by du. (A build without cgo cannot
// tell which were ignored at exec: README, Differences.)
func TestSignalsAsDu(t *testing.T) {
	needDu(t)
	sigs := []syscall.Signal{syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGQUIT, syscall.SIGALRM, syscall.SIGXCPU,
		syscall.SIGABRT, syscall.SIGPIPE, syscall.SIGVTALRM, syscall.SIGTERM, syscall.SIGHUP}
	var runs []*waiting
	var sent []syscall.Signal
	for _, sig := range sigs {
		runs = append(runs, startWaiting(t, "", "du", "--files0-from=-"), startWaiting(t, "", godu, "--files0-from=-"))
		sent = append(sent, sig, sig)
	}
	signalAll(t, runs, sent)
	for i := 0; i < len(runs); i += 2 {
		sig, want, got := sent[i], runs[i].status, runs[i+1].status
		if !want.Signaled() || want.Signal() != sig {
			t.Fatalf("du after %v: %v: not ended by it", sig, want)
		}
		if !got.Signaled() || got.Signal() != sig || runs[i+1].stderr.Len() != 0 {
			t.Errorf("godu after %v: status %v (exited %v, code %d), stderr %q; du was ended by it, silently",
				sig, got, got.Exited(), got.ExitStatus(), runs[i+1].stderr.String())
		}
	}
	out, _ := exec.Command(godu, "--version").Output()
	if !strings.Contains(string(out), "cgo") {
		t.Skip("a build without cgo cannot see the signals ignored at exec")
	}
	runs, sent = nil, nil
	for _, sig := range []syscall.Signal{syscall.SIGUSR1, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGALRM} {
		traps := "trap '' " + sigName(sig) + "; "
		runs = append(runs, startWaiting(t, traps, "du", "--files0-from=-"), startWaiting(t, traps, godu, "--files0-from=-"))
		sent = append(sent, sig, sig)
	}
	signalAll(t, runs, sent)
	for i := 0; i < len(runs); i += 2 {
		want, got := runs[i], runs[i+1]
		if got.status != want.status || strings.ReplaceAll(got.stderr.String(), godu, "du") != want.stderr.String() {
			t.Errorf("%v ignored at exec: godu %v %q, du %v %q", sent[i], got.status, got.stderr.String(), want.status, want.stderr.String())
		}
	}
}

func sigName(sig syscall.Signal) string {
	return map[syscall.Signal]string{syscall.SIGUSR1: "USR1", syscall.SIGQUIT: "QUIT",
		syscall.SIGTERM: "TERM", syscall.SIGALRM: "ALRM"}[sig]
}
