package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/godu-sh/godu/internal/bulk"
	"github.com/godu-sh/godu/internal/du"
	"github.com/godu-sh/godu/internal/walk"
)

const prog = "godu"

// version is set at link time by make (-X main.version=...).
var version = "devel"

// usageError is an option error: du's message, then the --help hint.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// orderedFlag is one of the options among which du lets the last win: those
// that set the output unit (-b, -h, -k, -m, --si, -B) and those that say
// which symlinks to follow (-D, -H, -L, -P). Each Set applies itself in
// command-line order.
type orderedFlag struct {
	o     *du.Options
	apply func(o *du.Options, arg string) error
	isArg bool
}

func (f *orderedFlag) String() string { return "" }
func (f *orderedFlag) Type() string {
	if f.isArg {
		return "SIZE"
	}
	return "bool"
}
func (f *orderedFlag) Set(s string) error { return f.apply(f.o, s) }

// stderrFd is the descriptor whose terminal decides the progress line.
var stderrFd = 2

// addManFlag, set in builds tagged godu_man (make man), adds the hidden
// --generate-man DIR. The man page generator stays out of the shipped
// binary: its packages cost a third of a millisecond of start-up.
var addManFlag func(*cobra.Command)

func newCommand(stdout, stderr io.Writer, status *int) *cobra.Command {
	o := du.Options{MaxDepth: -1, Prog: prog}
	var progressMode func() int
	var (
		summarize, help, showVersion bool
		maxDepth, threshold          string
		apparent                     bool
		timeWord, timeStyle          string
		excludes, excludeFrom        []string
	)
	cmd := &cobra.Command{
		Use:   prog + " [OPTION]... [FILE]...",
		Short: "Summarize device usage of the set of FILEs, recursively for directories.",
		Long: `Summarize device usage of the set of FILEs, recursively for directories,
as GNU du does, reading each directory with as few system calls as the
kernel allows and walking subdirectories in parallel.`,
		Version:       version,
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if maxDepth != "" {
				d, err := strconv.ParseInt(maxDepth, 10, 64)
				if err != nil || d < 0 {
					return &usageError{"invalid maximum depth " + du.QuoteWord(maxDepth)}
				}
				if d > 1<<30 {
					d = 1 << 30
				}
				o.MaxDepth = int(d)
			}
			if summarize {
				if o.All {
					return &usageError{"cannot both summarize and show all entries"}
				}
				if maxDepth != "" && o.MaxDepth != 0 {
					return &usageError{fmt.Sprintf("warning: summarizing conflicts with --max-depth=%d", o.MaxDepth)}
				}
				if maxDepth != "" {
					fmt.Fprintf(stderr, "%s: warning: summarizing is the same as using --max-depth=0\n", prog)
				}
				o.MaxDepth = 0
			}
			if threshold != "" {
				t, err := du.ParseThreshold(threshold)
				if err != nil {
					return &usageError{"invalid --threshold argument " + du.QuoteWord(threshold)}
				}
				o.Threshold = t
			}
			if apparent {
				o.Apparent = true
			}
			if o.Files0From != "" && len(args) > 0 {
				return &usageError{"extra operand " + du.QuoteWord(args[0]) + "\nfile operands cannot be combined with --files0-from"}
			}
			if cmd.Flags().Changed("time") {
				m, ok := timeMode(timeWord)
				if !ok {
					return &usageError{"invalid argument " + du.QuoteWord(timeWord) + " for " + du.QuoteWord("--time") +
						"\nValid arguments are:\n  - " + du.QuoteWord("atime") + ", " + du.QuoteWord("access") + ", " + du.QuoteWord("use") +
						"\n  - " + du.QuoteWord("ctime") + ", " + du.QuoteWord("status")}
				}
				o.Time = m
				f, ok := du.TimeStyle(timeStyle)
				if !ok {
					return &usageError{"invalid argument " + du.QuoteWord(timeStyle) + " for " + du.QuoteWord("time style") +
						"\nValid arguments are:\n  - " + du.QuoteWord("full-iso") + "\n  - " + du.QuoteWord("long-iso") +
						"\n  - " + du.QuoteWord("iso")}
				}
				o.TimeFormat = f
			}
			for _, p := range excludes {
				o.Exclude.Add(p)
			}
			for _, file := range excludeFrom {
				b, err := os.ReadFile(file)
				if err != nil {
					return &usageError{du.QuoteFileName(file) + ": " + du.ErrorText(err)}
				}
				for _, line := range strings.Split(string(b), "\n") {
					if line != "" {
						o.Exclude.Add(line)
					}
				}
			}
			o.Progress = progressMode()
			o.StderrFd = stderrFd
			*status = du.Run(context.Background(), o, args, stdout, stderr)
			return nil
		},
	}
	cmd.SetVersionTemplate(prog + " {{.Version}} (" + bulk.Variant + " build)\n")
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	f := cmd.Flags()
	f.SortFlags = false
	// Defined here so that cobra adds no -h (du's --human-readable) and
	// no -v; cobra itself answers both.
	f.BoolVar(&help, "help", false, "display this help and exit")
	f.BoolVar(&showVersion, "version", false, "output version information and exit")
	f.BoolVarP(&o.NullTerminate, "null", "0", false, "end each output line with NUL, not newline")
	f.BoolVarP(&o.All, "all", "a", false, "write counts for all files, not just directories")
	f.BoolVar(&apparent, "apparent-size", false, "print apparent sizes rather than device usage")
	ordered := func(name, short, usage string, isArg bool, apply func(o *du.Options, arg string) error) {
		fl := f.VarPF(&orderedFlag{o: &o, apply: apply, isArg: isArg}, name, short, usage)
		if !isArg {
			fl.NoOptDefVal = "true"
		}
	}
	deref := func(name, short, usage string, d du.Deref) {
		ordered(name, short, usage, false, func(o *du.Options, _ string) error {
			o.Deref = d
			return nil
		})
	}
	ordered("block-size", "B", "scale sizes by SIZE before printing them", true, func(o *du.Options, arg string) error {
		bs, err := du.ParseBlockSize(arg)
		if err != nil {
			return &blockSizeError{arg: arg, err: err, long: lastBlockSizeLong}
		}
		o.Block = bs
		return nil
	})
	ordered("bytes", "b", "equivalent to '--apparent-size --block-size=1'", false, func(o *du.Options, _ string) error {
		o.Apparent = true
		o.Block = du.BlockSize{Size: 1}
		return nil
	})
	f.BoolVarP(&o.Total, "total", "c", false, "produce a grand total")
	deref("dereference-args", "D", "dereference only symlinks that are listed on the command line", du.DerefArgs)
	f.StringVarP(&maxDepth, "max-depth", "d", "", "print the total for a directory only if it is N or fewer levels below the command line argument")
	deref("H", "H", "equivalent to --dereference-args (-D)", du.DerefArgs)
	f.BoolVar(&o.Inodes, "inodes", false, "list inode usage information instead of block usage")
	ordered("human-readable", "h", "print sizes in human readable format (e.g., 1K 234M 2G)", false, func(o *du.Options, _ string) error {
		o.Block, _ = du.ParseBlockSize("human-readable")
		return nil
	})
	ordered("kibibytes", "k", "like --block-size=1K", false, func(o *du.Options, _ string) error {
		o.Block = du.BlockSize{Size: 1024}
		return nil
	})
	deref("dereference", "L", "dereference all symbolic links", du.DerefAll)
	f.BoolVarP(&o.CountLinks, "count-links", "l", false, "count sizes many times if hard linked")
	ordered("megabytes", "m", "like --block-size=1M", false, func(o *du.Options, _ string) error {
		o.Block = du.BlockSize{Size: 1 << 20}
		return nil
	})
	deref("no-dereference", "P", "don't follow any symbolic links (this is the default)", du.DerefNone)
	ordered("si", "", "like -h, but use powers of 1000 not 1024", false, func(o *du.Options, _ string) error {
		o.Block, _ = du.ParseBlockSize("si")
		return nil
	})
	f.BoolVarP(&summarize, "summarize", "s", false, "display only a total for each argument")
	f.StringVarP(&threshold, "threshold", "t", "", "exclude entries smaller than SIZE if positive, or entries greater than SIZE if negative")
	f.BoolVarP(&o.OneFileSystem, "one-file-system", "x", false, "skip directories on different file systems")
	f.BoolVarP(&o.SeparateDirs, "separate-dirs", "S", false, "for directories do not include size of subdirectories")
	f.StringVar(&timeWord, "time", "", "show time of the last modification of any file in the directory, or any of its subdirectories; WORD: atime, access, use, ctime or status")
	f.Lookup("time").NoOptDefVal = "mtime"
	f.StringVar(&timeStyle, "time-style", "", "show times using STYLE: full-iso, long-iso, iso, +FORMAT (default: long-iso)")
	f.StringArrayVar(&excludes, "exclude", nil, "exclude files that match PATTERN")
	f.StringArrayVarP(&excludeFrom, "exclude-from", "X", nil, "exclude files that match any pattern in FILE")
	f.BoolVar(&o.JSON, "json", false, "godu: print one JSON document (see README) instead of lines")
	f.StringVarP(&o.NcduExport, "ncdu-export", "o", "", "godu: write the scan to FILE (- for standard output) in ncdu's export format instead of lines; browse it with ncdu -f FILE or gdu -f FILE")
	o.Version = version
	f.BoolVar(&o.Stats, "stats", false, "godu: print counts, errors, time and rate on stderr at the end")
	var progress, noProgress bool
	f.BoolVar(&progress, "progress", false, "godu: show a progress line on stderr even when it is not a terminal")
	f.BoolVar(&noProgress, "no-progress", false, "godu: never show the progress line (default: shown on a terminal after half a second)")
	progressMode = func() int {
		switch {
		case noProgress:
			return -1
		case progress:
			return 1
		}
		return 0
	}
	f.StringVar(&o.Files0From, "files0-from", "", "summarize device usage of the NUL-terminated file names specified in file F; if F is -, then read names from standard input")
	f.IntVarP(&o.Jobs, "jobs", "j", 0, fmt.Sprintf("walk with at most N workers (default: %d)", walk.DefaultJobs()))
	f.Lookup("H").Hidden = true
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return flagError(err) })
	if addManFlag != nil {
		addManFlag(cmd)
	}
	cmd.AddCommand(completionCommand(stdout))
	cmd.CompletionOptions.DisableDefaultCmd = true
	return cmd
}

