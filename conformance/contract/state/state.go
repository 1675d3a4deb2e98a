package state

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
)

// Bounds bound the state model's memory. Each window keeps at most Keys
// entries (idempotency keys, externalIds, originals with their refunds,
// transaction aliases, cobs, refunds) and the clock of at most Accounts
// accounts, forgetting the least recently used entry when full. A forgotten
// entry can only hide a finding, never make one: a later exchange about it
// is judged as if it were the first.
type Bounds struct {
	Keys     int
	Accounts int
}

// DefaultBounds: 10,000 entries per window, 1,000 accounts.
var DefaultBounds = Bounds{Keys: 10_000, Accounts: 1_000}

const (
	// maxHistory bounds the observations kept per cob, refund and clock.
	maxHistory = 8
	// maxRefunds bounds the refunds kept per original PIX.
	maxRefunds = 64
	// tokenLifetime is "Authentication" rule 2; iat is whole seconds, so a
	// token is past its lifetime for sure one second later.
	tokenLifetime = 1800 * time.Second
	iatRounding   = time.Second
)

// Model is the state the traffic implies, built only from the exchanges
// seen: the state rules judge each new exchange against it. It is safe for
// concurrent use; Observe must be called in the order the answers ended.
type Model struct {
	mu      sync.Mutex
	idem    *window[seenID]
	ext     *window[seenID]
	origs   *window[*original]
	alias   *window[string]
	clocks  *window[*clockHist]
	cobs    *window[*history]
	refunds *window[*history]
	reads   *window[*readRec]
	ledgers *window[*ledger]
	// medAccounts are the sandbox accounts ("workspace/id") a MED was
	// opened or moved for through the control plane.
	medAccounts *window[string]
	// quiet turns on the balance rule (QuietAccounts); balanceOff: a
	// control-plane write ended it for the run.
	quiet, balanceOff bool
	balanceJudged     int
	bounds            Bounds
}

// NewModel returns an empty model bounded by b (DefaultBounds for zero fields).
func NewModel(b Bounds) *Model {
	if b.Keys <= 0 {
		b.Keys = DefaultBounds.Keys
	}
	if b.Accounts <= 0 {
		b.Accounts = DefaultBounds.Accounts
	}
	return &Model{
		idem: newWindow[seenID](b.Keys), ext: newWindow[seenID](b.Keys), origs: newWindow[*original](b.Keys),
		alias: newWindow[string](b.Keys), clocks: newWindow[*clockHist](b.Accounts), cobs: newWindow[*history](b.Keys),
		refunds: newWindow[*history](b.Keys), reads: newWindow[*readRec](b.Keys), ledgers: newWindow[*ledger](b.Accounts),
		medAccounts: newWindow[string](b.Accounts), bounds: b,
	}
}

// Size returns how many entries each window holds.
func (m *Model) Size() map[string]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return map[string]int{"idempotencyKeys": m.idem.len(), "externalIds": m.ext.len(), "originals": m.origs.len(),
		"transactionAliases": m.alias.len(), "clocks": m.clocks.len(), "cobs": m.cobs.len(), "refunds": m.refunds.len(),
		"reads": m.reads.len(), "balances": m.ledgers.len()}
}

type seenID struct {
	id string
	ex uint64
}

// Observe adds an exchange to the model and returns the state findings it
// raises. Exchanges off the route table feed the model where the sandbox's
// control plane shows a PIX received (its amount), and raise nothing.
func (m *Model) Observe(ex *contract.Exchange) []contract.Finding {
	m.mu.Lock()
	defer m.mu.Unlock()
	if strings.HasPrefix(ex.Path, "/_sandbox/") {
		return append(m.sandboxEvidence(ex), m.sandboxBalance(ex)...)
	}
	rt, params := ex.Route()
	if rt == nil || ex.Status == 0 {
		return nil
	}
	out := m.balance(ex, rt, params)
	if ex.RespUnjudged != "" {
		return out
	}
	v, err := ex.RespValue()
	if err != nil {
		return out
	}
	out = append(out, m.observeClock(ex, rt, v)...)
	if !ex.Success() {
		return out
	}
	acct := ""
	if tok, ok := accountOf(ex); ok {
		acct = tok.Account
	}
	obj, _ := v.(map[string]any)
	switch rt.Name {
	case "transfer.create":
		out = append(out, m.idempotency(ex, acct, obj)...)
		out = append(out, m.transferReads(ex, acct, obj)...)
	case "cashout.create", "cashin.create":
		out = append(out, m.externalID(ex, rt, acct, obj)...)
	case "cob.put", "cob.get", "cob.patch":
		out = append(out, m.cob(ex, rt, acct+"|"+params["txid"], obj)...)
		out = append(out, m.cobReads(ex, acct, params["txid"], obj)...)
		out = append(out, m.cobPayments(ex, obj)...)
	case "refund.put", "refund.get":
		out = append(out, m.refundState(ex, acct+"|"+params["e2eid"]+"|"+params["id"], obj)...)
		out = append(out, m.refundReads(ex, acct, params["e2eid"], params["id"], obj)...)
		out = append(out, m.refundSum(ex, params["e2eid"], params["id"], obj)...)
	case "refundin.create":
		out = append(out, m.refundIn(ex, acct, params["id"], obj)...)
	case "transactions.list", "transactions.bykey":
		out = append(out, m.listingReads(ex, acct, obj)...)
		out = append(out, m.listing(ex, acct, obj)...)
	case "med.list":
		out = append(out, m.medReads(ex, acct, obj)...)
	}
	return out
}

