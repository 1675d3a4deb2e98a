// Package clock is the one place that reads the wall clock.
package clock

import "time"

// Now is the wall clock.
func Now() time.Time { return time.Now() }

// Wall is the wall clock as a value.
var Wall = time.Now