// blockSizeError is a bad --block-size argument.
type blockSizeError struct {
	arg  string
	err  error
	long bool // given as --block-size, not -B
}

func (e *blockSizeError) Error() string { return e.err.Error() }

// flagError turns pflag's messages into getopt's.
func flagError(err error) error {
	var bse *blockSizeError
	if errors.As(err, &bse) {
		return &fatalError{blockSizeMessage(bse)}
	}
	msg := err.Error()
	switch {
	case strings.HasPrefix(msg, "unknown flag: "):
		return &usageError{"unrecognized option '" + strings.TrimPrefix(msg, "unknown flag: ") + "'"}
	case strings.HasPrefix(msg, "unknown shorthand flag: "):
		var c string
		fmt.Sscanf(strings.TrimPrefix(msg, "unknown shorthand flag: "), "'%1s'", &c)
		return &usageError{"invalid option -- '" + c + "'"}
	case strings.HasPrefix(msg, "flag needs an argument: --"):
		return &usageError{"option '" + strings.TrimPrefix(msg, "flag needs an argument: ") + "' requires an argument"}
	case strings.HasPrefix(msg, "flag needs an argument: '"):
		var c string
		fmt.Sscanf(strings.TrimPrefix(msg, "flag needs an argument: "), "'%1s'", &c)
		return &usageError{"option requires an argument -- '" + c + "'"}
	case strings.HasPrefix(msg, "invalid argument"):
		if strings.Contains(msg, "--jobs") {
			return &usageError{"invalid number of jobs"}
		}
	}
	return &usageError{msg}
}

