// Package cobracmd builds the cobra command that mirrors godu's option
// table, for what is made at build time from it: the man page (make man)
// and the shell completion scripts (make completions), which godu embeds.
// The godu binary never imports it: cobra's packages and those they bring
// in (net, text/template, regexp and the Unicode tables) cost every start
// of godu about a tenth of its time on an empty directory.
package cobracmd

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// Argument kinds of an option, as Options reports them.
const (
	NoArgument = iota
	RequiredArgument
	OptionalArgument
)

// Options reports each option of the table, in order: its long name (""
// for none), short letter (0 for none), argument kind, usage and whether
// the help leaves it out. It is written with built-in types only, so that
// the command's option table can describe itself without importing this
// package.
type Options func(yield func(long string, short byte, arg int, usage string, hidden bool))

// Request is the word godu's completion scripts run it with to ask for
// candidates, in place of cobra's request command, which as a word would
// be a file operand to godu as to du.
const Request = "--completion-request"

// Command returns the command described by opts: usage line use, short and
// long descriptions, help printed by help. It parses nothing: godu's own
// parser reads command lines.
func Command(use, short, long string, opts Options, help func(), stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:           use,
		Short:         short,
		Long:          long,
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          cobra.ArbitraryArgs,
		Run:           func(*cobra.Command, []string) {},
	}
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	cmd.CompletionOptions.DisableDefaultCmd = true
	f := cmd.Flags()
	f.SortFlags = false
	opts(func(long string, short byte, arg int, usage string, hidden bool) {
		name, letter := long, ""
		if short != 0 {
			letter = string(short)
		}
		if name == "" {
			name = "-" + letter // never offered: short options complete as themselves
		}
		if arg == NoArgument {
			f.BoolP(name, letter, false, usage)
		} else {
			f.StringP(name, letter, "", usage)
			if arg == OptionalArgument {
				f.Lookup(name).NoOptDefVal = " "
			}
		}
		f.Lookup(name).Hidden = hidden || long == ""
	})
	cmd.SetHelpFunc(func(*cobra.Command, []string) { help() })
	return cmd
}

// Shells are the shells a script is made for, each with the extension of
// its file.
var Shells = []struct{ Name, Ext string }{
	{"bash", "bash"}, {"zsh", "zsh"}, {"fish", "fish"}, {"powershell", "ps1"},
}

// Script returns cobra's completion script for shell, made to ask for
// candidates with Request.
func Script(cmd *cobra.Command, shell string) (string, error) {
	var b strings.Builder
	var err error
	switch shell {
	case "bash":
		err = cmd.GenBashCompletionV2(&b, true)
	case "zsh":
		err = cmd.GenZshCompletion(&b)
	case "fish":
		err = cmd.GenFishCompletion(&b, true)
	case "powershell":
		err = cmd.GenPowerShellCompletionWithDesc(&b)
	default:
		return "", fmt.Errorf("no completion script for %s", shell)
	}
	if err != nil {
		return "", err
	}
	return strings.NewReplacer(" "+cobra.ShellCompRequestCmd+" ", " "+Request+" ",
		" "+cobra.ShellCompNoDescRequestCmd+" ", " "+Request+" ").Replace(b.String()), nil
}

// Answer runs cobra's answer to a completion request for words (the
// words before the cursor's, then the cursor's), as the godu binary
// answered before it left cobra out: what godu's own answer is tested
// against.
func Answer(cmd *cobra.Command, words []string) error {
	cmd.SetArgs(append([]string{cobra.ShellCompRequestCmd}, words...))
	return cmd.Execute()
}
