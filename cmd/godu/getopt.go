package main

import (
	"fmt"
	"os"
	"strings"
)

// argKind says whether an option takes an argument, as getopt_long's
// has_arg does.
type argKind int

const (
	noArgument       argKind = iota
	requiredArgument         // in the same word after '=' (or after the letter), else the next word
	optionalArgument         // only in the same word: --time=WORD
)

// option is one row of the option table: a long name, a short letter, or
// both.
type option struct {
	long   string
	short  byte
	arg    argKind
	godu   bool // godu's own: never changes what a du command line means
	hidden bool
	usage  string
	// argName names the argument in the help (SIZE, N, ...).
	argName string
	apply   func(s *settings, ev event) error
}

// event is what the parser met, in command-line order: an option (with its
// argument, and the spelling du's messages name it by) or getopt's
// message for a word it rejected.
type event struct {
	opt      *option
	arg      string
	hasArg   bool
	spelling string // "-B" or "--block-size"
	err      string
}

// getopt splits args as glibc's getopt_long does for du: options in
// clusters and long options with unique abbreviations, operands permuted
// to the end (in order) unless POSIXLY_CORRECT is set, "--" ending the
// options. Long names resolve against du's options first, exactly as du
// resolves them (its ambiguities and messages included), and only a name
// du does not know at all is looked up among godu's own.
func getopt(table []option, args []string) (events []event, operands []string) {
	_, requireOrder := os.LookupEnv("POSIXLY_CORRECT") // set, even empty
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return events, append(operands, args[i+1:]...)
		case len(a) < 2 || a[0] != '-':
			if requireOrder {
				return events, append(operands, args[i:]...)
			}
			operands = append(operands, a)
		case a[1] == '-':
			ev, used := longOption(table, a[2:], args[i+1:])
			i += used
			events = append(events, ev)
		default:
			evs, used := shortCluster(table, a[1:], args[i+1:])
			i += used
			events = append(events, evs...)
		}
	}
	return events, operands
}

// longOption parses the text after "--"; rest are the words after it, of
// which it returns how many it took as the argument.
func longOption(table []option, text string, rest []string) (event, int) {
	name, value, hasValue := strings.Cut(text, "=")
	o, msg := lookupLong(table, name, text, false)
	if o == nil && msg == "" {
		o, msg = lookupLong(table, name, text, true)
	}
	if o == nil {
		if msg == "" {
			msg = fmt.Sprintf("unrecognized option '--%s'", text)
		}
		return event{err: msg}, 0
	}
	ev := event{opt: o, spelling: "--" + o.long}
	switch {
	case hasValue && o.arg == noArgument:
		return event{err: fmt.Sprintf("option '--%s' doesn't allow an argument", o.long)}, 0
	case hasValue:
		ev.arg, ev.hasArg = value, true
	case o.arg == requiredArgument:
		if len(rest) == 0 {
			return event{err: fmt.Sprintf("option '--%s' requires an argument", o.long)}, 0
		}
		ev.arg, ev.hasArg = rest[0], true
		return ev, 1
	}
	return ev, 0
}

// lookupLong finds name among du's options (godu false) or godu's own:
// an exact name, else the only option it abbreviates. A name that
// abbreviates several gives getopt's message listing them in table order.
func lookupLong(table []option, name, text string, godu bool) (*option, string) {
	var found []*option
	for i := range table {
		o := &table[i]
		if o.long == "" || o.godu != godu || !strings.HasPrefix(o.long, name) {
			continue
		}
		if o.long == name {
			return o, ""
		}
		found = append(found, o)
	}
	switch len(found) {
	case 0:
		return nil, ""
	case 1:
		return found[0], ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "option '--%s' is ambiguous; possibilities:", text)
	for _, o := range found {
		fmt.Fprintf(&b, " '--%s'", o.long)
	}
	return nil, b.String()
}

// shortCluster parses the letters after a single '-'.
func shortCluster(table []option, letters string, rest []string) ([]event, int) {
	var evs []event
	for j := 0; j < len(letters); j++ {
		c := letters[j]
		o := lookupShort(table, c)
		if o == nil {
			evs = append(evs, event{err: "invalid option -- '" + string([]byte{c}) + "'"})
			continue
		}
		ev := event{opt: o, spelling: "-" + string(c)}
		if o.arg == requiredArgument {
			switch {
			case j+1 < len(letters):
				ev.arg, ev.hasArg = letters[j+1:], true
			case len(rest) > 0:
				ev.arg, ev.hasArg = rest[0], true
				return append(evs, ev), 1
			default:
				return append(evs, event{err: "option requires an argument -- '" + string([]byte{c}) + "'"}), 0
			}
			return append(evs, ev), 0
		}
		evs = append(evs, ev)
	}
	return evs, 0
}

func lookupShort(table []option, c byte) *option {
	for i := range table {
		if table[i].short == c {
			return &table[i]
		}
	}
	return nil
}
