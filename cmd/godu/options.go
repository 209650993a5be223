package main

// The options: what each sets (optionTable), and how the settings become
// du.Options (toOptions). Parsing them is getopt.go's; acting on them,
// internal/du's.

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/godu-sh/godu/internal/bulk"
	"github.com/godu-sh/godu/internal/du"
	"github.com/godu-sh/godu/internal/walk"
)

// settings is the state options build up, in command-line order, before
// they become du.Options.
type settings struct {
	o                                du.Options
	summarize, maxDepthSet, apparent bool
	timeSet, timeStyleSet            bool
	timeStyle, completion, manDir    string
	completionSet                    bool // --completion given, even empty
	maxDepth                         uint64
	progress                         int
}

// set, unit and deref make the actions of options without an argument.
func set(f func(s *settings)) func(*settings, event) error {
	return func(s *settings, _ event) error { f(s); return nil }
}

func unit(size uint64) func(*settings, event) error {
	return set(func(s *settings) { s.o.Block = du.BlockSize{Size: size} })
}

func deref(d du.Deref) func(*settings, event) error {
	return set(func(s *settings) { s.o.Deref = d })
}

// optionTable is du's options in du's order (which decides getopt's
// ambiguity messages), then godu's own.
func optionTable() []option {
	return []option{
		{long: "all", short: 'a', usage: "write counts for all files, not just directories", apply: set(func(s *settings) { s.o.All = true })},
		{long: "apparent-size", usage: "print apparent sizes rather than device usage", apply: set(func(s *settings) { s.apparent = true })},
		{long: "block-size", argName: "SIZE", short: 'B', arg: requiredArgument, usage: "scale sizes by SIZE before printing them", apply: blockSize},
		{long: "bytes", short: 'b', usage: "equivalent to '--apparent-size --block-size=1'", apply: set(func(s *settings) {
			s.apparent = true
			s.o.Block = du.BlockSize{Size: 1}
		})},
		{long: "count-links", short: 'l', usage: "count sizes many times if hard linked", apply: set(func(s *settings) { s.o.CountLinks = true })},
		{long: "dereference", short: 'L', usage: "dereference all symbolic links", apply: deref(du.DerefAll)},
		{long: "dereference-args", short: 'D', usage: "dereference only symlinks that are listed on the command line", apply: deref(du.DerefArgs)},
		{long: "exclude", argName: "PATTERN", arg: requiredArgument, usage: "exclude files that match PATTERN", apply: func(s *settings, ev event) error {
			s.o.Exclude.Add(ev.arg)
			return nil
		}},
		{long: "exclude-from", argName: "FILE", short: 'X', arg: requiredArgument, usage: "exclude files that match any pattern in FILE", apply: func(s *settings, ev event) error {
			if err := s.o.ExcludeFrom(ev.arg); err != nil {
				return &softError{du.QuoteFileName(ev.arg) + ": " + du.ErrorText(err)}
			}
			return nil
		}},
		{long: "files0-from", argName: "F", arg: requiredArgument, usage: "summarize device usage of the NUL-terminated file names specified in file F; if F is -, then read names from standard input", apply: func(s *settings, ev event) error {
			s.o.Files0From, s.o.Files0 = ev.arg, true
			return nil
		}},
		{long: "human-readable", short: 'h', usage: "print sizes in human readable format (e.g., 1K 234M 2G)", apply: set(func(s *settings) { s.o.Block, _ = du.ParseBlockSize("human-readable") })},
		{long: "inodes", usage: "list inode usage information instead of block usage", apply: set(func(s *settings) { s.o.Inodes = true })},
		{long: "si", usage: "like -h, but use powers of 1000 not 1024", apply: set(func(s *settings) { s.o.Block, _ = du.ParseBlockSize("si") })},
		{long: "max-depth", argName: "N", short: 'd', arg: requiredArgument, usage: "print the total for a directory only if it is N or fewer levels below the command line argument", apply: func(s *settings, ev event) error {
			d, ok := du.ParseMaxDepth(ev.arg)
			if !ok {
				return &softError{"invalid maximum depth " + du.QuoteWord(ev.arg)}
			}
			s.maxDepth, s.maxDepthSet = d, true
			return nil
		}},
		{long: "null", short: '0', usage: "end each output line with NUL, not newline", apply: set(func(s *settings) { s.o.NullTerminate = true })},
		{long: "no-dereference", short: 'P', usage: "don't follow any symbolic links (this is the default)", apply: deref(du.DerefNone)},
		{long: "one-file-system", short: 'x', usage: "skip directories on different file systems", apply: set(func(s *settings) { s.o.OneFileSystem = true })},
		{long: "separate-dirs", short: 'S', usage: "for directories do not include size of subdirectories", apply: set(func(s *settings) { s.o.SeparateDirs = true })},
		{long: "summarize", short: 's', usage: "display only a total for each argument", apply: set(func(s *settings) { s.summarize = true })},
		{long: "total", short: 'c', usage: "produce a grand total", apply: set(func(s *settings) { s.o.Total = true })},
		{long: "threshold", argName: "SIZE", short: 't', arg: requiredArgument, usage: "exclude entries smaller than SIZE if positive, or entries greater than SIZE if negative", apply: func(s *settings, ev event) error {
			t, e := du.ParseThreshold(ev.arg)
			if e != du.NumOK {
				return fatalErr(e.Message(ev.spelling, ev.arg))
			}
			if t == 0 && strings.HasPrefix(ev.arg, "-") {
				return fatalErr("invalid --threshold argument '-0'")
			}
			s.o.Threshold = t
			return nil
		}},
		{long: "time", argName: "WORD", arg: optionalArgument, usage: "show time of the last modification of any file in the directory, or any of its subdirectories; WORD: atime, access, use, ctime or status", apply: func(s *settings, ev event) error {
			s.timeSet = true
			s.o.Time = bulk.MTime
			if !ev.hasArg {
				return nil
			}
			m, err := du.TimeWord(ev.arg)
			if err != nil {
				return usageErr(err.Error())
			}
			s.o.Time = m
			return nil
		}},
		{long: "time-style", argName: "STYLE", arg: requiredArgument, usage: "show times using STYLE: full-iso, long-iso, iso, +FORMAT (default: long-iso)", apply: func(s *settings, ev event) error {
			s.timeStyle, s.timeStyleSet = ev.arg, true
			return nil
		}},
		{long: "help", usage: "display this help and exit"}, // both answered in parse
		{long: "version", usage: "output version information and exit"},
		{short: 'H', usage: "equivalent to --dereference-args (-D)", apply: deref(du.DerefArgs)},
		{short: 'k', usage: "like --block-size=1K", apply: unit(1024)},
		{short: 'm', usage: "like --block-size=1M", apply: unit(1 << 20)},
		{long: "json", godu: true, usage: "godu: print one JSON document (see README) instead of lines", apply: set(func(s *settings) { s.o.JSON = true })},
		{long: "ncdu-export", argName: "FILE", short: 'o', godu: true, arg: requiredArgument, usage: "godu: write the scan to FILE (- for standard output) in ncdu's export format instead of lines; browse it with ncdu -f FILE or gdu -f FILE", apply: func(s *settings, ev event) error {
			s.o.NcduExport = ev.arg
			return nil
		}},
		{long: "stats", godu: true, usage: "godu: print counts, errors, time and rate on stderr at the end", apply: set(func(s *settings) { s.o.Stats = true })},
		{long: "progress", godu: true, usage: "godu: show a progress line on stderr even when it is not a terminal", apply: set(func(s *settings) { s.progress = 1 })},
		{long: "no-progress", godu: true, usage: "godu: never show the progress line (default: shown on a terminal after half a second)", apply: set(func(s *settings) { s.progress = -1 })},
		{long: "jobs", argName: "N", short: 'j', godu: true, arg: requiredArgument, usage: fmt.Sprintf("godu: walk with at most N workers (default: %d)", walk.DefaultJobs()), apply: func(s *settings, ev event) error {
			n, err := strconv.Atoi(ev.arg)
			if err != nil {
				return usageErr("invalid number of jobs " + du.QuoteWord(ev.arg))
			}
			s.o.Jobs = n
			return nil
		}},
		{long: "completion", argName: "SHELL", godu: true, arg: requiredArgument, usage: "godu: print a completion script for SHELL (bash, zsh, fish, powershell) and exit", apply: func(s *settings, ev event) error {
			s.completion, s.completionSet = ev.arg, true
			return nil
		}},
	}
}

