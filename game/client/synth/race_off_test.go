//go:build !race

package synth

const raceOn = false
