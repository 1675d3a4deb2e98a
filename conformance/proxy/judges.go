package proxy

import (
	"errors"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
	"github.com/pixsandbox/pixsandbox/conformance/contract/state"
)

// judges are the rules with the state they judge against: the state model of
// the API's traffic and, with a webhook side, the model of the deliveries.
// The proxy's judging goroutine judges with judges of its own (inline), or
// hands each exchange to a judging process that holds them
// (Options.JudgeProcess, ServeJudging). One goroutine at a time judges with
// them; their models are safe to read the sizes of from any.
type judges struct {
	model *state.Model
	hooks *state.Hooks // nil without a webhook side
	cfg   judgeConfig
}

// judgeConfig is what judges are built from: the proxy's options that the
// rules read. A judging process gets it as the first frame of its input.
type judgeConfig struct {
	Bounds        state.Bounds `json:"bounds"`
	QuietAccounts bool         `json:"quietAccounts"`
	Upstream      string       `json:"upstream"`
	// Receiver is the integrator's webhook receiver (Options.WebhooksTo):
	// empty without a webhook side.
	Receiver string `json:"receiver,omitempty"`
	Secret   string `json:"secret,omitempty"`
}

func newJudges(c judgeConfig) *judges {
	j := &judges{model: state.NewModel(c.Bounds), cfg: c}
	j.model.QuietAccounts(c.QuietAccounts)
	if c.Receiver != "" {
		j.hooks = state.NewHooks(c.Bounds)
	}
	return j
}

// item is an exchange handed to the judges: an API exchange or a webhook
// delivery, with what the proxy saw of its forwarding.
type item struct {
	ex       *contract.Exchange
	delivery bool
	// failed is why the upstream (the receiver, for a delivery) did not
	// answer; empty when it did.
	failed string
}

// judge returns the findings of one exchange. The items come in the order
// the proxy judges them (Proxy.judge): the models read them in that order.
func (j *judges) judge(it item) []contract.Finding {
	ex := it.ex
	if it.delivery {
		if j.hooks == nil {
			return nil
		}
		found := contract.JudgeDelivery(ex, contract.HookOptions{Secret: j.cfg.Secret})
		found = append(found, j.hooks.ObserveDelivery(ex)...)
		if it.failed != "" {
			found = append(found, contract.ReceiverFinding(ex, j.cfg.Receiver, errors.New(it.failed)))
		}
		return found
	}
	if it.failed != "" {
		ex.Status = 0
		return append(contract.Judge(ex), contract.UpstreamFinding(ex, j.cfg.Upstream, errors.New(it.failed)))
	}
	found := append(contract.Judge(ex), j.model.Observe(ex)...)
	if j.hooks != nil {
		found = append(found, j.hooks.Observe(ex)...)
	}
	return found
}

// modelSizes are how many entries the judges' windows hold, for the summary.
type modelSizes struct {
	Model         map[string]int `json:"model"`
	Hooks         map[string]int `json:"hooks,omitempty"`
	BalanceJudged int            `json:"balanceJudged"`
}

func (j *judges) sizes() modelSizes {
	s := modelSizes{Model: j.model.Size(), BalanceJudged: j.model.BalanceJudged()}
	if j.hooks != nil {
		s.Hooks = j.hooks.Size()
	}
	return s
}
