package httpapi

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/wire"
)

// sandboxRoutes is the /_sandbox control plane: it drives what the real world
// would do. Minimal error shape; no bearer token; the admin token when configured.
func (s *Server) sandboxRoutes() []*Route {
	rts := []*Route{
		{Name: "sandbox.clock.get", Method: http.MethodGet, Path: "/_sandbox/clock", Success: http.StatusOK, Handle: s.handleSandboxClockGet},
		{Name: "sandbox.clock.set", Method: http.MethodPost, Path: "/_sandbox/clock", Success: http.StatusOK, Handle: s.handleSandboxClockSet},
		{Name: "sandbox.clock.advance", Method: http.MethodPost, Path: "/_sandbox/clock/advance", Success: http.StatusOK, Handle: s.handleSandboxClockAdvance},
		{Name: "sandbox.accounts.create", Method: http.MethodPost, Path: "/_sandbox/accounts", Success: http.StatusCreated, Handle: s.handleSandboxAccountCreate},
		{Name: "sandbox.accounts.list", Method: http.MethodGet, Path: "/_sandbox/accounts", Success: http.StatusOK, Handle: s.handleSandboxAccountList},
		{Name: "sandbox.accounts.get", Method: http.MethodGet, Path: "/_sandbox/accounts/{id}", Success: http.StatusOK, Handle: s.handleSandboxAccountGet},
		{Name: "sandbox.accounts.token", Method: http.MethodPost, Path: "/_sandbox/accounts/{id}/token", Success: http.StatusCreated, Handle: s.handleSandboxAccountToken},
		{Name: "sandbox.reset", Method: http.MethodPost, Path: "/_sandbox/reset", Success: http.StatusOK, Handle: s.handleSandboxReset, Exclusive: true},
		{Name: "sandbox.certificates.create", Method: http.MethodPost, Path: "/_sandbox/accounts/{id}/certificates", Success: http.StatusCreated, Handle: s.handleSandboxCertificateCreate},
		{Name: "sandbox.jobs.create", Method: http.MethodPost, Path: "/_sandbox/jobs", Success: http.StatusCreated, Handle: s.handleSandboxJobCreate},
		{Name: "sandbox.jobs.list", Method: http.MethodGet, Path: "/_sandbox/jobs", Success: http.StatusOK, Handle: s.handleSandboxJobList},
		{Name: "sandbox.jobs.get", Method: http.MethodGet, Path: "/_sandbox/jobs/{id}", Success: http.StatusOK, Handle: s.handleSandboxJobGet},
		{Name: "sandbox.scenarios.list", Method: http.MethodGet, Path: "/_sandbox/scenarios", Success: http.StatusOK, Handle: s.handleSandboxScenarios},
		{Name: "sandbox.invariants", Method: http.MethodGet, Path: "/_sandbox/invariants", Success: http.StatusOK, Handle: s.handleSandboxInvariants},
	}
	rts = append(rts, s.sandboxPixOutRoutes()...)
	rts = append(rts, s.sandboxPixInRoutes()...)
	rts = append(rts, s.sandboxMEDRoutes()...)
	rts = append(rts, s.sandboxReceiverRoutes()...)
	rts = append(rts, s.sandboxRequestRoutes()...)
	rts = append(rts, s.sandboxListenRoutes()...)
	rts = append(rts,
		&Route{Name: "sandbox.registration.get", Method: http.MethodGet, Path: "/_sandbox/webhook-registration", Success: http.StatusOK, Handle: s.handleSandboxRegistration},
		&Route{Name: "sandbox.registration.put", Method: http.MethodPut, Path: "/_sandbox/webhook-registration", Success: http.StatusOK, Handle: s.handleSandboxRegistration})
	for _, rt := range rts {
		rt.Public, rt.Admin = true, true
	}
	return rts
}

type clockDTO struct {
	Now             string `json:"now"`
	Mode            string `json:"mode"`
	JobsRun         *int   `json:"jobsRun,omitempty"`
	WebhooksPending *int   `json:"webhooksPending,omitempty"`
}

func newClockDTO(c pix.ClockReport, moved bool) clockDTO {
	d := clockDTO{Now: c.Now.UTC().Format(time.RFC3339Nano), Mode: c.Mode}
	if moved {
		n, w := c.JobsRun, c.WebhooksPending
		d.JobsRun, d.WebhooksPending = &n, &w
	}
	return d
}

func (s *Server) handleSandboxClockGet(*http.Request) (any, error) {
	return newClockDTO(s.sandbox.ClockNow(), false), nil
}

// delayRequest names a span of simulation time as {"seconds": N} or
// {"duration": "30m"} (Go duration syntax), exactly one of them.
type delayRequest struct {
	Seconds  *Number `json:"seconds"`
	Duration *string `json:"duration"`
}

