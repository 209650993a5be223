package main

// Shell completion without cobra in the binary: the scripts are cobra's,
// made at build time (make completions: internal/cobracmd) and embedded;
// the candidates they ask for are answered here, in cobra's protocol,
// from the option table and godu's own parser.

import (
	"embed"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

//go:embed completions
var completionScripts embed.FS

// completionRequest, as the first argument, is what the completion
// scripts run to ask for candidates (cobra's request command, which as a
// word would be an operand).
const completionRequest = "--completion-request"

// completionExt is the file each shell's script is kept in.
var completionExt = map[string]string{"bash": "bash", "zsh": "zsh", "fish": "fish", "powershell": "ps1"}

// completionScript writes the completion script for shell.
func completionScript(shell string, w io.Writer) error {
	ext, ok := completionExt[shell]
	if !ok {
		return usageErr("unknown shell " + quoteASCII(shell) + " for --completion (bash, zsh, fish, powershell)")
	}
	script, err := completionScripts.ReadFile("completions/godu." + ext)
	if err != nil {
		return fatalErr(err.Error())
	}
	if _, err := w.Write(script); err != nil {
		return fatalErr("write error")
	}
	return nil
}

// Directives of cobra's completion protocol: the last line of an answer,
// ":N", tells the script what to do beside the candidates.
const (
	directiveDefault    = 0 // the shell also completes file names
	directiveNoFileComp = 4 // only the candidates
)

var directiveNames = map[int]string{
	directiveDefault:    "ShellCompDirectiveDefault",
	directiveNoFileComp: "ShellCompDirectiveNoFileComp",
}

// answerCompletion answers a completion request for words (those before
// the cursor's, then the cursor's own) as cobra answers one for a command
// without subcommands: a word that starts with "-" and holds no "=" gets
// the options whose spellings it begins ("--name" and "-x", with their
// usage after a tab, in the table's order), but for those already on the
// line and those the help leaves out, and only the candidates are
// offered; anything else (an operand, an option's argument, words after
// "--", a line with an error before the cursor) gets no candidate, and
// the shell completes file names. The words before the cursor's are read
// as godu reads a command line: du's abbreviations and clusters are
// options here too. GODU_COMPLETION_DESCRIPTIONS=false (else
// COBRA_COMPLETION_DESCRIPTIONS=false) leaves the usage out, as cobra
// documents (cobra itself honours only the second for godu).
func answerCompletion(table []option, words []string, stdout, stderr io.Writer) int {
	if len(words) == 0 {
		return 1 // cobra asks for one word at least, and answers nothing
	}
	cur, before := words[len(words)-1], words[:len(words)-1]
	var candidates []string
	directive := directiveDefault
	if len(cur) > 0 && cur[0] == '-' && !strings.Contains(cur, "=") && optionsGoOn(table, before) {
		events, _ := getopt(table, before)
		given := map[*option]bool{}
		failed := false
		for _, ev := range events {
			if ev.err != "" {
				failed = true
			}
			given[ev.opt] = true
		}
		if !failed {
			directive = directiveNoFileComp
			for i := range table {
				o := &table[i]
				if o.long == "" || o.hidden || given[o] {
					continue
				}
				if strings.HasPrefix("--"+o.long, cur) {
					candidates = append(candidates, "--"+o.long+"\t"+o.usage)
				}
				if o.short != 0 && strings.HasPrefix("-"+string(o.short), cur) {
					candidates = append(candidates, "-"+string(o.short)+"\t"+o.usage)
				}
			}
		}
	}
	descriptions := true
	v := os.Getenv("GODU_COMPLETION_DESCRIPTIONS")
	if v == "" {
		v = os.Getenv("COBRA_COMPLETION_DESCRIPTIONS") // as cobra falls back
	}
	if b, err := strconv.ParseBool(v); err == nil {
		descriptions = b
	}
	var b strings.Builder
	for _, c := range candidates {
		if !descriptions {
			c, _, _ = strings.Cut(c, "\t")
		}
		c, _, _ = strings.Cut(c, "\n")
		b.WriteString(strings.TrimSpace(c) + "\n")
	}
	fmt.Fprintf(&b, ":%d\n", directive)
	if _, err := io.WriteString(stdout, b.String()); err != nil {
		return 1
	}
	fmt.Fprintf(stderr, "Completion ended with directive: %s\n", directiveNames[directive])
	return 0
}

// optionsGoOn reports whether a word after words may still be an option:
// no "--" ended the options among them (nor, with POSIXLY_CORRECT, an
// operand). An option word after them is then read as one.
func optionsGoOn(table []option, words []string) bool {
	const probe = "--help"
	events, operands := getopt(table, append(words[:len(words):len(words)], probe))
	if len(operands) > 0 && operands[len(operands)-1] == probe {
		return false
	}
	return len(events) > 0 && events[len(events)-1].opt != nil && events[len(events)-1].opt.long == "help"
}