func blockSize(s *settings, ev event) error {
	bs, e := du.ParseBlockSize(ev.arg)
	if e != du.NumOK {
		return fatalErr(e.Message(ev.spelling, ev.arg))
	}
	s.o.Block = bs
	return nil
}

// toOptions completes s.o from what the options set, with du's checks of
// option combinations, in du's order.
func (s *settings) toOptions(prog string, operands []string, stderr io.Writer) error {
	if s.o.All && s.summarize {
		return usageErr("cannot both summarize and show all entries")
	}
	if s.summarize && s.maxDepthSet {
		if s.maxDepth != 0 {
			return usageErr(fmt.Sprintf("warning: summarizing conflicts with --max-depth=%d", s.maxDepth))
		}
		fmt.Fprintf(stderr, "%s: warning: summarizing is the same as using --max-depth=0\n", prog)
	}
	switch {
	case s.summarize:
		s.o.MaxDepth = 0
	case s.maxDepthSet:
		s.o.MaxDepth = int(min(s.maxDepth, 1<<30))
	}
	if s.o.Inodes && s.apparent {
		fmt.Fprintf(stderr, "%s: warning: options --apparent-size and -b are ineffective with --inodes\n", prog)
	}
	s.o.Apparent = s.apparent
	if s.timeSet {
		style := s.timeStyle
		if !s.timeStyleSet {
			style = du.TimeStyleEnv()
		}
		f, err := du.TimeStyle(style)
		if err != nil {
			return usageErr(err.Error())
		}
		s.o.TimeFormat = f
	}
	if s.o.Files0 && len(operands) > 0 {
		return usageErr("extra operand " + du.QuoteWord(operands[0]) + "\nfile operands cannot be combined with --files0-from")
	}
	// godu's own outputs: each replaces du's lines, so one at a time.
	if s.o.JSON && s.o.NcduExport != "" {
		return usageErr("cannot both print JSON and export in ncdu's format")
	}
	s.o.Progress = s.progress
	s.o.StderrFd = stderrFd
	return nil
}