func blockSizeMessage(e *blockSizeError) string {
	opt := "-B"
	if e.long {
		opt = "--block-size"
	}
	switch e.err {
	case du.ErrInvalidSuffix:
		return fmt.Sprintf("invalid suffix in %s argument '%s'", opt, e.arg)
	case du.ErrTooLarge:
		return fmt.Sprintf("%s argument '%s' too large", opt, e.arg)
	}
	return fmt.Sprintf("invalid %s argument '%s'", opt, e.arg)
}

// fatalError is an error du reports without the --help hint.
type fatalError struct{ msg string }

func (e *fatalError) Error() string { return e.msg }

// lastBlockSizeLong says whether the last block-size option on the command
// line was spelled long; pflag does not tell, and du's message does.
var lastBlockSizeLong bool

func run(args []string, stdout, stderr io.Writer) int {
	status := 0
	for _, a := range args {
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "--bl") {
			lastBlockSizeLong = true
		} else if len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a, 'B') {
			lastBlockSizeLong = false
		}
	}
	cmd := newCommand(stdout, stderr, &status)
	args, err := expandLongOptions(cmd.Flags(), args)
	if err == nil {
		cmd.SetArgs(args)
		err = cmd.Execute()
	}
	var ue *usageError
	var fe *fatalError
	switch {
	case err == nil:
		return status
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "%s: %s\nTry '%s --help' for more information.\n", prog, ue.msg, prog)
	case errors.As(err, &fe):
		fmt.Fprintf(stderr, "%s: %s\n", prog, fe.msg)
	default:
		fmt.Fprintf(stderr, "%s: %s\n", prog, err)
	}
	return 1
}

