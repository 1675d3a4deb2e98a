//go:build race

package main

// raceEnabled: the test binary runs under the race detector, which makes
// allocation figures looser (TestMetrics_ScrapeCostIsFlat).
const raceEnabled = true
