//go:build godu_man

package main

import (
	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

func init() {
	manOption = &option{long: "generate-man", argName: "DIR", godu: true, hidden: true, arg: requiredArgument,
		usage: "write the man page to DIR", apply: func(s *settings, ev event) error {
			s.manDir = ev.arg
			return nil
		}}
	genMan = func(cmd *cobra.Command, dir string) error {
		return doc.GenManTree(cmd, &doc.GenManHeader{Title: "GODU", Section: "1", Source: "godu " + version}, dir)
	}
}
