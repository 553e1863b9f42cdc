//go:build !race

package guard_test

// raceEnabled: the race detector slows the package's heaviest tests down several times.
const raceEnabled = false
