package main

// The command: its exits and messages (exitError), run, and parse, which
// reads the command line in order into settings (options.go) and answers
// --help, --version and --completion at their place, as du would.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/godu-sh/godu/internal/bulk"
	"github.com/godu-sh/godu/internal/du"
)

const prog = "godu"

// version is set at link time by make (-X main.version=...).
var version = "devel"

// exitError ends the run at once with status: after printing msg (if any)
// as "PROG: msg", and du's "Try ... --help" line when try is set.
type exitError struct {
	msg    string
	try    bool
	status int
}

func (e *exitError) Error() string { return e.msg }

func usageErr(msg string) error { return &exitError{msg: msg, try: true, status: 1} }
func fatalErr(msg string) error { return &exitError{msg: msg, status: 1} }

// softError is a message du prints for an option and goes on parsing, to
// fail with the Try line once all options are read.
type softError struct{ msg string }

func (e *softError) Error() string { return e.msg }

// recordingWriter keeps the first error of the writes through it.
type recordingWriter struct {
	w   io.Writer
	err error
}

func (r *recordingWriter) Write(p []byte) (int, error) {
	n, err := r.w.Write(p)
	if err != nil && r.err == nil {
		r.err = err
	}
	return n, err
}

// stderrFd is the descriptor whose terminal decides the progress line.
var stderrFd = 2

// manOption and genMan, set in builds tagged godu_man (make man), are the
// hidden --generate-man DIR and what it does. The man page generator, like
// everything of cobra's, stays out of the shipped binary: its packages
// cost a third of a millisecond of start-up.
var (
	manOption *option
	genMan    func(prog string, table []option, dir string) error
)

func run(args []string, stdout, stderr io.Writer) int {
	prog := os.Args[0]
	// A message that could not be written fails the command, as du's
	// check of its standard error at exit does: a warning or an error
	// before --help, written to a closed descriptor or a full device,
	// turns status 0 into 1.
	errs := &recordingWriter{w: stderr}
	stderr = errs
	if len(args) > 0 && args[0] == completionRequest {
		return answerCompletion(optionTable(), args[1:], stdout, stderr)
	}
	out := &recordingWriter{w: stdout}
	s, operands, err := parse(prog, args, out, stderr)
	code := report(prog, s, operands, err, stdout, out, stderr)
	if code == 0 && errs.err != nil {
		return 1
	}
	return code
}

// report ends run: the status of a command line parse refused or
// answered (--help, --version), or of the walk.
func report(prog string, s *settings, operands []string, err error, stdout io.Writer, out *recordingWriter, stderr io.Writer) int {
	if err != nil {
		e := err.(*exitError)
		if e.msg != "" {
			fmt.Fprintf(stderr, "%s: %s\n", prog, e.msg)
		}
		if e.try {
			fmt.Fprintf(stderr, "Try '%s --help' for more information.\n", prog)
		}
		if e.status == 0 && out.err != nil { // --help, --version: du checks the close of its output
			fmt.Fprintf(stderr, "%s: write error: %s\n", prog, du.ErrorText(out.err))
			return 1
		}
		return e.status
	}
	deferFirstGC(s.o)
	return du.Run(context.Background(), s.o, operands, stdout, stderr)
}

// parse turns the command line into settings, printing du's messages and
// acting on --help, --version and --completion as du would at their place.
func parse(prog string, args []string, stdout, stderr io.Writer) (*settings, []string, error) {
	table := optionTable()
	if manOption != nil {
		table = append(table, *manOption)
	}
	s := &settings{o: du.Options{MaxDepth: -1, Prog: prog, Block: du.DefaultBlockSize(), Version: version, Stdin: stdin}}
	events, operands := getopt(table, args)
	ok := true
	for _, ev := range events {
		if ev.err != "" {
			fmt.Fprintf(stderr, "%s: %s\n", prog, ev.err)
			ok = false
			continue
		}
		switch ev.opt.long {
		case "help":
			printHelp(stdout, prog, table)
			return nil, nil, &exitError{}
		case "version":
			fmt.Fprintf(stdout, "godu %s (%s build)\n", version, bulk.Variant)
			return nil, nil, &exitError{}
		}
		if err := ev.opt.apply(s, ev); err != nil {
			var soft *softError
			if errors.As(err, &soft) {
				fmt.Fprintf(stderr, "%s: %s\n", prog, soft.msg)
				ok = false
				continue
			}
			return nil, nil, err
		}
		if s.completionSet || s.manDir != "" {
			return nil, nil, extraOutput(s, prog, table, stdout, stderr)
		}
	}
	if !ok {
		return nil, nil, &exitError{try: true, status: 1}
	}
	return s, operands, s.toOptions(prog, operands, stderr)
}

// extraOutput prints what --completion (or, in man builds, --generate-man)
// asks for instead of summing.
func extraOutput(s *settings, prog string, table []option, stdout, stderr io.Writer) error {
	if s.manDir != "" {
		if err := genMan(prog, table, s.manDir); err != nil {
			return fatalErr(err.Error())
		}
		return &exitError{}
	}
	if err := completionScript(s.completion, stdout); err != nil {
		return err
	}
	return &exitError{}
}
