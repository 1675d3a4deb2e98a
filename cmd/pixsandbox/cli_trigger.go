package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/pixsandbox/pixsandbox/fixtures"
	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/sandboxclient"
)

const triggerUsage = `Usage:
  pixsandbox trigger SCENARIO [--account N] [--operation OP] [--key KEY] [--amount 10.00]

Creates a transaction that runs the X-Sandbox-Scenario SCENARIO (docs/scenarios.md,
GET /_sandbox/scenarios) for account N (default 1), with one valid request of
an operation that honours it, the header set:

  cashout.create   POST /api/pix/cash-out to KEY (a DICT key outside the sandbox)
  cashin.create    POST /api/pix/cash-in (SPLIT_FAILURE: with a 10% immediate split
                   to KEY); SPLIT_FAILURE and MED_* charges are then paid through
                   POST /_sandbox/payments, since they act once paid
  transfer.create  POST /dict/pix to KEY
  cob.put          PUT /cob/{txid} (MED_*: then paid)
  refund.create    a PIX received through POST /_sandbox/pix-in, then refunded in
                   full with POST /api/pix/refund-in/{id}
  auth.token       POST /api/auth/token with a fixture certificate

The operation is the first of that list the scenario honours, unless --operation
names another. Tokens come from the control plane. Prints what was created (the
transaction, its status) and how to watch it; a scenario that rejects the
request prints the rejection and exits 0. With --json it prints the raw answer
of the request that carried the header.
`

// triggerOps are the operations trigger drives, in the order it prefers them.
var triggerOps = []scenarios.Operation{
	scenarios.OpCashOut, scenarios.OpCashIn, scenarios.OpTransfer, scenarios.OpCob, scenarios.OpRefund, scenarios.OpAuthToken,
}

// cliAmount is an amount of --amount: BRL with at most 2 decimals.
var cliAmount = regexp.MustCompile(`^([0-9]{1,10})(?:\.([0-9]{1,2}))?$`)

// cliTrig is one trigger run.
type cliTrig struct {
	cc      *cliCmd
	s       scenarios.Scenario
	op      scenarios.Operation
	account int64
	amount  string // 2 decimals
	key     string
	tok     string

	raw      []byte   // the answer to the request that carried the scenario
	rejected bool     // the scenario rejected that request, as it should
	lines    []string // what was created
	txnID    string   // the control-plane transaction to follow, if any
	expiry   time.Duration
}

func cliTrigger(ctx context.Context, env cliEnv, args []string) int {
	cc := newCLICmd(env, "trigger", triggerUsage)
	account := cc.fs.Int64("account", 1, "account the transaction belongs to")
	op := cc.fs.String("operation", "", "operation to use among those the scenario honours: cashout.create, cashin.create, transfer.create, cob.put, refund.create or auth.token")
	key := cc.fs.String("key", "", "DICT key paid by a cash-out, transfer or split (default: the first e-mail key of fixtures/dict.json)")
	amount := cc.fs.String("amount", "10.00", "amount in BRL")
	pos, code, done := cc.parse(args)
	if done {
		return code
	}
	if len(pos) != 1 {
		return cc.usageError("name one SCENARIO; known scenarios: %s", scenarioNames())
	}
	name := strings.ToUpper(strings.ReplaceAll(pos[0], "-", "_"))
	s, ok := scenarios.Lookup(name)
	if !ok {
		return cc.usageError("unknown scenario %q; known scenarios: %s", pos[0], scenarioNames())
	}
	m := cliAmount.FindStringSubmatch(*amount)
	if m == nil {
		return cc.usageError("--amount %q must be BRL with at most 2 decimals, e.g. 10.00", *amount)
	}
	whole, _ := strconv.ParseInt(m[1], 10, 64)
	cents := m[2] + strings.Repeat("0", 2-len(m[2]))
	if *account < 1 {
		return cc.usageError("--account must be a positive account id, not %d", *account)
	}
	t := &cliTrig{cc: cc, s: s, account: *account, amount: fmt.Sprintf("%d.%s", whole, cents), key: *key}
	if *op != "" {
		t.op = scenarios.Operation(*op)
		if !s.Honours(t.op) {
			return cc.usageError("%s does not apply to %s; it applies to %s", s.Name, *op, joinOps(s.Operations))
		}
		if !supportedOp(t.op) {
			return cc.fail(fmt.Errorf("pixsandbox trigger cannot drive %s; send the header %s: %s on that request yourself", *op, scenarios.Header, s.Name))
		}
	} else {
		for _, o := range triggerOps {
			if s.Honours(o) {
				t.op = o
				break
			}
		}
		if t.op == "" {
			return cc.fail(fmt.Errorf("pixsandbox trigger cannot drive %s: it applies to %s, which this command does not send. "+
				"Send the header %s: %s on such a request yourself (docs/scenarios.md)", s.Name, joinOps(s.Operations), scenarios.Header, s.Name))
		}
	}
	if err := t.run(ctx); err != nil {
		return cc.fail(err)
	}
	if cc.json {
		cc.printRaw(t.raw)
		return cliExitOK
	}
	t.print()
	return cliExitOK
}

