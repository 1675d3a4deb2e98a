//go:build race

package main

// raceEnabled: the test binary runs under the race detector, so the server is
// built with it too (its packages are then already in the build cache).
const raceEnabled = true