func (d delayRequest) parse() (time.Duration, error) {
	bad := func(field, msg string) error {
		return pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: field, Message: msg})
	}
	switch {
	case d.Seconds != nil && d.Duration != nil:
		return 0, bad("seconds", "give seconds or duration, not both")
	case d.Seconds != nil:
		v, err := time.ParseDuration(d.Seconds.String() + "s")
		if err != nil || v < 0 {
			return 0, bad("seconds", "must be a non-negative number of seconds")
		}
		return v, nil
	case d.Duration != nil:
		v, err := time.ParseDuration(strings.TrimSpace(*d.Duration))
		if err != nil || v < 0 {
			return 0, bad("duration", `must be a non-negative duration such as "90s", "30m" or "72h"`)
		}
		return v, nil
	}
	return 0, bad("seconds", `is required: send {"seconds": N} or {"duration": "30m"}`)
}

// clockWait reads the optional "wait" of a clock move: absent or "jobs", or
// "webhooks".
func clockWait(w *string) (pix.ClockWait, error) {
	switch {
	case w == nil || *w == "jobs":
		return pix.ClockWaitJobs, nil
	case *w == string(pix.ClockWaitWebhooks):
		return pix.ClockWaitWebhooks, nil
	}
	return "", pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "wait", Message: `must be "jobs" (the default) or "webhooks"`})
}

func (s *Server) handleSandboxClockAdvance(r *http.Request) (any, error) {
	var req struct {
		Seconds  *Number `json:"seconds"`
		Duration *string `json:"duration"`
		Wait     *string `json:"wait"`
	}
	if err := decodeSandboxJSON(r, &req); err != nil {
		return nil, err
	}
	d, err := delayRequest{Seconds: req.Seconds, Duration: req.Duration}.parse()
	if err != nil {
		return nil, err
	}
	wait, err := clockWait(req.Wait)
	if err != nil {
		return nil, err
	}
	c, err := s.sandbox.AdvanceClock(r.Context(), d, wait)
	if err != nil {
		return nil, err
	}
	return newClockDTO(c, true), nil
}

func (s *Server) handleSandboxClockSet(r *http.Request) (any, error) {
	var req struct {
		Now  *string `json:"now"`
		Wait *string `json:"wait"`
	}
	if err := decodeSandboxJSON(r, &req); err != nil {
		return nil, err
	}
	if req.Now == nil {
		return nil, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "now", Message: "is required (ISO 8601, e.g. 2026-03-02T12:00:00Z)"})
	}
	t, err := parseTime(*req.Now, "now")
	if err != nil {
		return nil, err
	}
	wait, err := clockWait(req.Wait)
	if err != nil {
		return nil, err
	}
	c, err := s.sandbox.SetClock(r.Context(), t, wait)
	if err != nil {
		return nil, err
	}
	return newClockDTO(c, true), nil
}

type pixKeyDTO struct {
	Type string `json:"type"`
	Key  string `json:"key"`
}

type accountDTO struct {
	ID            int64       `json:"id"`
	Name          string      `json:"name"`
	Document      string      `json:"document"`
	Branch        string      `json:"branch"`
	AccountNumber string      `json:"accountNumber"`
	PixKeys       []pixKeyDTO `json:"pixKeys"`
	CreatedAt     string      `json:"createdAt"`
}

type createdAccountDTO struct {
	accountDTO
	ClientID     string    `json:"clientId"`
	ClientSecret string    `json:"clientSecret"`
	Certificate  string    `json:"certificate"`
	PrivateKey   string    `json:"privateKey"`
	Balance      brlNumber `json:"balance"`
}

func newAccountDTO(a pix.Account) accountDTO {
	keys := make([]pixKeyDTO, len(a.PixKeys))
	for i, k := range a.PixKeys {
		keys[i] = pixKeyDTO{Type: string(k.Type), Key: k.Key}
	}
	return accountDTO{ID: int64(a.ID), Name: a.Name, Document: a.Document, Branch: a.Branch,
		AccountNumber: a.AccountNumber, PixKeys: keys, CreatedAt: formatTime(a.CreatedAt)}
}

func (s *Server) handleSandboxAccountCreate(r *http.Request) (any, error) {
	var req struct {
		Name     *string `json:"name"`
		Document *string `json:"document"`
		Balance  *Number `json:"balance"`
	}
	if err := decodeSandboxJSON(r, &req); err != nil {
		return nil, err
	}
	var in pix.NewAccount
	if req.Name != nil {
		in.Name = *req.Name
	}
	if req.Document != nil {
		in.Document = *req.Document
	}
	if req.Balance != nil {
		c, err := pix.ParseDecimal(req.Balance.String())
		if err != nil {
			return nil, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "balance", Message: "must be a non-negative amount in BRL with at most 2 decimals: " + err.Error()})
		}
		in.Balance = c
	}
	out, err := s.sandbox.CreateAccount(r.Context(), in)
	if err != nil {
		return nil, err
	}
	return createdAccountDTO{
		accountDTO: newAccountDTO(out.Account), ClientID: out.ClientID, ClientSecret: out.ClientSecret,
		Certificate: string(out.Certificate.CertificatePEM), PrivateKey: string(out.Certificate.PrivateKeyPEM),
		Balance: brlNumber(out.Balance),
	}, nil
}