func scenarioNames() string {
	var names []string
	for _, s := range scenarios.All() {
		names = append(names, s.Name)
	}
	return strings.Join(names, ", ")
}

func joinOps(ops []scenarios.Operation) string {
	s := make([]string, len(ops))
	for i, o := range ops {
		s[i] = string(o)
	}
	return strings.Join(s, ", ")
}

func supportedOp(op scenarios.Operation) bool {
	for _, o := range triggerOps {
		if o == op {
			return true
		}
	}
	return false
}

func (t *cliTrig) run(ctx context.Context) error {
	switch t.op {
	case scenarios.OpCashOut:
		return t.cashOut(ctx)
	case scenarios.OpTransfer:
		return t.transfer(ctx)
	case scenarios.OpCashIn:
		return t.cashIn(ctx)
	case scenarios.OpCob:
		return t.cob(ctx)
	case scenarios.OpRefund:
		return t.refund(ctx)
	case scenarios.OpAuthToken:
		return t.authToken(ctx)
	}
	return fmt.Errorf("pixsandbox trigger cannot drive %s", t.op)
}

// send makes the request that carries the scenario. A rejection the scenario
// asks for is recorded (rejected true), not returned as an error.
func (t *cliTrig) send(ctx context.Context, method, path string, body any, header map[string]string, ok int, out any) (bool, error) {
	h := map[string]string{scenarios.Header: t.s.Name}
	for k, v := range header {
		h[k] = v
	}
	r, err := t.cc.client.Do(ctx, method, path, body, h)
	if err != nil {
		return false, err
	}
	t.raw = r.Body
	if r.Status == ok {
		if t.s.Phase == scenarios.AtRequest {
			return false, fmt.Errorf("%s %s answered %d: the server accepted the request, so %s did not apply (is the simulator an older version?)", method, path, r.Status, t.s.Name)
		}
		if err := r.Decode(out); err != nil {
			return false, err
		}
		return false, nil
	}
	herr := t.cc.client.HTTPError(r)
	asked := t.s.Phase == scenarios.AtRequest && r.Status >= 400 &&
		(herr.Code == "" || herr.Code == string(t.s.Code)) && (herr.Code != string(pix.CodeHTTPError) || r.Status >= 500)
	if !asked {
		return false, herr
	}
	t.rejected = true
	t.lines = append(t.lines, fmt.Sprintf("%s %s was rejected, as the scenario asks: %d %s", method, path, r.Status, http.StatusText(r.Status)))
	if herr.Code != "" {
		t.lines[len(t.lines)-1] += " " + herr.Code
	}
	if herr.Message != "" && herr.Message != t.s.Summary {
		t.lines = append(t.lines, "  "+herr.Message)
	}
	t.lines = append(t.lines, "Nothing was created.")
	return true, nil
}

func (t *cliTrig) token(ctx context.Context) (map[string]string, error) {
	if t.tok == "" {
		tok, err := t.cc.sandboxToken(ctx, t.account)
		if err != nil {
			return nil, err
		}
		t.tok = tok
	}
	return map[string]string{"Authorization": "Bearer " + t.tok}, nil
}

