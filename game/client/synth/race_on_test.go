//go:build race

package synth

// raceOn: the race detector slows rendering ~10x; the long renders shorten.
const raceOn = true
