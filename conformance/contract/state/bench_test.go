package state_test

import (
	"fmt"
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
		d := time.Duration(i) * time.Millisecond
		if i%2 == 0 {
			exs[i] = exch("GET /accounts/balances", "", 200, balanceOK, at(uint64(i+1), d))
			continue
		}
		txid := fmt.Sprintf("proxytxid%022d", i)
		exs[i] = exch("PUT /cob/"+txid, cobReq, 201, mut(cobOK, "txid", `"`+txid+`"`), at(uint64(i+1), d))
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
