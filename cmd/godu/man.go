//go:build godu_man

package main

import (
	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

func init() {
	addManFlag = func(cmd *cobra.Command) {
		var dir string
		cmd.Flags().StringVar(&dir, "generate-man", "", "write the man page to DIR")
		cmd.Flags().Lookup("generate-man").Hidden = true
		run := cmd.RunE
		cmd.RunE = func(c *cobra.Command, args []string) error {
			if dir != "" {
				return doc.GenManTree(c, &doc.GenManHeader{Title: "GODU", Section: "1", Source: "godu " + version}, dir)
			}
			return run(c, args)
		}
	}
}