func (s *Server) handleSandboxAccountGet(r *http.Request) (any, error) {
	id, err := accountIDVar(r)
	if err != nil {
		return nil, err
	}
	a, b, err := s.sandbox.Account(r.Context(), id)
	if err != nil {
		return nil, err
	}
	return struct {
		accountDTO
		Balance balanceStandardResponse `json:"balance"`
	}{newAccountDTO(a), newBalanceStandard(b)}, nil
}

type accountOverviewDTO struct {
	accountDTO
	ClientIDs []string                `json:"clientIds"`
	Balance   balanceStandardResponse `json:"balance"`
}

// handleSandboxAccountList answers GET /_sandbox/accounts: every account with
// its balance and client ids, in id order.
func (s *Server) handleSandboxAccountList(r *http.Request) (any, error) {
	accts, err := s.sandbox.Accounts(r.Context())
	if err != nil {
		return nil, err
	}
	out := make([]accountOverviewDTO, len(accts))
	for i, a := range accts {
		ids := a.ClientIDs
		if ids == nil {
			ids = []string{}
		}
		out[i] = accountOverviewDTO{newAccountDTO(a.Account), ids, newBalanceStandard(a.Balance)}
	}
	return struct {
		Accounts []accountOverviewDTO `json:"accounts"`
	}{out}, nil
}

// handleSandboxAccountToken answers POST /_sandbox/accounts/{id}/token: an
// access token for the account without its credentials (same body as POST
// /api/auth/token).
func (s *Server) handleSandboxAccountToken(r *http.Request) (any, error) {
	id, err := accountIDVar(r)
	if err != nil {
		return nil, err
	}
	t, err := s.sandbox.SandboxToken(r.Context(), id)
	if err != nil {
		return nil, err
	}
	return newTokenResponse(t), nil
}

// handleSandboxReset answers POST /_sandbox/reset: every record dropped, the
// fixtures seeded again. The route is exclusive: it runs once the requests in
// flight are done, and requests that arrive meanwhile wait for it.
func (s *Server) handleSandboxReset(r *http.Request) (any, error) {
	if err := s.sandbox.Reset(r.Context()); err != nil {
		return nil, err
	}
	return map[string]string{"status": "reset"}, nil
}

type certificateDTO struct {
	Certificate string `json:"certificate"`
	PrivateKey  string `json:"privateKey"`
	Fingerprint string `json:"fingerprint"`
	NotBefore   string `json:"notBefore"`
	NotAfter    string `json:"notAfter"`
	Revoked     bool   `json:"revoked"`
}

func (s *Server) handleSandboxCertificateCreate(r *http.Request) (any, error) {
	id, err := accountIDVar(r)
	if err != nil {
		return nil, err
	}
	var req struct {
		NotBefore *string `json:"notBefore"`
		NotAfter  *string `json:"notAfter"`
		Revoked   *bool   `json:"revoked"`
	}
	if r.ContentLength != 0 {
		if err := decodeSandboxJSON(r, &req); err != nil {
			return nil, err
		}
	}
	var in pix.NewCertificate
	if req.NotBefore != nil {
		if in.NotBefore, err = parseTime(*req.NotBefore, "notBefore"); err != nil {
			return nil, err
		}
	}
	if req.NotAfter != nil {
		if in.NotAfter, err = parseTime(*req.NotAfter, "notAfter"); err != nil {
			return nil, err
		}
	}
	in.Revoked = req.Revoked != nil && *req.Revoked
	c, err := s.sandbox.AddCertificate(r.Context(), id, in)
	if err != nil {
		return nil, err
	}
	reg := c.Registration
	return certificateDTO{Certificate: string(c.CertificatePEM), PrivateKey: string(c.PrivateKeyPEM), Fingerprint: reg.Fingerprint,
		NotBefore: formatTime(reg.NotBefore), NotAfter: formatTime(reg.NotAfter), Revoked: reg.Revoked}, nil
}

type jobDTO struct {
	ID     string `json:"id"`
	Kind   string `json:"kind,omitempty"`
	Due    string `json:"due,omitempty"`
	Status string `json:"status"`
	RanAt  string `json:"ranAt,omitempty"`
	Note   string `json:"note,omitempty"`
}

