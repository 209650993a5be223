package main

import (
	"fmt"
	"io"
	"strings"
)

// describe reports the options of table as the build-time cobra command
// (internal/cobracmd, which godu does not import) reads them: long name,
// short letter, argument kind (argKind's values are cobracmd's), usage,
// and whether the help leaves it out.
func describe(table []option) func(yield func(long string, short byte, arg int, usage string, hidden bool)) {
	return func(yield func(string, byte, int, string, bool)) {
		for _, o := range table {
			yield(o.long, o.short, int(o.arg), o.usage, o.hidden)
		}
	}
}

// usageLine and shortDescription head the man page.
const (
	usageLine        = "godu [OPTION]... [FILE]..."
	shortDescription = "Summarize device usage of the set of FILEs, recursively for directories."
)

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

func quoteASCII(s string) string { return "'" + s + "'" }
