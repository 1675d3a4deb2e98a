package state_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
	"github.com/pixsandbox/pixsandbox/conformance/contract/state"
)

// What the proxy spends judging one exchange of its latency row (balance
// reads and PUT /cob, half each, every request with its client's token):
// the response rules and the state model. The exchanges are built before
// the timer starts.
func BenchmarkJudgeAndObserve(b *testing.B) {
	exs := make([]*contract.Exchange, b.N)
	for i := range exs {
		exs[i] = rowExchange(i)
	}
	m := state.NewModel(state.DefaultBounds)
	b.ReportAllocs()
	b.ResetTimer()
	for i, ex := range exs {
		if fs := append(contract.Judge(ex), m.Observe(ex)...); len(fs) > 0 {
			b.Fatalf("exchange %d: %s", i, describe(fs))
		}
	}
}

// What the model holds once its windows are full of the latency row's
// traffic (balance reads and PUT /cob, half each): the live heap that the
// proxy's collector marks at every cycle, in bytes per cob held. Each
// exchange is built as it is observed and dropped after, as in the proxy.
func BenchmarkModelHeld(b *testing.B) {
	cobs := state.DefaultBounds.Keys
	var held uint64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		m := state.NewModel(state.DefaultBounds)
		for i := range 2 * cobs {
			m.Observe(rowExchange(i))
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(m)
		held += after.HeapAlloc - before.HeapAlloc
	}
	b.ReportMetric(float64(held)/float64(b.N)/float64(cobs), "B/cob")
}

// rowExchange is the i-th exchange of the proxy's latency row: a balance
// read when i is even, a PUT /cob of a new txid when odd, a millisecond
// apart.
func rowExchange(i int) *contract.Exchange {
	d := time.Duration(i) * time.Millisecond
	if i%2 == 0 {
		return exch("GET /accounts/balances", "", 200, balanceOK, at(uint64(i+1), d))
	}
	txid := fmt.Sprintf("proxytxid%022d", i)
	return exch("PUT /cob/"+txid, cobReq, 201, mut(cobOK, "txid", `"`+txid+`"`), at(uint64(i+1), d))
}
