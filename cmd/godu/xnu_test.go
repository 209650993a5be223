//go:build godu_xnu

package main

// The godu_xnu build: godu under test runs the darwin core over the
// getattrlistbulk emulation (internal/xnu).
func init() { buildTags = append(buildTags, "godu_xnu") }

// onXnu reports whether godu runs the darwin core over the emulation.
const onXnu = true
