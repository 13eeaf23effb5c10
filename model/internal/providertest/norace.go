//go:build !race

package providertest

const raceEnabled = false