func (t *cliTrig) externalID() string {
	return "cli-" + strings.ToLower(strings.ReplaceAll(t.s.Name, "_", "-")) + "-" + randomHex(6)
}

func (t *cliTrig) description() string { return "pixsandbox trigger " + t.s.Name }

// cliDictEntry is a key of the simulator's DICT directory.
type cliDictEntry sandboxclient.DictEntry

// destination resolves --key (default: a key of fixtures/dict.json at another
// institution) in the simulator's DICT directory, for the holder's name and
// document a valid payment must carry.
func (t *cliTrig) destination(ctx context.Context) (cliDictEntry, error) {
	key := t.key
	if key == "" {
		key = defaultTriggerKey()
	}
	e, err := t.cc.client.DictKey(ctx, key)
	if sandboxclient.IsStatus(err, http.StatusNotFound) {
		return cliDictEntry(e), fmt.Errorf("the key %q is not in the simulator's DICT directory: pass --key with a key of fixtures/dict.json, or add one with POST /_sandbox/dict/keys", key)
	}
	return cliDictEntry(e), err
}

// defaultTriggerKey is the first e-mail key of the fixture DICT directory that
// forces no scenario.
func defaultTriggerKey() string {
	if set, err := fixtures.Embedded(); err == nil {
		for _, k := range set.DICT() {
			if k.Type == "EMAIL" && k.Scenario == "" {
				return k.Key
			}
		}
	}
	return "dane.powell@example.net"
}

// cashOutKey is the key and keyType of a cash-out to e (phones without +55,
// EVPs as RANDOM, CPF and CNPJ as DOCUMENT).
func (e cliDictEntry) cashOutKey() (key, keyType string) {
	switch e.Type {
	case "CPF", "CNPJ":
		return e.Key, "DOCUMENT"
	case "PHONE":
		return strings.TrimPrefix(e.Key, "+55"), "PHONE"
	case "EVP":
		return e.Key, "RANDOM"
	}
	return e.Key, e.Type
}

func (t *cliTrig) transaction(ctx context.Context, ref string) (sandboxclient.Transaction, error) {
	x, err := t.cc.client.Transaction(ctx, ref)
	t.txnID = x.ID.String()
	return x, err
}

// payee is the destination of a PIX out and the account's auth headers.
func (t *cliTrig) payee(ctx context.Context) (cliDictEntry, map[string]string, error) {
	dest, err := t.destination(ctx)
	if err != nil {
		return dest, nil, err
	}
	auth, err := t.token(ctx)
	return dest, auth, err
}

func (t *cliTrig) cashOut(ctx context.Context) error {
	dest, auth, err := t.payee(ctx)
	if err != nil {
		return err
	}
	key, keyType := dest.cashOutKey()
	var ans struct {
		TransactionID string `json:"transactionId"`
		ExternalID    string `json:"externalId"`
	}
	body := map[string]any{
		"value": json.Number(t.amount), "externalId": t.externalID(), "description": t.description(),
		"details": map[string]string{"key": key, "keyType": keyType, "name": dest.Name, "document": dest.Document},
	}
	if rejected, err := t.send(ctx, http.MethodPost, "/api/pix/cash-out", body, auth, http.StatusCreated, &ans); err != nil || rejected {
		return err
	}
	x, err := t.transaction(ctx, ans.TransactionID)
	if err != nil {
		return err
	}
	t.lines = append(t.lines, fmt.Sprintf("created cash-out transaction %s (%s, externalId %s): %s to %s (%s): %s",
		x.ID, ans.TransactionID, ans.ExternalID, t.amount, dest.Key, dest.Name, x.Status))
	return nil
}

