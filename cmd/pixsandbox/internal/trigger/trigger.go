// Package trigger drives a running simulator over HTTP for pixsandbox
// trigger. For a scenario (Run): one valid request of an operation that
// honours it, sent with X-Sandbox-Scenario, and what it takes around it (a
// DICT destination, a token from the control plane, a payment of the
// charge). For an event (Event): POST /_sandbox/events/{event}, whose recipe
// runs on the server, then the first attempts of its webhook's deliveries,
// and the summary and --list the command prints.
package trigger

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/pixsandbox/pixsandbox/fixtures"
	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/events"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/sandboxclient"
)

// Ops are the operations a Run drives, in the order it prefers them.
var Ops = []scenarios.Operation{
	scenarios.OpCashOut, scenarios.OpCashIn, scenarios.OpTransfer, scenarios.OpCob, scenarios.OpRefund, scenarios.OpAuthToken,
}

// Supported reports whether a Run can drive op.
func Supported(op scenarios.Operation) bool {
	for _, o := range Ops {
		if o == op {
			return true
		}
	}
	return false
}

// Run is one trigger: the scenario, the operation and the account, then what
// Do created.
type Run struct {
	Client   *sandboxclient.Client
	Scenario scenarios.Scenario
	Op       scenarios.Operation
	Account  int64
	Amount   string // BRL, 2 decimals
	Key      string // the DICT key paid; empty: a key of fixtures/dict.json
	// TokenCommand is the shell command that prints a token of the account,
	// quoted in the hint after a cob.
	TokenCommand string

	Raw      []byte        // the answer to the request that carried the scenario
	Rejected bool          // the scenario rejected that request, as it should
	Lines    []string      // what was created
	TxnID    string        // the control-plane transaction to follow, if any
	Expiry   time.Duration // the charge's expiration, with a late-payment scenario

	tok string
}

// accountToken returns an access token for the account through the control plane.
func (t *Run) accountToken(ctx context.Context) (string, error) {
	ans, _, err := t.Client.AccountToken(ctx, t.Account)
	return ans.AccessToken, err
}

