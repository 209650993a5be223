package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// helpCommand is a cobra command mirroring the option table, used only to
// print help, completion scripts and candidates, and the man page: the
// command line itself is parsed by getopt.
func helpCommand(prog string, table []option, stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:           "godu [OPTION]... [FILE]...",
		Short:         "Summarize device usage of the set of FILEs, recursively for directories.",
		Long:          description + shortOnly(table),
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
	for _, o := range table {
		name, short := o.long, ""
		if o.short != 0 {
			short = string(o.short)
		}
		if name == "" {
			name = "-" + short // never offered: short options complete as themselves
		}
		if o.arg == noArgument {
			f.BoolP(name, short, false, o.usage)
		} else {
			f.StringP(name, short, "", o.usage)
			if o.arg == optionalArgument {
				f.Lookup(name).NoOptDefVal = " "
			}
		}
		f.Lookup(name).Hidden = o.hidden || o.long == ""
	}
	cmd.SetHelpFunc(func(*cobra.Command, []string) { printHelp(stdout, prog, table) })
	return cmd
}

const description = `Summarize device usage of the set of FILEs, recursively for directories,
as GNU du does, reading each directory with as few system calls as the
kernel allows and walking subdirectories in parallel.`

// shortOnly describes the options without a long name, which the man
// page's list (long names only) leaves out.
func shortOnly(table []option) string {
	var b strings.Builder
	for _, o := range table {
		if o.long == "" {
			fmt.Fprintf(&b, "\n\n-%c: %s", o.short, o.usage)
		}
	}
	return b.String()
}

// printHelp prints du-style help from the option table.
func printHelp(w io.Writer, prog string, table []option) {
	fmt.Fprintf(w, "Usage: %s [OPTION]... [FILE]...\n  or:  %s [OPTION]... --files0-from=F\n%s\n\n", prog, prog, description)
	for _, o := range table {
		if o.hidden {
			continue
		}
		var names []string
		if o.short != 0 {
			names = append(names, "-"+string(o.short))
		}
		if o.long != "" {
			n := "--" + o.long
			switch o.arg {
			case requiredArgument:
				n += "=" + o.argName
			case optionalArgument:
				n += "[=" + o.argName + "]"
			}
			names = append(names, n)
		}
		lead := "  "
		if o.short == 0 {
			lead = "      "
		}
		fmt.Fprintf(w, "%s%s\n        %s\n", lead, strings.Join(names, ", "), o.usage)
	}
}

// completionScript writes cobra's script for shell, made to ask godu for
// candidates with completionRequest: cobra's request word would be a file
// operand to godu, as to du.
func completionScript(cmd *cobra.Command, shell string, w io.Writer) error {
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
		return usageErr("unknown shell " + quoteASCII(shell) + " for --completion (bash, zsh, fish, powershell)")
	}
	if err != nil {
		return fatalErr(err.Error())
	}
	script := strings.NewReplacer(" "+cobra.ShellCompRequestCmd+" ", " "+completionRequest+" ",
		" "+cobra.ShellCompNoDescRequestCmd+" ", " "+completionRequest+" ").Replace(b.String())
	_, err = io.WriteString(w, script)
	if err != nil {
		return fatalErr("write error")
	}
	return nil
}

func quoteASCII(s string) string { return "'" + s + "'" }
