package store

import "time"

type fixed struct{ t time.Time }

func (f fixed) Now() time.Time { return f.t }

// At reads a clock value named time, not package time.
func At() time.Time {
	time := fixed{}
	return time.Now()
}
