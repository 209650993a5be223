//go:build godu_xnu

package walk

// onXnu: the darwin core runs over the getattrlistbulk emulation.
const onXnu = true
