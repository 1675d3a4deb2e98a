//go:build race

package main

// raceEnabled: the test binary runs under the race detector, so the faults
// binary of the self-check is built with it too (its packages are then
// already in the build cache, and a data race in the server fails the run).
const raceEnabled = true
