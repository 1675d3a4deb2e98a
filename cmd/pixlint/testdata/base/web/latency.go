package web

import "time"

var latency = map[string]time.Duration{}

// observe measures a request's latency in wall time.
func observe(path string) func() {
	start := time.Now()
	return func() { latency[path] = time.Since(start) }
}