// idempotency: "POST /dict/pix" rule 2.
func (m *Model) idempotency(ex *contract.Exchange, acct string, obj map[string]any) []contract.Finding {
	key := ex.ReqHeader.Get("X-Idempotency-Key")
	id := transferID(obj)
	if key == "" || id == "" {
		return nil
	}
	k := acct + "|" + key
	prev, ok := m.idem.get(k)
	if !ok {
		m.idem.put(k, seenID{id: id, ex: ex.Seq})
		return nil
	}
	if prev.id == id {
		return nil
	}
	f := contract.NewFinding("state.idempotent-replay", ex, "")
	f.Field, f.Expected, f.Seen, f.Related = "id", "transfer "+prev.id+" (the key's first answer)", "transfer "+id, []uint64{prev.ex}
	f.Message = fmt.Sprintf("x-idempotency-key %s was answered with transfer %s in exchange %d and now with transfer %s", key, prev.id, prev.ex, id)
	return []contract.Finding{f}
}

// transferID is the transfer's id, or its endToEndId when it has none.
func transferID(obj map[string]any) string {
	if n, ok := obj["id"].(json.Number); ok {
		return string(n)
	}
	if s, ok := obj["endToEndId"].(string); ok {
		return "endToEndId " + s
	}
	return ""
}

// externalID: externalId "unique per account" (cash-out, cash-in).
func (m *Model) externalID(ex *contract.Exchange, rt *contract.Route, acct string, obj map[string]any) []contract.Finding {
	req, _ := ex.ReqValue()
	path := "externalId"
	if rt.Name == "cashin.create" {
		path = "transaction.externalId"
	}
	e, _ := apiclient.Lookup(req, path)
	extID, _ := e.(string)
	id, _ := obj["transactionId"].(string)
	if extID == "" || id == "" {
		return nil
	}
	k := acct + "|" + rt.Name + "|" + extID
	prev, ok := m.ext.get(k)
	if !ok {
		m.ext.put(k, seenID{id: id, ex: ex.Seq})
		return nil
	}
	if prev.id == id {
		return nil
	}
	f := contract.NewFinding("state.external-id-duplicate", ex, "")
	f.Field, f.Expected, f.Seen, f.Related = path, "400 PIX_DUPLICATE_EXTERNAL_ID", fmt.Sprintf("%d, transaction %s", ex.Status, id), []uint64{prev.ex}
	f.Message = fmt.Sprintf("%s accepted externalId %q again (transaction %s); exchange %d had it accepted as transaction %s", rt, extID, id, prev.ex, prev.id)
	return []contract.Finding{f}
}

// observeClock checks an accepted token against the upstream's clock and
// records the answer's clock readings for the token's account.
func (m *Model) observeClock(ex *contract.Exchange, rt *contract.Route, v any) []contract.Finding {
	if rt.Name == "auth.token" {
		m.tokenIssued(ex, v)
		return nil
	}
	tok, ok := accountOf(ex)
	if !ok || ex.Status == 401 {
		return nil // a refused token says nothing of its account's clock
	}
	readings := clockReadings(ex, rt, v)
	c, _ := m.clocks.get(tok.Account)
	var out []contract.Finding
	if ex.Success() && tok.JWT {
		out = m.tokenAccepted(ex, tok, c, readings)
	}
	if len(readings) > 0 {
		if c == nil {
			c = &clockHist{}
			m.clocks.put(tok.Account, c)
		}
		for _, r := range readings {
			c.add(r, ex.End, ex.Seq)
		}
	}
	return out
}

