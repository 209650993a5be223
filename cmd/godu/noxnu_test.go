//go:build !godu_xnu

package main

// onXnu reports whether godu runs the darwin core over the emulation.
const onXnu = false
