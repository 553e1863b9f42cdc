//go:build !race

package server

// raceEnabled: the race detector slows the package's heaviest tests down several times.
const raceEnabled = false
