package sandboxapi_test

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
)

// TestSandbox_ResetUnderLoad: requests racing POST /_sandbox/reset wait for it
// instead of meeting a half-dropped store: no 5xx, and every reset answers 200.
func TestSandbox_ResetUnderLoad(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{Dir: t.TempDir()})
	tok := apitest.TokenFor(t, env, 0)
	auth := map[string]string{"Authorization": "Bearer " + tok, "Content-Type": "application/json"}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var bad atomic.Value
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				var r apitest.Result
				switch (w + i) % 3 {
				case 0:
					r = apitest.DoRaw(t, "GET", env.URL+"/api/balance", nil, auth)
				case 1:
					body := fmt.Sprintf(`{"value":0.01,"externalId":"reset-%d-%d","details":{"key":"11987654321","keyType":"PHONE","name":"F","document":"52998224725"}}`, w, i)
					r = apitest.DoRaw(t, "POST", env.URL+"/api/pix/cash-out", strings.NewReader(body), auth)
				default:
					r = apitest.DoRaw(t, "GET", env.URL+"/_sandbox/accounts", nil, nil)
				}
				if r.Status >= 500 {
					bad.Store(fmt.Sprintf("%d %s", r.Status, r.Raw))
					return
				}
			}
		}()
	}
	for range 5 {
		if r := apitest.DoRaw(t, "POST", env.URL+"/_sandbox/reset", nil, nil); r.Status != 200 {
			t.Errorf("reset: %d %s", r.Status, r.Raw)
		}
	}
	close(stop)
	wg.Wait()
	if v := bad.Load(); v != nil {
		t.Fatalf("a request racing the reset got %s", v)
	}
	if r := apitest.Do(t, "GET", env.URL+"/_sandbox/invariants", nil, nil); r.Status != 200 || r.Body["ok"] != true {
		t.Fatalf("invariants after the resets: %d %s", r.Status, r.Raw)
	}
}