func (t *cliTrig) transfer(ctx context.Context) error {
	dest, auth, err := t.payee(ctx)
	if err != nil {
		return err
	}
	auth["x-idempotency-key"] = uuid.NewString()
	var ans struct {
		ID json.Number `json:"id"`
	}
	body := map[string]any{"pixKey": dest.Key, "description": t.description(),
		"payment": map[string]any{"currency": "BRL", "amount": json.Number(t.amount)}}
	if rejected, err := t.send(ctx, http.MethodPost, "/dict/pix", body, auth, http.StatusOK, &ans); err != nil || rejected {
		return err
	}
	x, err := t.transaction(ctx, ans.ID.String())
	if err != nil {
		return err
	}
	t.lines = append(t.lines, fmt.Sprintf("created DICT transfer transaction %s: %s to %s (%s): %s", x.ID, t.amount, dest.Key, dest.Name, x.Status))
	return nil
}

// expirationFor is a short expiration for LATE_PAYMENT, so one clock advance
// shows it: the account's provider minimum (at least 60 s); else 0 (the
// route's default).
func (t *cliTrig) expirationFor(ctx context.Context, cashIn bool) (int64, error) {
	if !t.s.AfterExpiry {
		return 0, nil
	}
	secs := int64(60)
	if cashIn {
		var st struct {
			MinExpirationTime json.Number `json:"minExpirationTime"`
		}
		if err := t.cc.client.AccountSettings(ctx, t.account, &st); err != nil {
			return 0, err
		}
		if n, err := st.MinExpirationTime.Int64(); err == nil && n > secs {
			secs = n
		}
	}
	t.expiry = time.Duration(secs) * time.Second
	return secs, nil
}

// paysItself reports whether trigger pays the charge: the scenario acts once
// the charge is paid and no payer of its own comes.
func (t *cliTrig) paysItself() bool {
	return t.s.Phase == scenarios.Splits || t.s.Phase == scenarios.MED
}

func (t *cliTrig) cashIn(ctx context.Context) error {
	exp, err := t.expirationFor(ctx, true)
	if err != nil {
		return err
	}
	txn := map[string]any{"value": json.Number(t.amount), "description": t.description(), "externalId": t.externalID()}
	if exp > 0 {
		txn["expirationTime"] = exp
	}
	body := map[string]any{"transaction": txn, "payer": map[string]string{"fullName": "Pagador da Silva", "document": "52998224725"}}
	var dest cliDictEntry
	if t.s.Phase == scenarios.Splits {
		if dest, err = t.destination(ctx); err != nil {
			return err
		}
		keyType := dest.Type
		if keyType == "EVP" {
			keyType = "RANDOM"
		}
		body["splits"] = []map[string]any{{"pixKey": dest.Key, "pixKeyType": keyType, "name": dest.Name, "document": dest.Document,
			"type": "PERCENTAGE", "value": 10, "immediate": true}}
	}
	auth, err := t.token(ctx)
	if err != nil {
		return err
	}
	var ans struct {
		TransactionID  string `json:"transactionId"`
		ExternalID     string `json:"externalId"`
		ExpirationDate string `json:"expirationDate"`
	}
	if rejected, err := t.send(ctx, http.MethodPost, "/api/pix/cash-in", body, auth, http.StatusCreated, &ans); err != nil || rejected {
		return err
	}
	line := fmt.Sprintf("created cash-in charge transaction %s (externalId %s): %s, expires at %s", ans.TransactionID, ans.ExternalID, t.amount, ans.ExpirationDate)
	if t.s.Phase == scenarios.Splits {
		line += fmt.Sprintf(", a 10%% immediate split to %s", dest.Key)
	}
	t.lines = append(t.lines, line)
	if t.paysItself() {
		if err := t.pay(ctx, map[string]string{"transactionId": ans.TransactionID}); err != nil {
			return err
		}
	}
	x, err := t.transaction(ctx, ans.TransactionID)
	if err != nil {
		return err
	}
	t.lines = append(t.lines, fmt.Sprintf("charge %s is %s", x.ID, x.Status))
	return nil
}

// pay pays the charge through the control plane, as a payer's bank would.
func (t *cliTrig) pay(ctx context.Context, charge map[string]string) error {
	p, _, err := t.cc.client.Pay(ctx, charge)
	if err != nil {
		return fmt.Errorf("paying the charge: %w", err)
	}
	t.lines = append(t.lines, fmt.Sprintf("paid it through POST /_sandbox/payments: endToEndId %s, transaction %s, %s", p.EndToEndID, p.TransactionID, p.Amount))
	t.txnID = p.TransactionID
	return nil
}

