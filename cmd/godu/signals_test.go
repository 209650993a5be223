//go:build unix

package main

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ended runs name with args under sh (sh's traps first, "" for none),
// waiting on standard input, sends it sig, then closes its input, and
// returns how it ended and its standard error.
func ended(t *testing.T, traps, name string, sig syscall.Signal, args ...string) (syscall.WaitStatus, string) {
	t.Helper()
	cmd := exec.Command("sh", append([]string{"-c", traps + `exec "$0" "$@"`, name}, args...)...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // exec'd, reading its input
	cmd.Process.Signal(sig)
	time.Sleep(100 * time.Millisecond)
	in.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("%s %v: still running 20 s after %v", name, args, sig)
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cmd.ProcessState.Sys().(syscall.WaitStatus), stderr.String()
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
	for _, sig := range sigs {
		want, _ := ended(t, "", "du", sig, "--files0-from=-")
		got, stderr := ended(t, "", godu, sig, "--files0-from=-")
		if !want.Signaled() || want.Signal() != sig {
			t.Fatalf("du after %v: %v: not ended by it", sig, want)
		}
		if !got.Signaled() || got.Signal() != sig || stderr != "" {
			t.Errorf("godu after %v: status %v (exited %v, code %d), stderr %q; du was ended by it, silently",
				sig, got, got.Exited(), got.ExitStatus(), stderr)
		}
	}
	out, _ := exec.Command(godu, "--version").Output()
	if !strings.Contains(string(out), "cgo") {
		t.Skip("a build without cgo cannot see the signals ignored at exec")
	}
	for _, sig := range []syscall.Signal{syscall.SIGUSR1, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGALRM} {
		traps := "trap '' " + strings.TrimPrefix(sigName(sig), "SIG") + "; "
		want, wantErr := ended(t, traps, "du", sig, "--files0-from=-")
		got, stderr := ended(t, traps, godu, sig, "--files0-from=-")
		if got != want || strings.ReplaceAll(stderr, godu, "du") != wantErr {
			t.Errorf("%v ignored at exec: godu %v %q, du %v %q", sig, got, stderr, want, wantErr)
		}
	}
}

func sigName(sig syscall.Signal) string {
	return map[syscall.Signal]string{syscall.SIGUSR1: "USR1", syscall.SIGQUIT: "QUIT",
		syscall.SIGTERM: "TERM", syscall.SIGALRM: "ALRM"}[sig]
}
