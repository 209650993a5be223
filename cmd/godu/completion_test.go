//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBashCompletion runs the generated bash script's completion function
// in bash, as a shell would on TAB, for partial options: the candidates
// come from godu through --completion-request, never from a word godu
// would take for a file.
func TestBashCompletion(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	script := invoke(t, dir, nil, "", godu, []string{"--completion=bash"})
	if script.Code != 0 {
		t.Fatalf("--completion=bash: %+v", script)
	}
	path := filepath.Join(dir, "godu.bash")
	os.WriteFile(path, []byte(script.Stdout), 0o644)
	for word, want := range map[string][]string{
		"--summ": {"--summarize"},
		"--ti":   {"--time", "--time-style"},
		"--max":  {"--max-depth"},
		"--js":   {"--json"},
	} {
		// Without the bash-completion package, the script needs its
		// word splitter; this stand-in splits as it would here.
		sh := `_get_comp_words_by_ref() { cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}; words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD; }
source "$1"; COMP_WORDS=("$2" "$3"); COMP_CWORD=1; COMP_LINE="$2 $3"; COMP_POINT=${#COMP_LINE}
__start_godu; printf '%s\n' "${COMPREPLY[@]}"`
		cmd := exec.Command("bash", "-c", sh, "bash", path, godu, word)
		cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0")
		out, err := cmd.Output() // bash's compopt complains outside a real completion
		if err != nil {
			t.Fatalf("%s: %v: %s", word, err, out)
		}
		got := strings.Fields(string(out))
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("completing %q: %q, want %q", word, got, want)
		}
	}
	for _, sh := range []string{"zsh", "fish", "powershell"} {
		s := invoke(t, dir, nil, "", godu, []string{"--completion=" + sh}).Stdout
		if !strings.Contains(s, completionRequest) || strings.Contains(s, " __complete") {
			t.Errorf("%s script does not ask with %s", sh, completionRequest)
		}
	}
}

// TestCommandWordsAreFiles: directories named like cobra's commands are
// summed, as du sums them.
func TestCommandWordsAreFiles(t *testing.T) {
	needDu(t)
	root := grammarTree(t)
	for _, w := range []string{"help", "completion", "__complete", "__completeNoDesc"} {
		os.MkdirAll(filepath.Join(root, w), 0o755)
		sameRun(t, root, nil, []string{"-s", w})
		sameRun(t, root, nil, []string{w, "bash"})
	}
}

// TestCompletionShells: an unknown or empty shell is du's kind of usage
// error, not a run that sums "." (--completion= did).
func TestCompletionShells(t *testing.T) {
	dir := t.TempDir()
	for _, sh := range []string{"", "tcsh", "BASH"} {
		r := invoke(t, dir, nil, "", godu, []string{"--completion=" + sh})
		// (the tests run godu by the name du)
		want := "du: unknown shell '" + sh + "' for --completion (bash, zsh, fish, powershell)\nTry 'du --help' for more information.\n"
		if r.Code != 1 || r.Stdout != "" || r.Stderr != want {
			t.Errorf("--completion=%s: %+v, want status 1 and %q", sh, r, want)
		}
	}
}