// expandLongOptions completes unambiguous abbreviations of long options
// (--max=1, --app), as getopt_long does and pflag does not.
func expandLongOptions(fs *pflag.FlagSet, args []string) ([]string, error) {
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...), nil
		}
		if !strings.HasPrefix(a, "--") {
			out = append(out, a)
			continue
		}
		name, val, hasVal := strings.Cut(a[2:], "=")
		if fs.Lookup(name) != nil {
			out = append(out, a)
			continue
		}
		var matches []string
		fs.VisitAll(func(f *pflag.Flag) {
			if strings.HasPrefix(f.Name, name) && len(f.Name) > 1 {
				matches = append(matches, f.Name)
			}
		})
		switch len(matches) {
		case 0:
			out = append(out, a) // pflag reports it
		case 1:
			if hasVal {
				out = append(out, "--"+matches[0]+"="+val)
			} else {
				out = append(out, "--"+matches[0])
			}
		default:
			var b strings.Builder
			fmt.Fprintf(&b, "option '--%s' is ambiguous; possibilities:", name)
			for _, m := range matches {
				fmt.Fprintf(&b, " '--%s'", m)
			}
			return nil, &usageError{b.String()}
		}
	}
	return out, nil
}

// timeMode maps a --time argument to the time it shows: du's words, or an
// unambiguous abbreviation of them.
func timeMode(word string) (bulk.Mode, bool) {
	words := map[string]bulk.Mode{"mtime": bulk.MTime, "atime": bulk.ATime, "access": bulk.ATime, "use": bulk.ATime,
		"ctime": bulk.CTime, "status": bulk.CTime}
	if m, ok := words[word]; ok {
		return m, true
	}
	var found bulk.Mode
	for w, m := range words {
		if word != "" && strings.HasPrefix(w, word) {
			if found != 0 && found != m {
				return 0, false
			}
			found = m
		}
	}
	return found, found != 0
}

// completionCommand is "godu completion SHELL": a completion script from
// cobra. (A directory named "completion" must be given as ./completion.)
func completionCommand(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:       "completion bash|zsh|fish|powershell",
		Short:     "Print a shell completion script for godu",
		Args:      cobra.ExactArgs(1),
		ValidArgs: []string{"bash", "zsh", "fish", "powershell"},
		RunE: func(c *cobra.Command, args []string) error {
			root := c.Root()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(stdout, true)
			case "zsh":
				return root.GenZshCompletion(stdout)
			case "fish":
				return root.GenFishCompletion(stdout, true)
			case "powershell":
				return root.GenPowerShellCompletionWithDesc(stdout)
			}
			return &usageError{"unknown shell " + du.QuoteWord(args[0]) + " (bash, zsh, fish, powershell)"}
		},
	}
}
