//go:build godu_man

package main

import (
	"io"

	"github.com/spf13/cobra/doc"

	"github.com/godu-sh/godu/internal/cobracmd"
)

func init() {
	manOption = &option{long: "generate-man", argName: "DIR", godu: true, hidden: true, arg: requiredArgument,
		usage: "write the man page to DIR", apply: func(s *settings, ev event) error {
			s.manDir = ev.arg
			return nil
		}}
	genMan = func(prog string, table []option, dir string) error {
		cmd := cobracmd.Command(usageLine, shortDescription, description+shortOnly(table), describe(table),
			func() {}, io.Discard, io.Discard)
		return doc.GenManTree(cmd, &doc.GenManHeader{Title: "GODU", Section: "1", Source: "godu " + version}, dir)
	}
}
