//go:build race

package providertest

// raceEnabled: the race detector turns sync.Pool off and instruments
// allocations, so allocation bounds measured without it do not hold.
const raceEnabled = true