// Do sends the request that carries the scenario, and those around it (a
// destination looked up, a token, a charge paid), recording what was created.
func (t *Run) Do(ctx context.Context) error {
	switch t.Op {
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
	return fmt.Errorf("pixsandbox trigger cannot drive %s", t.Op)
}

// send makes the request that carries the scenario. A rejection the scenario
// asks for is recorded (rejected true), not returned as an error.
func (t *Run) send(ctx context.Context, method, path string, body any, header map[string]string, ok int, out any) (bool, error) {
	h := map[string]string{scenarios.Header: t.Scenario.Name}
	for k, v := range header {
		h[k] = v
	}
	r, err := t.Client.Do(ctx, method, path, body, h)
	if err != nil {
		return false, err
	}
	t.Raw = r.Body
	if r.Status == ok {
		if t.Scenario.Phase == scenarios.AtRequest {
			return false, fmt.Errorf("%s %s answered %d: the server accepted the request, so %s did not apply (is the simulator an older version?)", method, path, r.Status, t.Scenario.Name)
		}
		if err := r.Decode(out); err != nil {
			return false, err
		}
		return false, nil
	}
	herr := t.Client.HTTPError(r)
	asked := t.Scenario.Phase == scenarios.AtRequest && r.Status >= 400 &&
		(herr.Code == "" || herr.Code == string(t.Scenario.Code)) && (herr.Code != string(pix.CodeHTTPError) || r.Status >= 500)
	if !asked {
		return false, herr
	}
	t.Rejected = true
	t.Lines = append(t.Lines, fmt.Sprintf("%s %s was rejected, as the scenario asks: %d %s", method, path, r.Status, http.StatusText(r.Status)))
	if herr.Code != "" {
		t.Lines[len(t.Lines)-1] += " " + herr.Code
	}
	if herr.Message != "" && herr.Message != t.Scenario.Summary {
		t.Lines = append(t.Lines, "  "+herr.Message)
	}
	t.Lines = append(t.Lines, "Nothing was created.")
	return true, nil
}

// sendAsAccount is send with the account's token.
func (t *Run) sendAsAccount(ctx context.Context, method, path string, body any, ok int, out any) (bool, error) {
	auth, err := t.token(ctx)
	if err != nil {
		return false, err
	}
	return t.send(ctx, method, path, body, auth, ok, out)
}

func (t *Run) token(ctx context.Context) (map[string]string, error) {
	if t.tok == "" {
		tok, err := t.accountToken(ctx)
		if err != nil {
			return nil, err
		}
		t.tok = tok
	}
	return map[string]string{"Authorization": "Bearer " + t.tok}, nil
}

func (t *Run) externalID() string {
	return "cli-" + strings.ToLower(strings.ReplaceAll(t.Scenario.Name, "_", "-")) + "-" + randomHex(6)
}

func (t *Run) description() string { return "pixsandbox trigger " + t.Scenario.Name }

// dictEntry is a key of the simulator's DICT directory.
type dictEntry sandboxclient.DictEntry

// destination resolves --key (default: a key of fixtures/dict.json at another
// institution) in the simulator's DICT directory, for the holder's name and
// document a valid payment must carry.
func (t *Run) destination(ctx context.Context) (dictEntry, error) {
	key := t.Key
	if key == "" {
		key = defaultKey()
	}
	e, err := t.Client.DictKey(ctx, key)
	if sandboxclient.IsStatus(err, http.StatusNotFound) {
		return dictEntry(e), fmt.Errorf("the key %q is not in the simulator's DICT directory: pass --key with a key of fixtures/dict.json, or add one with POST /_sandbox/dict/keys", key)
	}
	return dictEntry(e), err
}

// defaultKey is the first e-mail key of the fixture DICT directory that
// forces no scenario, as the events' recipes take it.
func defaultKey() string { return events.DefaultKey() }

// cashOutKey is the key and keyType of a cash-out to e (phones without +55,
// EVPs as RANDOM, CPF and CNPJ as DOCUMENT).
func (e dictEntry) cashOutKey() (key, keyType string) {
	k, t := pix.CashOutKeyFor(pix.KeyType(e.Type), e.Key)
	return k, string(t)
}

func (t *Run) transaction(ctx context.Context, ref string) (sandboxclient.Transaction, error) {
	x, err := t.Client.Transaction(ctx, ref)
	t.TxnID = x.ID.String()
	return x, err
}

// payee is the destination of a PIX out and the account's auth headers.
func (t *Run) payee(ctx context.Context) (dictEntry, map[string]string, error) {
	dest, err := t.destination(ctx)
	if err != nil {
		return dest, nil, err
	}
	auth, err := t.token(ctx)
	return dest, auth, err
}

func (t *Run) cashOut(ctx context.Context) error {
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
		"value": json.Number(t.Amount), "externalId": t.externalID(), "description": t.description(),
		"details": map[string]string{"key": key, "keyType": keyType, "name": dest.Name, "document": dest.Document},
	}
	if rejected, err := t.send(ctx, http.MethodPost, "/api/pix/cash-out", body, auth, http.StatusCreated, &ans); err != nil || rejected {
		return err
	}
	x, err := t.transaction(ctx, ans.TransactionID)
	if err != nil {
		return err
	}
	t.Lines = append(t.Lines, fmt.Sprintf("created cash-out transaction %s (%s, externalId %s): %s to %s (%s): %s",
		x.ID, ans.TransactionID, ans.ExternalID, t.Amount, dest.Key, dest.Name, x.Status))
	return nil
}

