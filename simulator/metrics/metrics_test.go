package metrics

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestHTTP_Observe(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := NewHTTP(reg)
	m.Observe("/cob/{txid}", "PUT", 201, 3*time.Millisecond)
	m.Observe("/cob/{txid}", "PUT", 201, time.Millisecond)
	if got := testutil.ToFloat64(m.requests.WithLabelValues("/cob/{txid}", "PUT", "201")); got != 2 {
		t.Fatalf("requests = %v, want 2", got)
	}
	if n := testutil.CollectAndCount(m.duration); n != 1 {
		t.Fatalf("histogram series = %d, want 1", n)
	}
	// A second registry takes a second set: no global registration.
	NewHTTP(prometheus.NewRegistry())
}