func newJobDTO(j pix.JobReport) jobDTO {
	d := jobDTO{ID: j.ID, Kind: j.Kind, Status: string(j.Status), Note: j.Note}
	if !j.Due.IsZero() {
		d.Due = formatTime(j.Due)
	}
	if !j.RanAt.IsZero() {
		d.RanAt = formatTime(j.RanAt)
	}
	if d.Kind == "sandbox.marker" {
		d.Kind = "marker"
	}
	return d
}

func (s *Server) handleSandboxJobCreate(r *http.Request) (any, error) {
	var req struct {
		Kind *string `json:"kind"`
		Note *string `json:"note"`
		delayRequest
	}
	if err := decodeSandboxJSON(r, &req); err != nil {
		return nil, err
	}
	if req.Kind != nil && *req.Kind != "marker" {
		return nil, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "kind", Message: `must be "marker": the only job kind the control plane schedules`})
	}
	d, err := req.parse()
	if err != nil {
		return nil, err
	}
	note := ""
	if req.Note != nil {
		note = *req.Note
	}
	if len(note) > 200 {
		return nil, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "note", Message: "must be at most 200 characters"})
	}
	j, err := s.sandbox.ScheduleMarker(r.Context(), d, note)
	if err != nil {
		return nil, err
	}
	return newJobDTO(j), nil
}

func (s *Server) handleSandboxJobList(r *http.Request) (any, error) {
	jobs, err := s.sandbox.PendingJobs(r.Context(), 1000)
	if err != nil {
		return nil, err
	}
	out := make([]jobDTO, len(jobs))
	for i, j := range jobs {
		out[i] = newJobDTO(j)
	}
	b, err := s.sandbox.JobBacklog(r.Context())
	if err != nil {
		return nil, err
	}
	backlog := backlogDTO{Due: b.Due, LagSeconds: b.Lag.Seconds(), WebhooksPending: b.WebhooksPending}
	if !b.OldestDue.IsZero() {
		t := wire.Time(b.OldestDue)
		backlog.OldestDue = &t
	}
	return map[string]any{"data": out, "backlog": backlog}, nil
}

// backlogDTO is how far the job runner is behind the simulation clock.
type backlogDTO struct {
	Due             int     `json:"due"`
	OldestDue       *string `json:"oldestDue"`
	LagSeconds      float64 `json:"lagSeconds"`
	WebhooksPending int     `json:"webhooksPending"`
}

func (s *Server) handleSandboxJobGet(r *http.Request) (any, error) {
	j, err := s.sandbox.Job(r.Context(), mux.Vars(r)["id"])
	if err != nil {
		return nil, err
	}
	return newJobDTO(j), nil
}

func (s *Server) handleSandboxScenarios(*http.Request) (any, error) {
	type scenarioDTO struct {
		Name       string   `json:"name"`
		Summary    string   `json:"summary"`
		Operations []string `json:"operations"`
		Phase      string   `json:"phase"`
		Code       string   `json:"code"`
		Spec       string   `json:"spec"`
	}
	all := scenarios.All()
	out := make([]scenarioDTO, len(all))
	for i, sc := range all {
		ops := make([]string, len(sc.Operations))
		for j, o := range sc.Operations {
			ops[j] = string(o)
		}
		out[i] = scenarioDTO{Name: sc.Name, Summary: sc.Summary, Operations: ops, Phase: sc.Phase.String(), Code: string(sc.Code), Spec: sc.Spec}
	}
	return map[string]any{"header": scenarios.Header, "data": out}, nil
}

func (s *Server) handleSandboxInvariants(r *http.Request) (any, error) {
	rep, err := s.sandbox.CheckInvariants(r.Context())
	if err != nil {
		return nil, err
	}
	violations := rep.Violations
	if violations == nil {
		violations = []string{}
	}
	return map[string]any{
		"ok": len(rep.Violations) == 0, "checkedAt": formatTime(rep.At), "accounts": rep.Accounts,
		"entries": rep.Entries, "transactions": rep.Transactions, "refunds": rep.Refunds,
		"moneyInside": brlNumber(rep.Inside), "world": brlNumber(rep.World), "violations": violations,
	}, nil
}

func accountIDVar(r *http.Request) (pix.AccountID, error) {
	n, err := strconv.ParseInt(mux.Vars(r)["id"], 10, 64)
	if err != nil || n <= 0 {
		return 0, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "id", Message: "must be a positive account number"})
	}
	return pix.AccountID(n), nil
}

func parseTime(s, field string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(s))
	if err != nil {
		return time.Time{}, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: field, Message: "must be an ISO 8601 date-time with a zone, e.g. 2026-03-02T12:00:00Z"})
	}
	return t.UTC(), nil
}
