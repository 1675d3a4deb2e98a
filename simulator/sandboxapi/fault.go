package sandboxapi

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/gorilla/mux"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi"
	"github.com/pixsandbox/pixsandbox/simulator/httpapi/strictjson"
	"github.com/pixsandbox/pixsandbox/simulator/netfault"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// Network fault rules (docs/faults.md): GET, POST and DELETE
// /_sandbox/faults and DELETE /_sandbox/faults/{id}, the rules of the
// workspace the request acts on, kept by the server's transport
// (httpapi.Server.Faults, package netfault) in memory.

// maxSeed is the largest seed: a JSON number a browser reads exactly (2^53-1).
const maxSeed = 1<<53 - 1

// maxTimes bounds a rule's times.
const maxTimes = 1_000_000_000

type faultRuleDTO struct {
	ID          int64   `json:"id"`
	Method      string  `json:"method"`
	Route       string  `json:"route"`
	AccountID   *int64  `json:"accountId"`
	Fault       string  `json:"fault"`
	Times       *int    `json:"times"`
	Probability float64 `json:"probability"`
	Seed        uint64  `json:"seed"`
	Matched     int     `json:"matched"`
	Applied     int     `json:"applied"`
	Remaining   *int    `json:"remaining"`
}

func newFaultRuleDTO(r netfault.Rule) faultRuleDTO {
	d := faultRuleDTO{ID: r.ID, Method: r.Method, Route: r.Route, Fault: r.Fault.String(), Probability: r.Probability,
		Seed: r.Seed, Matched: r.Matched, Applied: r.Applied}
	if r.Account != 0 {
		a := r.Account
		d.AccountID = &a
	}
	if r.Times > 0 {
		t, left := r.Times, r.Remaining()
		d.Times, d.Remaining = &t, &left
	}
	return d
}

// faultRequest is the body of POST /_sandbox/faults.
type faultRequest struct {
	Method      *string            `json:"method"`
	Route       *string            `json:"route"`
	AccountID   *int64             `json:"accountId"`
	Fault       *string            `json:"fault"`
	Times       *int64             `json:"times"`
	Probability *strictjson.Number `json:"probability"`
	Seed        *int64             `json:"seed"`
}

// rule reads a fault rule from the request's fields; the route may carry
// its method ("POST /api/pix/cash-out") when method is left out. The rule's
// method and route are checked by netfault.Rules.Add.
func (req faultRequest) rule() (netfault.Rule, error) {
	bad := func(field, msg string) error {
		return pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: field, Message: msg})
	}
	r := netfault.Rule{Method: text(req.Method), Route: strings.TrimSpace(text(req.Route))}
	if m, path, ok := strings.Cut(r.Route, " "); ok {
		if r.Method != "" && !strings.EqualFold(strings.TrimSpace(r.Method), m) {
			return r, bad("method", "names another method than route's "+m+": give the method in one of them")
		}
		r.Method, r.Route = m, strings.TrimSpace(path)
	}
	if req.Fault == nil {
		return r, bad("fault", "is required: "+netfault.Syntax)
	}
	f, err := netfault.Parse(*req.Fault)
	if err != nil {
		return r, bad("fault", err.Error())
	}
	r.Fault = f
	if req.AccountID != nil {
		if *req.AccountID <= 0 {
			return r, bad("accountId", "must be a positive account number (or left out for every account)")
		}
		r.Account = *req.AccountID
	}
	if req.Times != nil {
		if *req.Times < 1 || *req.Times > maxTimes {
			return r, bad("times", "must be a whole number of requests from 1 to 1000000000 (or left out for every request)")
		}
		r.Times = int(*req.Times)
	}
	if req.Probability != nil {
		p, err := strconv.ParseFloat(req.Probability.String(), 64)
		if err != nil || !(p > 0 && p <= 1) {
			return r, bad("probability", "must be a number above 0 and at most 1, e.g. 0.25")
		}
		r.Probability = p
	}
	if req.Seed != nil {
		if *req.Seed < 0 || *req.Seed > maxSeed {
			return r, bad("seed", "must be a whole number from 0 to 9007199254740991")
		}
		r.Seed = uint64(*req.Seed)
	}
	return r, nil
}

// handleFaultCreate serves POST /_sandbox/faults: a rule added to the
// workspace's, after its others.
func (cp *ControlPlane) handleFaultCreate(r *http.Request) (any, error) {
	var req faultRequest
	if err := httpapi.DecodeSandboxJSON(r, &req); err != nil {
		return nil, err
	}
	rule, err := req.rule()
	if err != nil {
		return nil, err
	}
	if rule.Account != 0 {
		if _, _, err := cp.sb(r.Context()).Account(r.Context(), pix.AccountID(rule.Account)); err != nil {
			return nil, err
		}
	}
	out, err := cp.srv.Faults().Add(httpapi.WorkspaceOf(r), rule)
	if err != nil {
		return nil, err
	}
	return newFaultRuleDTO(out), nil
}

// handleFaultList serves GET /_sandbox/faults: the workspace's rules in the
// order they apply, with their counts.
func (cp *ControlPlane) handleFaultList(r *http.Request) (any, error) {
	rules := cp.srv.Faults().List(httpapi.WorkspaceOf(r))
	out := make([]faultRuleDTO, len(rules))
	for i, rule := range rules {
		out[i] = newFaultRuleDTO(rule)
	}
	return map[string]any{"data": out}, nil
}

// handleFaultClear serves DELETE /_sandbox/faults: every rule of the
// workspace removed.
func (cp *ControlPlane) handleFaultClear(r *http.Request) (any, error) {
	return map[string]int{"deleted": cp.srv.Faults().Clear(httpapi.WorkspaceOf(r))}, nil
}

// handleFaultDelete serves DELETE /_sandbox/faults/{id}.
func (cp *ControlPlane) handleFaultDelete(r *http.Request) (any, error) {
	id, err := strconv.ParseInt(mux.Vars(r)["id"], 10, 64)
	if err != nil || id <= 0 {
		return nil, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "id", Message: "must be a positive number"})
	}
	if !cp.srv.Faults().Delete(httpapi.WorkspaceOf(r), id) {
		return nil, pix.Errorf(pix.KindNotFound, pix.CodeNotFound, "fault rule %d not found", id)
	}
	return map[string]int64{"deleted": id}, nil
}

// journalFaultDTO is the network fault applied to a journalled request.
type journalFaultDTO struct {
	Applied string `json:"applied"`
	Source  string `json:"source"` // "header" or "rule"
	RuleID  int64  `json:"ruleId,omitempty"`
}

func newJournalFaultDTO(e httpapi.JournalEntry) *journalFaultDTO {
	if e.Fault == "" {
		return nil
	}
	if e.FaultRule == 0 {
		return &journalFaultDTO{Applied: e.Fault, Source: "header"}
	}
	return &journalFaultDTO{Applied: e.Fault, Source: "rule", RuleID: e.FaultRule}
}
