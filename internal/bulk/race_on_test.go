//go:build race

package bulk

const raceEnabled = true
