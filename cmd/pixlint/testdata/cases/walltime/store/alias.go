package store

import tm "time"

// Age reads the wall clock through an alias of package time.
func Age(t tm.Time) tm.Duration { return tm.Since(t) }