func (t *cliTrig) cob(ctx context.Context) error {
	exp, err := t.expirationFor(ctx, false)
	if err != nil {
		return err
	}
	txid := randomHex(16)
	body := map[string]any{"valor": map[string]string{"original": t.amount}, "solicitacaoPagador": t.description()}
	if exp > 0 {
		body["calendario"] = map[string]int64{"expiracao": exp}
	} else {
		body["calendario"] = map[string]any{}
	}
	auth, err := t.token(ctx)
	if err != nil {
		return err
	}
	var ans struct {
		TxID       string `json:"txid"`
		Status     string `json:"status"`
		Calendario struct {
			Expiracao json.Number `json:"expiracao"`
		} `json:"calendario"`
	}
	if rejected, err := t.send(ctx, http.MethodPut, "/cob/"+txid, body, auth, http.StatusCreated, &ans); err != nil || rejected {
		return err
	}
	t.lines = append(t.lines, fmt.Sprintf("created cob %s: %s, expires %s s after creation: %s", ans.TxID, t.amount, ans.Calendario.Expiracao, ans.Status))
	if t.paysItself() {
		if err := t.pay(ctx, map[string]string{"txid": ans.TxID}); err != nil {
			return err
		}
		x, err := t.transaction(ctx, t.txnID)
		if err != nil {
			return err
		}
		t.lines = append(t.lines, fmt.Sprintf("the payment is %s transaction %s, %s", x.Kind, x.ID, x.Status))
	} else {
		t.lines = append(t.lines, fmt.Sprintf("see it: curl -s %s/cob/%s -H \"Authorization: Bearer $(%s)\"", t.cc.client.Base, ans.TxID, t.cc.self(fmt.Sprintf("token --account %d", t.account))))
	}
	return nil
}

func (t *cliTrig) refund(ctx context.Context) error {
	var acct struct {
		PixKeys []struct {
			Key string `json:"key"`
		} `json:"pixKeys"`
	}
	if err := t.cc.client.Account(ctx, t.account, &acct); err != nil {
		return err
	}
	if len(acct.PixKeys) == 0 {
		return fmt.Errorf("account %d has no PIX key to receive the PIX to refund", t.account)
	}
	in, err := t.cc.client.PixIn(ctx, map[string]any{"key": acct.PixKeys[0].Key, "amount": json.Number(t.amount)})
	if err != nil {
		return fmt.Errorf("receiving the PIX to refund: %w", err)
	}
	t.lines = append(t.lines, fmt.Sprintf("received PIX transaction %s through POST /_sandbox/pix-in: %s to %s, endToEndId %s", in.TransactionID, in.Amount, acct.PixKeys[0].Key, in.EndToEndID))
	auth, err := t.token(ctx)
	if err != nil {
		return err
	}
	var ans struct {
		TransactionID string `json:"transactionId"`
		ExternalID    string `json:"externalId"`
		Status        string `json:"status"`
	}
	body := map[string]any{"refundValue": in.FinalAmount, "externalId": "cli" + randomHex(8), "reason": t.description()}
	if rejected, err := t.send(ctx, http.MethodPost, "/api/pix/refund-in/"+in.TransactionID, body, auth, http.StatusCreated, &ans); err != nil || rejected {
		return err
	}
	x, err := t.transaction(ctx, ans.TransactionID)
	if err != nil {
		return err
	}
	t.lines = append(t.lines, fmt.Sprintf("created refund transaction %s (%s, externalId %s) of %s: %s", x.ID, x.Kind, ans.ExternalID, in.FinalAmount, x.Status))
	return nil
}