func (t *Run) transfer(ctx context.Context) error {
	dest, auth, err := t.payee(ctx)
	if err != nil {
		return err
	}
	auth["x-idempotency-key"] = uuid.NewString()
	var ans struct {
		ID json.Number `json:"id"`
	}
	body := map[string]any{"pixKey": dest.Key, "description": t.description(),
		"payment": map[string]any{"currency": "BRL", "amount": json.Number(t.Amount)}}
	if rejected, err := t.send(ctx, http.MethodPost, "/dict/pix", body, auth, http.StatusOK, &ans); err != nil || rejected {
		return err
	}
	x, err := t.transaction(ctx, ans.ID.String())
	if err != nil {
		return err
	}
	t.Lines = append(t.Lines, fmt.Sprintf("created DICT transfer transaction %s: %s to %s (%s): %s", x.ID, t.Amount, dest.Key, dest.Name, x.Status))
	return nil
}

// expirationFor is a short expiration for LATE_PAYMENT, so one clock advance
// shows it: the account's provider minimum (at least 60 s); else 0 (the
// route's default).
func (t *Run) expirationFor(ctx context.Context, cashIn bool) (int64, error) {
	if !t.Scenario.AfterExpiry {
		return 0, nil
	}
	secs := int64(60)
	if cashIn {
		var st struct {
			MinExpirationTime json.Number `json:"minExpirationTime"`
		}
		if err := t.Client.AccountSettings(ctx, t.Account, &st); err != nil {
			return 0, err
		}
		if n, err := st.MinExpirationTime.Int64(); err == nil && n > secs {
			secs = n
		}
	}
	t.Expiry = time.Duration(secs) * time.Second
	return secs, nil
}

// paysItself reports whether trigger pays the charge: the scenario acts once
// the charge is paid and no payer of its own comes.
func (t *Run) paysItself() bool {
	return t.Scenario.Phase == scenarios.Splits || t.Scenario.Phase == scenarios.MED
}