// clockReadings are the instants of the answer that cannot be later than the
// upstream's clock when it answered: creation times and read times of a
// success, the timestamp of an error.
func clockReadings(ex *contract.Exchange, rt *contract.Route, v any) []time.Time {
	if ex.Success() {
		return rt.ClockValues(v)
	}
	if rt.Shape == contract.MinimalShape {
		return nil
	}
	if s, ok := apiclient.Lookup(v, "timestamp"); ok {
		if t, err := apiclient.ParseISO8601(fmt.Sprint(s)); err == nil {
			return []time.Time{t}
		}
	}
	return nil
}

func (m *Model) tokenAccepted(ex *contract.Exchange, tok Token, c *clockHist, readings []time.Time) []contract.Finding {
	var limit time.Time
	basis := "iat"
	switch {
	case !tok.IssuedAt.IsZero():
		limit = tok.IssuedAt.Add(tokenLifetime + iatRounding)
	case !tok.ExpiresAt.IsZero():
		limit, basis = tok.ExpiresAt.Add(iatRounding), "exp"
	default:
		return nil
	}
	now, from := time.Time{}, ex.Seq
	if c != nil {
		now, from = c.before(ex.Start)
	}
	for _, r := range readings {
		if r.After(now) {
			now, from = r, ex.Seq
		}
	}
	if now.IsZero() || now.Before(limit) {
		return nil
	}
	f := contract.NewFinding("state.token-expired-accepted", ex, "")
	f.Field = "Authorization (" + basis + ")"
	f.Expected = "401 from " + limit.UTC().Format(time.RFC3339)
	f.Seen = fmt.Sprintf("%d at %s", ex.Status, now.UTC().Format(time.RFC3339))
	if from != ex.Seq {
		f.Related = []uint64{from}
	}
	age := now.Sub(tok.IssuedAt).Truncate(time.Second)
	if tok.IssuedAt.IsZero() {
		age = now.Sub(tok.ExpiresAt).Truncate(time.Second)
		f.Message = fmt.Sprintf("a token %s past its exp was accepted (the upstream's clock read %s, exchange %d)", age, now.UTC().Format(time.RFC3339), from)
	} else {
		f.Message = fmt.Sprintf("a token issued %s earlier (iat %s) was accepted; its lifetime is 1800 s (the upstream's clock read %s, exchange %d)",
			age, tok.IssuedAt.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339), from)
	}
	return []contract.Finding{f}
}

// tokenIssued records a new token's iat as a clock reading of its account.
// An iat well before what the account's clock read means the upstream's
// clock was set back (a new data directory, a restart): the account's
// readings, and what the balance rule knew of it, start again from it.
func (m *Model) tokenIssued(ex *contract.Exchange, v any) {
	raw, _ := apiclient.Lookup(v, "access_token")
	s, ok := raw.(string)
	if !ok || !ex.Success() {
		return
	}
	tok := ParseToken(s)
	if !tok.JWT || tok.IssuedAt.IsZero() {
		return
	}
	c, _ := m.clocks.get(tok.Account)
	if c != nil && c.latest().After(tok.IssuedAt.Add(2*iatRounding)) {
		m.ledgers.remove(tok.Account) // a new data directory: its balances start again too
	}
	if c == nil || c.latest().After(tok.IssuedAt.Add(2*iatRounding)) {
		c = &clockHist{}
		m.clocks.put(tok.Account, c)
	}
	c.add(tok.IssuedAt, ex.End, ex.Seq)
}

// clockHist holds an account's clock readings in rising order, each with
// when its answer ended at the proxy.
type clockHist struct{ obs []clockObs }

type clockObs struct {
	at, end time.Time
	ex      uint64
}

func (c *clockHist) add(at, end time.Time, ex uint64) {
	if n := len(c.obs); n > 0 && !at.After(c.obs[n-1].at) {
		return
	}
	c.obs = append(c.obs, clockObs{at: at, end: end, ex: ex})
	if len(c.obs) > maxHistory {
		c.obs = c.obs[len(c.obs)-maxHistory:]
	}
}

func (c *clockHist) latest() time.Time {
	if len(c.obs) == 0 {
		return time.Time{}
	}
	return c.obs[len(c.obs)-1].at
}

// before returns the latest reading whose answer ended before start: the
// upstream's clock had at least that value when a request started then.
func (c *clockHist) before(start time.Time) (time.Time, uint64) {
	for i := len(c.obs) - 1; i >= 0; i-- {
		if c.obs[i].end.Before(start) {
			return c.obs[i].at, c.obs[i].ex
		}
	}
	return time.Time{}, 0
}
