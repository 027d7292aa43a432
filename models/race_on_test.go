//go:build race

package models_test

// raceEnabled: the race detector slows the pure-Go SQLite engine about tenfold.
const raceEnabled = true
