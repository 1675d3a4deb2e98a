// Package judging is the proxy's judging (conformance/proxy): the rules of
// conformance/contract and the state models of conformance/contract/state,
// fed one exchange at a time in the order the proxy judges them. The
// proxy's own goroutine judges with Judges (inline), or a judging process
// holds them (Serve) and the proxy hands it each exchange over a pipe
// (Process). `pixsandbox validate` judges recorded traffic with the same
// Judges.
package judging

import (
	"errors"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
	"github.com/pixsandbox/pixsandbox/conformance/contract/state"
)

// Judges are the rules with the state they judge against: the state model of
// the API's traffic and, with a webhook side, the model of the deliveries.
// The proxy's judging goroutine judges with Judges of its own (inline), or
// hands each exchange to a judging process that holds them (Process,
// Serve). One goroutine at a time judges with them; their models are safe
// to read the sizes of from any.
type Judges struct {
	model *state.Model
	hooks *state.Hooks // nil without a webhook side
	cfg   Config
}

// Config is what Judges are built from: the proxy's options that the
// rules read. A judging process gets it as the first frame of its input.
type Config struct {
	Bounds        state.Bounds `json:"bounds"`
	QuietAccounts bool         `json:"quietAccounts"`
	Upstream      string       `json:"upstream"`
	// Receiver is the integrator's webhook receiver (the proxy's
	// Options.WebhooksTo): empty without a webhook side.
	Receiver string `json:"receiver,omitempty"`
	Secret   string `json:"secret,omitempty"`
}

// New returns Judges with empty models.
func New(c Config) *Judges {
	j := &Judges{model: state.NewModel(c.Bounds), cfg: c}
	j.model.QuietAccounts(c.QuietAccounts)
	if c.Receiver != "" {
		j.hooks = state.NewHooks(c.Bounds)
	}
	return j
}

// Item is an exchange handed to the judges: an API exchange or a webhook
// delivery, with what the proxy saw of its forwarding.
type Item struct {
	Ex       *contract.Exchange
	Delivery bool
	// Failed is why the upstream (the receiver, for a delivery) did not
	// answer; empty when it did.
	Failed string
}

// Judge returns the findings of one exchange. The items come in the order
// the proxy judges them: the models read them in that order.
func (j *Judges) Judge(it Item) []contract.Finding {
	ex := it.Ex
	if it.Delivery {
		if j.hooks == nil {
			return nil
		}
		found := contract.JudgeDelivery(ex, contract.HookOptions{Secret: j.cfg.Secret})
		found = append(found, j.hooks.ObserveDelivery(ex)...)
		if it.Failed != "" {
			found = append(found, contract.ReceiverFinding(ex, j.cfg.Receiver, errors.New(it.Failed)))
		}
		return found
	}
	if it.Failed != "" {
		ex.Status = 0
		return append(contract.Judge(ex), contract.UpstreamFinding(ex, j.cfg.Upstream, errors.New(it.Failed)))
	}
	found := append(contract.Judge(ex), j.model.Observe(ex)...)
	if j.hooks != nil {
		found = append(found, j.hooks.Observe(ex)...)
	}
	return found
}

// Sizes are how many entries the judges' windows hold, for the summary.
type Sizes struct {
	Model         map[string]int `json:"model"`
	Hooks         map[string]int `json:"hooks,omitempty"`
	BalanceJudged int            `json:"balanceJudged"`
}

// Sizes returns how many entries the models' windows hold now.
func (j *Judges) Sizes() Sizes {
	s := Sizes{Model: j.model.Size(), BalanceJudged: j.model.BalanceJudged()}
	if j.hooks != nil {
		s.Hooks = j.hooks.Size()
	}
	return s
}
