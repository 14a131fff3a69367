//go:build race

package reliability

// soakRace is set when the race detector is on: the soak's default
// shrinks, since 10,000 intents take about 155 s under -race on 2 cores.
const soakRace = true
