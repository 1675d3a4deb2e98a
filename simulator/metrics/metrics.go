// Package metrics holds the simulator's Prometheus collectors. They are registered
// on an injected prometheus.Registerer (never the global one), so tests can build
// several servers in one process. Labels never carry accounts, transactions or keys.
package metrics

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// HTTP observes requests by route template, method and status.
type HTTP struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

// NewHTTP creates the HTTP collectors and registers them on reg.
func NewHTTP(reg prometheus.Registerer) *HTTP {
	m := &HTTP{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "pixsandbox_http_requests_total",
			Help: "HTTP requests by route template, method and status code.",
		}, []string{"route", "method", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "pixsandbox_http_request_duration_seconds",
			Help:    "Wall-clock time to answer HTTP requests, by route template and method.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
		}, []string{"route", "method"}),
	}
	reg.MustRegister(m.requests, m.duration)
	return m
}

// Observe records one request. route is the mux path template ("/cob/{txid}"),
// never the raw path. d is wall time: latency is the one place wall time belongs.
func (m *HTTP) Observe(route, method string, code int, d time.Duration) {
	m.requests.WithLabelValues(route, method, strconv.Itoa(code)).Inc()
	m.duration.WithLabelValues(route, method).Observe(d.Seconds())
}
