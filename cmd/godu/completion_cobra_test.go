package main

import (
	"bytes"
	"flag"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/godu-sh/godu/internal/cobracmd"
)

var updateCompletions = flag.Bool("update-completions", false, "rewrite completions/ from cobra (make completions)")

// cobraCommand is the build-time cobra command of godu's option table.
func cobraCommand(out io.Writer) *cobra.Command {
	table := optionTable()
	return cobracmd.Command(usageLine, shortDescription, description+shortOnly(table), describe(table),
		func() {}, out, io.Discard)
}

// TestCompletionScripts: the embedded scripts are what cobra makes now
// (-update-completions rewrites them), and each asks godu for candidates
// with completionRequest, never with cobra's request word.
func TestCompletionScripts(t *testing.T) {
	if completionRequest != cobracmd.Request {
		t.Fatalf("completionRequest %q, cobracmd.Request %q", completionRequest, cobracmd.Request)
	}
	if int(requiredArgument) != cobracmd.RequiredArgument || int(optionalArgument) != cobracmd.OptionalArgument ||
		int(noArgument) != cobracmd.NoArgument {
		t.Fatal("argKind's values are not cobracmd's")
	}
	for _, sh := range cobracmd.Shells {
		want, err := cobracmd.Script(cobraCommand(io.Discard), sh.Name)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("completions", "godu."+sh.Ext)
		if *updateCompletions {
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var got bytes.Buffer
		if err := completionScript(sh.Name, &got); err != nil {
			t.Fatal(err)
		}
		if got.String() != want {
			t.Errorf("%s: the embedded script is not cobra's (make completions)", sh.Name)
		}
		if completionExt[sh.Name] != sh.Ext {
			t.Errorf("%s: kept in godu.%s, cobracmd says godu.%s", sh.Name, completionExt[sh.Name], sh.Ext)
		}
		if !strings.Contains(want, " "+completionRequest+" ") || strings.Contains(want, " __complete") {
			t.Errorf("%s script does not ask with %s", sh.Name, completionRequest)
		}
	}
}

// TestCompletionAnswersAsCobra compares godu's answers to completion
// requests with cobra's on command lines both read alike (full option
// names, their arguments in either form, short options with their
// arguments in either form, operands anywhere, "--", an unknown option), generated at random: the same
// candidates, in the same order, and the same directive.
func TestCompletionAnswersAsCobra(t *testing.T) {
	t.Setenv("POSIXLY_CORRECT", "")
	os.Unsetenv("POSIXLY_CORRECT")
	t.Setenv("GODU_COMPLETION_DESCRIPTIONS", "")
	table := optionTable()
	var visible []*option
	for i := range table {
		if !table[i].hidden && table[i].long != "" {
			visible = append(visible, &table[i])
		}
	}
	rng := rand.New(rand.NewSource(1))
	value := func() string { return []string{"1", "x", "dir/a", "K", "atime", "*.o"}[rng.Intn(6)] }
	word := func() []string {
		o := &table[rng.Intn(len(table))]
		switch r := rng.Intn(10); {
		case r == 0:
			return []string{"operand"}
		case r == 1 && rng.Intn(4) == 0:
			return []string{"--"}
		case r == 2 && rng.Intn(4) == 0:
			return []string{"--no-such-option"}
		case o.long != "" && (o.short == 0 || rng.Intn(2) == 0):
			switch o.arg {
			case requiredArgument:
				if rng.Intn(2) == 0 {
					return []string{"--" + o.long, value()}
				}
				return []string{"--" + o.long + "=" + value()}
			case optionalArgument:
				if rng.Intn(2) == 0 {
					return []string{"--" + o.long + "=" + value()}
				}
			}
			return []string{"--" + o.long}
		case o.short != 0:
			if o.arg == requiredArgument {
				if rng.Intn(2) == 0 {
					return []string{"-" + string(o.short), value()}
				}
				return []string{"-" + string(o.short) + value()}
			}
			return []string{"-" + string(o.short)}
		}
		return []string{"x"}
	}
	for n := 0; n < 3000; n++ {
		var words []string
		for k := rng.Intn(5); k > 0; k-- {
			words = append(words, word()...)
		}
		if rng.Intn(8) == 0 { // an option waiting for its argument
			if o := table[rng.Intn(len(table))]; o.long != "" && o.arg == requiredArgument {
				words = append(words, "--"+o.long)
			}
		}
		o := visible[rng.Intn(len(visible))]
		cur := []string{"", "-", "--", "x", "--" + o.long + "=",
			("--" + o.long)[:2+rng.Intn(len(o.long)+1)]}[rng.Intn(6)]
		words = append(words, cur)
		var want, got bytes.Buffer
		cobracmd.Answer(cobraCommand(&want), words)
		answerCompletion(table, words, &got, io.Discard)
		if got.String() != want.String() {
			t.Fatalf("completing %q: godu answers\n%s\ncobra answers\n%s", words, got.String(), want.String())
		}
	}
}

// TestGoduLeavesCobraOut: the binary imports nothing of cobra's, nor the
// packages it brings in, whose initialisation every start would pay.
func TestGoduLeavesCobraOut(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skip("no go list:", err)
	}
	for _, p := range strings.Fields(string(out)) {
		switch {
		case strings.Contains(p, "spf13"), p == "net", p == "net/netip", p == "text/template", p == "regexp",
			strings.HasSuffix(p, "/cobracmd"):
			t.Errorf("godu imports %s", p)
		}
	}
}

// TestCompletionDescriptions: GODU_COMPLETION_DESCRIPTIONS, else
// COBRA_COMPLETION_DESCRIPTIONS, set to false leaves the usage out, as
// cobra documents. (cobra itself, for a command without subcommands,
// looks for __COMPLETE_COMPLETION_DESCRIPTIONS, its request command's
// name, instead of GODU_...: the answers are compared with cobra's where
// GODU_... is unset.)
func TestCompletionDescriptions(t *testing.T) {
	for _, env := range [][2]string{{"", ""}, {"false", ""}, {"", "false"}, {"true", "false"}, {"0", "1"}} {
		t.Setenv("GODU_COMPLETION_DESCRIPTIONS", env[0])
		t.Setenv("COBRA_COMPLETION_DESCRIPTIONS", env[1])
		words := []string{"-s", "--ti"}
		var want, got bytes.Buffer
		cobracmd.Answer(cobraCommand(&want), words)
		answerCompletion(optionTable(), words, &got, io.Discard)
		if env[0] == "" && got.String() != want.String() {
			t.Errorf("GODU_=%q COBRA_=%q: godu answers\n%s\ncobra answers\n%s", env[0], env[1], got.String(), want.String())
		}
		if off := env[0] == "false" || env[0] == "0" || env[0] == "" && env[1] == "false"; off == strings.Contains(got.String(), "\t") {
			t.Errorf("GODU_=%q COBRA_=%q: descriptions %v in\n%s", env[0], env[1], !off, got.String())
		}
	}
}