func (t *Run) cashIn(ctx context.Context) error {
	exp, err := t.expirationFor(ctx, true)
	if err != nil {
		return err
	}
	txn := map[string]any{"value": json.Number(t.Amount), "description": t.description(), "externalId": t.externalID()}
	if exp > 0 {
		txn["expirationTime"] = exp
	}
	body := map[string]any{"transaction": txn, "payer": map[string]string{"fullName": "Pagador da Silva", "document": "52998224725"}}
	var dest dictEntry
	if t.Scenario.Phase == scenarios.Splits {
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
	var ans struct {
		TransactionID  string `json:"transactionId"`
		ExternalID     string `json:"externalId"`
		ExpirationDate string `json:"expirationDate"`
	}
	if rejected, err := t.sendAsAccount(ctx, http.MethodPost, "/api/pix/cash-in", body, http.StatusCreated, &ans); err != nil || rejected {
		return err
	}
	line := fmt.Sprintf("created cash-in charge transaction %s (externalId %s): %s, expires at %s", ans.TransactionID, ans.ExternalID, t.Amount, ans.ExpirationDate)
	if t.Scenario.Phase == scenarios.Splits {
		line += fmt.Sprintf(", a 10%% immediate split to %s", dest.Key)
	}
	t.Lines = append(t.Lines, line)
	if t.paysItself() {
		if err := t.pay(ctx, map[string]string{"transactionId": ans.TransactionID}); err != nil {
			return err
		}
	}
	x, err := t.transaction(ctx, ans.TransactionID)
	if err != nil {
		return err
	}
	t.Lines = append(t.Lines, fmt.Sprintf("charge %s is %s", x.ID, x.Status))
	return nil
}

// pay pays the charge through the control plane, as a payer's bank would.
func (t *Run) pay(ctx context.Context, charge map[string]string) error {
	p, _, err := t.Client.Pay(ctx, charge)
	if err != nil {
		return fmt.Errorf("paying the charge: %w", err)
	}
	t.Lines = append(t.Lines, fmt.Sprintf("paid it through POST /_sandbox/payments: endToEndId %s, transaction %s, %s", p.EndToEndID, p.TransactionID, p.Amount))
	t.TxnID = p.TransactionID
	return nil
}

func (t *Run) cob(ctx context.Context) error {
	exp, err := t.expirationFor(ctx, false)
	if err != nil {
		return err
	}
	txid := randomHex(16)
	body := map[string]any{"valor": map[string]string{"original": t.Amount}, "solicitacaoPagador": t.description()}
	if exp > 0 {
		body["calendario"] = map[string]int64{"expiracao": exp}
	} else {
		body["calendario"] = map[string]any{}
	}
	var ans struct {
		TxID       string `json:"txid"`
		Status     string `json:"status"`
		Calendario struct {
			Expiracao json.Number `json:"expiracao"`
		} `json:"calendario"`
	}
	if rejected, err := t.sendAsAccount(ctx, http.MethodPut, "/cob/"+txid, body, http.StatusCreated, &ans); err != nil || rejected {
		return err
	}
	t.Lines = append(t.Lines, fmt.Sprintf("created cob %s: %s, expires %s s after creation: %s", ans.TxID, t.Amount, ans.Calendario.Expiracao, ans.Status))
	if t.paysItself() {
		if err := t.pay(ctx, map[string]string{"txid": ans.TxID}); err != nil {
			return err
		}
		x, err := t.transaction(ctx, t.TxnID)
		if err != nil {
			return err
		}
		t.Lines = append(t.Lines, fmt.Sprintf("the payment is %s transaction %s, %s", x.Kind, x.ID, x.Status))
	} else {
		t.Lines = append(t.Lines, fmt.Sprintf("see it: curl -s %s/cob/%s -H \"Authorization: Bearer $(%s)\"", t.Client.Base, ans.TxID, t.TokenCommand))
	}
	return nil
}

func (t *Run) refund(ctx context.Context) error {
	var acct struct {
		PixKeys []struct {
			Key string `json:"key"`
		} `json:"pixKeys"`
	}
	if err := t.Client.Account(ctx, t.Account, &acct); err != nil {
		return err
	}
	if len(acct.PixKeys) == 0 {
		return fmt.Errorf("account %d has no PIX key to receive the PIX to refund", t.Account)
	}
	in, err := t.Client.PixIn(ctx, map[string]any{"key": acct.PixKeys[0].Key, "amount": json.Number(t.Amount)})
	if err != nil {
		return fmt.Errorf("receiving the PIX to refund: %w", err)
	}
	t.Lines = append(t.Lines, fmt.Sprintf("received PIX transaction %s through POST /_sandbox/pix-in: %s to %s, endToEndId %s", in.TransactionID, in.Amount, acct.PixKeys[0].Key, in.EndToEndID))
	var ans struct {
		TransactionID string `json:"transactionId"`
		ExternalID    string `json:"externalId"`
		Status        string `json:"status"`
	}
	body := map[string]any{"refundValue": in.FinalAmount, "externalId": "cli" + randomHex(8), "reason": t.description()}
	if rejected, err := t.sendAsAccount(ctx, http.MethodPost, "/api/pix/refund-in/"+in.TransactionID, body, http.StatusCreated, &ans); err != nil || rejected {
		return err
	}
	x, err := t.transaction(ctx, ans.TransactionID)
	if err != nil {
		return err
	}
	t.Lines = append(t.Lines, fmt.Sprintf("created refund transaction %s (%s, externalId %s) of %s: %s", x.ID, x.Kind, ans.ExternalID, in.FinalAmount, x.Status))
	return nil
}

// authToken asks for a token with a fixture certificate and credentials (the
// account's when it is a fixture account): the upstream scenarios answer
// before the credentials are checked.
func (t *Run) authToken(ctx context.Context) error {
	set, err := fixtures.Embedded()
	if err != nil || len(set.Accounts) == 0 {
		return fmt.Errorf("the embedded fixtures have no account certificate: %v", err)
	}
	a := set.Accounts[0]
	for _, x := range set.Accounts {
		if x.ID == t.Account {
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

// randomHex returns n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
