//go:build !race

package reliability

// soakRace is set when the race detector is on (see soak_race_test.go).
const soakRace = false
