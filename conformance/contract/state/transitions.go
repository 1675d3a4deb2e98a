package state

import (
	"fmt"
	"slices"
	"time"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
)

// history is the statuses a cob or a refund was seen in, each with when its
// request started and its answer ended at the proxy.
type history struct{ obs []statusObs }

type statusObs struct {
	status     string
	start, end time.Time
	ex         uint64
}

func (h *history) add(o statusObs) {
	h.obs = append(h.obs, o)
	if len(h.obs) > maxHistory {
		h.obs = h.obs[len(h.obs)-maxHistory:]
	}
}

// contradiction returns the first earlier observation from which the
// contract does not allow o's status. Only observations whose answer ended
// before o's request started are compared: two exchanges in flight together
// may have been served in either order.
func (h *history) contradiction(o statusObs, allowed func(from, to string) bool) (statusObs, bool) {
	for _, p := range h.obs {
		if p.end.Before(o.start) && !allowed(p.status, o.status) {
			return p, true
		}
	}
	return statusObs{}, false
}

var cobTerminal = []string{"CONCLUIDA", "REMOVIDA_PELO_USUARIO_RECEBEDOR", "REMOVIDA_PELO_PSP"}

// cobAllowed is "States and transitions > Immediate charge (cob)": ATIVA to
// one of the terminal states; terminal states never change.
func cobAllowed(from, to string) bool {
	return from == to || (from == "ATIVA" && slices.Contains(cobTerminal, to))
}

// refundAllowed is "States and transitions > Refund (devolucao)".
func refundAllowed(from, to string) bool {
	return from == to || (from == "EM_PROCESSAMENTO" && (to == "DEVOLVIDO" || to == "NAO_REALIZADO"))
}

// cob records a cob's status and judges it against the earlier ones; a
// creation (PUT answered 2xx) must be ATIVA.
func (m *Model) cob(ex *contract.Exchange, rt *contract.Route, key string, obj map[string]any) []contract.Finding {
	status, _ := obj["status"].(string)
	if status == "" {
		return nil
	}
	o := statusObs{status: status, start: ex.Start, end: ex.End, ex: ex.Seq}
	h, _ := m.cobs.get(key)
	if h == nil {
		h = &history{}
		m.cobs.put(key, h)
	}
	var out []contract.Finding
	if rt.Name == "cob.put" && status != "ATIVA" {
		f := contract.NewFinding("state.cob-transition", ex, "")
		f.Field, f.Expected, f.Seen = "status", "ATIVA (creation)", status
		f.Message = fmt.Sprintf("PUT /cob created the cob in status %s; the contract creates it ATIVA", status)
		out = append(out, f)
	} else if p, bad := h.contradiction(o, cobAllowed); bad {
		out = append(out, transitionFinding("state.cob-transition", ex, "cob", p, status))
	}
	h.add(o)
	return out
}

// refundState records a refund's status and judges it against the earlier
// ones. A PUT may answer a refund already processed (a repeated PUT, or one
// processed at once), so its answer is judged like a read.
func (m *Model) refundState(ex *contract.Exchange, key string, obj map[string]any) []contract.Finding {
	status, _ := obj["status"].(string)
	if status == "" {
		return nil
	}
	o := statusObs{status: status, start: ex.Start, end: ex.End, ex: ex.Seq}
	h, _ := m.refunds.get(key)
	if h == nil {
		h = &history{}
		m.refunds.put(key, h)
	}
	var out []contract.Finding
	if p, bad := h.contradiction(o, refundAllowed); bad {
		out = append(out, transitionFinding("state.refund-transition", ex, "refund", p, status))
	}
	h.add(o)
	return out
}

func transitionFinding(id string, ex *contract.Exchange, what string, p statusObs, status string) contract.Finding {
	f := contract.NewFinding(id, ex, "")
	f.Field, f.Expected, f.Seen, f.Related = "status", "a status reachable from "+p.status, status, []uint64{p.ex}
	f.Message = fmt.Sprintf("the %s was %s in exchange %d (answered before this request started) and is now %s, a transition the contract does not allow",
		what, p.status, p.ex, status)
	return f
}