// authToken asks for a token with a fixture certificate and credentials (the
// account's when it is a fixture account): the upstream scenarios answer
// before the credentials are checked.
func (t *cliTrig) authToken(ctx context.Context) error {
	set, err := fixtures.Embedded()
	if err != nil || len(set.Accounts) == 0 {
		return fmt.Errorf("the embedded fixtures have no account certificate: %v", err)
	}
	a := set.Accounts[0]
	for _, x := range set.Accounts {
		if x.ID == t.account {
			a = x
		}
	}
	pem, err := set.ReadFile(a.Certificate)
	if err != nil {
		return err
	}
	var ans sandboxclient.Token
	_, err = t.send(ctx, http.MethodPost, "/api/auth/token", map[string]string{"clientId": a.ClientID, "clientSecret": a.ClientSecret},
		map[string]string{"X-SSL-Client-Cert": pix.EncodeCertHeader(pem)}, http.StatusCreated, &ans)
	return err
}

// print writes the human summary: what was created and how to watch it.
func (t *cliTrig) print() {
	cc := t.cc
	cc.printf("%s (%s) on account %d through %s:\n", t.s.Name, t.s.Phase, t.account, t.op)
	for _, l := range t.lines {
		cc.printf("  %s\n", l)
	}
	cc.printf("  %s\n", t.s.Summary)
	if t.rejected {
		return
	}
	type step struct{ cmd, why string }
	steps := []step{{cc.self(fmt.Sprintf("webhooks tail --account %d", t.account)), "in another terminal: its webhooks as they go out"}}
	advance := func(d time.Duration, why string) {
		steps = append(steps, step{cc.self("clock advance " + shortDuration(d)), why})
	}
	s := t.s
	switch {
	case s.Phase == scenarios.AtSettlement:
		advance(5*time.Second, fmt.Sprintf("past the settlement delay (--settlement-delay, 2s by default): ERROR %s", s.Code))
	case s.Phase == scenarios.Timing && s.Never && t.txnID != "":
		steps = append(steps, step{fmt.Sprintf("curl -s -X POST %s/_sandbox/transactions/%s/settle", cc.client.Base, t.txnID),
			"it never settles by itself: force it (or /fail with {\"errorCode\":\"ORDER_REJECTED\"})"})
	case s.Phase == scenarios.Timing:
		advance(s.Delay, "it settles "+shortDuration(s.Delay)+" after acceptance")
	case s.Phase == scenarios.Payer && s.AfterExpiry:
		advance(t.expiry+s.Delay, "it expires, then a late payment arrives and is refused")
	case s.Phase == scenarios.Payer:
		advance(s.Delay, "the payer pays it "+shortDuration(s.Delay)+" after creation")
	case s.Phase == scenarios.Splits:
		advance(5*time.Second, "its splits settle after the settlement delay and fail with "+string(s.SplitFailure))
	case s.Phase == scenarios.MED:
		advance(s.Delay, "the payer's bank opens the MED "+shortDuration(s.Delay)+" after the payment; advance further for its analysis and refund")
	}
	if t.txnID != "" {
		steps = append(steps, step{fmt.Sprintf("curl -s %s/_sandbox/transactions/%s", cc.client.Base, t.txnID), "its state"})
	}
	if s.Phase == scenarios.MED {
		steps = append(steps, step{fmt.Sprintf("curl -s %s/api/med -H \"Authorization: Bearer $(%s)\"", cc.client.Base, cc.self(fmt.Sprintf("token --account %d", t.account))), "the account's MEDs"})
	}
	width := 0
	for _, st := range steps {
		if len(st.cmd) <= 60 {
			width = max(width, len(st.cmd))
		}
	}
	cc.printf("Watch it:\n")
	for _, st := range steps {
		cc.printf("  %-*s  # %s\n", width, st.cmd, st.why)
	}
}

// shortDuration writes d with only its non-zero units: 1h, 24h, 1m1s, 5m.
// Spans with a fraction of a second are written as Go writes them.
func shortDuration(d time.Duration) string {
	if d <= 0 || d%time.Second != 0 {
		return d.String()
	}
	var b strings.Builder
	for _, u := range []struct {
		unit time.Duration
		name string
	}{{time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}} {
		if n := d / u.unit; n > 0 {
			fmt.Fprintf(&b, "%d%s", n, u.name)
			d -= n * u.unit
		}
	}
	return b.String()
}

// randomHex returns n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
