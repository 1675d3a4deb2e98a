package state

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
)

// The balance rule (state.balance-mismatch), on with Model.QuietAccounts:
// a balance read is compared with the account's previous one over every way
// the operations accepted since, and those still pending, may have moved
// (held, out, given back: settlement and failure happen off the traffic).
// Blocked must be what a way leaves; available at least that, since a PIX
// received may add to it. Only reads no other exchange overlapped are used
// (contract.Exchange.Alone). docs/proxy.md, "The balance rule", says what each
// operation moves and how the sandbox's control plane is read.

// opPhase is where an operation stands, as a set of bits when not known.
type opPhase uint8

const (
	phaseNone opPhase = 1 << iota // not accepted yet
	phaseHeld                     // its amount moved from available to blocked
	phaseOut                      // its amount left the account
	phaseBack                     // its amount back in available (it failed)
)

var phases = []opPhase{phaseNone, phaseHeld, phaseOut, phaseBack}

// moved is what the phase has moved since acceptance, per unit of the
// operation's amount: available, blocked.
func (p opPhase) moved() (int64, int64) {
	switch p {
	case phaseHeld:
		return -1, 1
	case phaseOut:
		return -1, 0
	}
	return 0, 0
}

// balanceOp is an operation of the account that moves its balance.
type balanceOp struct {
	key    string // what it is, unique in the account: "cash-out <transactionId>"
	refund bool   // a refund: may be taken at once, and given back after
	amount int64  // centavos it moves; 0 while not known
	min    int64  // the least it can move (a cash-out's value: its fee is not known)
	phases opPhase
	ex     uint64
}

// next returns the phases an operation in phase p may be in later.
func (o *balanceOp) next(p opPhase) opPhase {
	switch p {
	case phaseNone, phaseHeld:
		return phaseHeld | phaseOut | phaseBack
	case phaseOut:
		if o.refund {
			return phaseOut | phaseBack
		}
		return phaseOut
	}
	return phaseBack
}

// done reports whether the operation can move the balance no more.
func (o *balanceOp) done() bool {
	for _, p := range phases {
		if o.phases&p != 0 && o.next(p) != p {
			return false
		}
	}
	return true
}

// ledger is what the model knows of an account's balance: its last read
// judged (base), the operations that may still move it, the most of blocked
// that operations it does not know held at the base and may release
// (legacy), and why the account is not judged (never: a charge with splits,
// a scenario, a MED), if it is not.
type ledger struct {
	base   *balanceRead
	legacy int64
	ops    []*balanceOp
	never  string
}

type balanceRead struct {
	avail, blocked int64
	ex             uint64
}

// maxBalanceOps bounds the operations that may still move one account (past
// it the account starts again from its next read); maxBalanceWays the ways
// of moving a read is compared with.
const maxBalanceOps, maxBalanceWays = 8, 4096

// QuietAccounts turns on the rules that need a quiet account (the balance
// rule): use it only when nothing but the traffic the model sees takes money
// from an account or blocks it (no MED, no split, no other client).
func (m *Model) QuietAccounts(on bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.quiet = on
}

// BalanceJudged returns how many balance reads the balance rule compared
// with an earlier one.
func (m *Model) BalanceJudged() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.balanceJudged
}

func (m *Model) ledgerOf(acct string) *ledger {
	l, _ := m.ledgers.get(acct)
	if l == nil {
		l = &ledger{}
		m.ledgers.put(acct, l)
	}
	return l
}

// balance feeds the balance rule an exchange of a route of the contract.
func (m *Model) balance(ex *contract.Exchange, rt *contract.Route, params map[string]string) []contract.Finding {
	tok, ok := accountOf(ex)
	if !m.quiet || m.balanceOff || !ok || ex.Status < 200 || (ex.Status >= 300 && ex.Status < 500) {
		return nil // a refusal moves nothing
	}
	l := m.ledgerOf(tok.Account)
	if l.never == "" {
		l.never = m.medAccount(tok)
	}
	if l.never != "" {
		return nil
	}
	if ex.Scenario() && ex.Success() {
		l.never = fmt.Sprintf("exchange %d asked for an X-Sandbox-Scenario, whose effects the contract does not show", ex.Seq)
		return nil
	}
	switch rt.Name {
	case "balance.bacen", "balance.get", "balance.get.api":
		if ex.Success() {
			return m.balanceRead(ex, rt, l)
		}
	case "transfer.create", "cashout.create", "refund.put", "refundin.create":
		l.add(opOf(ex, rt, params))
	case "cashin.create":
		if req, err := ex.ReqValue(); err != nil || hasSplits(req) {
			l.never = fmt.Sprintf("exchange %d created a charge with splits, which move the balance when the account's schedule pays them", ex.Seq)
		}
	}
	return nil
}

func hasSplits(req any) bool {
	s, _ := apiclient.Lookup(req, "splits")
	list, isList := s.([]any)
	return s != nil && (!isList || len(list) > 0)
}

// add records an accepted operation (a repeat of one recorded is not one
// more); past maxBalanceOps the account starts again from its next read.
func (l *ledger) add(o *balanceOp) {
	if o.key != "" && slices.ContainsFunc(l.ops, func(p *balanceOp) bool { return p.key == o.key }) {
		return
	}
	if len(l.ops) >= maxBalanceOps {
		*l = ledger{}
		return
	}
	l.ops = append(l.ops, o)
}

// opOf reads an accepted operation's amount and identity. An answer that is
// not an acceptance (5xx) may or may not have created it: it is recorded
// without identity, and its giving back is always one of its ways.
func opOf(ex *contract.Exchange, rt *contract.Route, params map[string]string) *balanceOp {
	o := &balanceOp{phases: phaseNone, ex: ex.Seq, min: 1}
	req, _ := ex.ReqValue()
	var resp map[string]any
	if ex.Success() && ex.RespUnjudged == "" {
		v, _ := ex.RespValue()
		resp, _ = v.(map[string]any)
	}
	amount := func(respPath, reqPath string) {
		if c, err := apiclient.Cents(lookup(resp, respPath)); err == nil && c > 0 {
			o.amount = c
		} else if c, err := apiclient.Cents(lookup(req, reqPath)); err == nil && c > 0 {
			o.amount = c
		}
	}
	id := func(what, field string) {
		if s := fmt.Sprint(lookup(resp, field)); resp != nil && s != "" && s != "<nil>" {
			o.key = what + " " + s
		}
	}
	switch rt.Name {
	case "transfer.create":
		amount("payment.amount", "payment.amount")
		id("transfer", "id")
	case "cashout.create":
		if c, err := apiclient.Cents(lookup(req, "value")); err == nil && c > 0 {
			o.min = c
		}
		id("cash-out", "transactionId")
	case "refund.put":
		o.refund = true
		amount("valor", "valor")
		if resp != nil {
			o.key = "refund " + params["e2eid"] + "/" + params["id"]
		}
	case "refundin.create":
		o.refund = true
		amount("refundValue", "refundValue")
		id("refund-in", "transactionId")
	}
	if o.key == "" {
		o.key = fmt.Sprintf("%s (exchange %d)", rt, ex.Seq)
	}
	return o
}

// lookup is the value at path in v, nil when there is none.
func lookup(v any, path string) any {
	got, _ := apiclient.Lookup(v, path)
	return got
}

// readBalance returns the available and blocked a balance answer shows, and
// the names of their fields.
func readBalance(rt *contract.Route, v any) (avail, blocked int64, fields [2]string, ok bool) {
	fields = [2]string{"netBalance", "blockedBalance"}
	if rt.Name == "balance.bacen" {
		if data, _ := lookup(v, "data").([]any); len(data) != 1 {
			return 0, 0, fields, false
		}
		fields = [2]string{"data[0].balanceAmount.available", "data[0].balanceAmount.blocked"}
	}
	var cents [2]int64
	for i, field := range fields {
		n, isNum := lookup(v, field).(json.Number)
		c, err := apiclient.Cents(n)
		if !isNum || err != nil {
			return 0, 0, fields, false
		}
		cents[i] = c
	}
	return cents[0], cents[1], fields, true
}

// balanceRead judges a read against the account's previous one.
func (m *Model) balanceRead(ex *contract.Exchange, rt *contract.Route, l *ledger) []contract.Finding {
	if !ex.Alone || ex.RespUnjudged != "" {
		return nil // served beside another exchange: its effect may be in it or not
	}
	v, err := ex.RespValue()
	if err != nil {
		return nil
	}
	avail, blocked, fields, ok := readBalance(rt, v)
	if !ok {
		return nil
	}
	read := &balanceRead{avail: avail, blocked: blocked, ex: ex.Seq}
	if l.base == nil {
		l.rebase(read)
		return nil
	}
	j := l.judge(read)
	if j.ways > maxBalanceWays {
		l.rebase(read)
		return nil
	}
	m.balanceJudged++
	if len(j.consistent) > 0 {
		l.moveOn(read, j)
		return nil
	}
	f := l.finding(ex, rt, read, fields, j)
	l.ops = nil // what stands is not known: every hold is of before
	l.rebase(read)
	return []contract.Finding{f}
}

// rebase makes read the base, every operation in any phase it may have
// reached, and all of blocked possibly holds of operations not known.
func (l *ledger) rebase(read *balanceRead) {
	for _, o := range l.ops {
		o.phases = o.reach()
	}
	l.base, l.legacy = read, read.blocked
	l.dropDone()
}

// reach returns every phase the operation may be in by now.
func (o *balanceOp) reach() opPhase {
	var out opPhase
	for _, p := range phases {
		if o.phases&p != 0 {
			out |= o.next(p)
		}
	}
	return out
}

func (l *ledger) dropDone() {
	l.ops = slices.DeleteFunc(l.ops, (*balanceOp).done)
}

// way is one way an operation may have moved since the base: from one of
// its phases to one reachable from it.
type way struct {
	to     opPhase
	da, db int64 // per unit of its amount
}

func (o *balanceOp) ways() []way {
	var out []way
	for _, p := range phases {
		if o.phases&p == 0 {
			continue
		}
		pa, pb := p.moved()
		for _, q := range phases {
			if o.next(p)&q == 0 {
				continue
			}
			qa, qb := q.moved()
			w := way{to: q, da: qa - pa, db: qb - pb}
			if !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	return out
}

// judgement is a read compared with the base over every way the operations
// may have moved.
type judgement struct {
	ways       int
	consistent [][]way // the ways (one per operation) the read matches
	learned    []int64 // per operation: the amount every matching way agrees on (0: none)
	blockedOK  bool    // some way matches blocked (available aside)
	blockedAt  []int64 // blocked each way of known amounts leaves (at most a few)
	availMin   int64   // the least available a way matching blocked leaves
	availSet   bool
	unknown    bool // some way rests on an amount not known
}

func (l *ledger) judge(read *balanceRead) *judgement {
	j := &judgement{ways: 1, learned: make([]int64, len(l.ops))}
	all := make([][]way, len(l.ops))
	for i, o := range l.ops {
		all[i], j.learned[i] = o.ways(), -1 // -1: no matching way yet
		j.ways *= len(all[i])
		if j.ways > maxBalanceWays {
			return j
		}
	}
	pick := make([]way, len(l.ops))
	var walk func(i int)
	walk = func(i int) {
		if i < len(l.ops) {
			for _, w := range all[i] {
				pick[i] = w
				walk(i + 1)
			}
			return
		}
		amounts, ok := l.check(read, pick, j)
		if !ok {
			return
		}
		j.consistent = append(j.consistent, slices.Clone(pick))
		for k, a := range amounts {
			switch {
			case j.learned[k] < 0:
				j.learned[k] = a
			case j.learned[k] != a:
				j.learned[k] = 0
			}
		}
	}
	walk(0)
	return j
}

// check reports whether the read matches the base moved by ways, and the
// amount each operation then moved (0 when the read does not fix it).
// Blocked must be what the ways leave, less up to the legacy released;
// available at least what they leave (a PIX received may add).
func (l *ledger) check(read *balanceRead, pick []way, j *judgement) ([]int64, bool) {
	da, db := read.avail-l.base.avail, read.blocked-l.base.blocked
	var ka, kb int64
	free := -1 // the one operation of unknown amount that moved, if one
	amounts := make([]int64, len(pick))
	for i, w := range pick {
		o := l.ops[i]
		switch {
		case w.da == 0 && w.db == 0:
		case o.amount > 0:
			ka, kb, amounts[i] = ka+w.da*o.amount, kb+w.db*o.amount, o.amount
		case free >= 0:
			j.unknown, j.blockedOK = true, true
			return make([]int64, len(pick)), true // two amounts not known: not judged
		default:
			free = i
		}
	}
	if free < 0 {
		blockedOK := db <= kb && db >= kb-l.legacy
		j.note(blockedOK, l.base.blocked+kb, l.base.avail+ka)
		return amounts, blockedOK && da >= ka
	}
	j.unknown = true
	w, o := pick[free], l.ops[free]
	lo, hi := o.min, int64(-1) // the amount moved is in [lo, hi]; hi -1: no bound
	if w.db != 0 {             // db = kb + w.db·amount − released, released in [0, legacy]
		a, b := (db-kb)*w.db, (db-kb+l.legacy)*w.db
		lo, hi = max(lo, min(a, b)), max(a, b)
		if hi < lo {
			return nil, false
		}
	} else if db > kb || db < kb-l.legacy {
		return nil, false
	}
	j.blockedOK = true
	switch { // da ≥ ka + w.da·amount
	case w.da > 0:
		j.availAtLeast(l.base.avail + ka + lo)
		hi = minBound(hi, da-ka)
	case w.da < 0 && hi >= 0:
		j.availAtLeast(l.base.avail + ka - hi)
		lo = max(lo, ka-da)
	case w.da < 0:
		lo = max(lo, ka-da)
	default:
		j.availAtLeast(l.base.avail + ka)
		if da < ka {
			return nil, false
		}
	}
	if hi >= 0 && lo > hi {
		return nil, false
	}
	if lo == hi {
		amounts[free] = lo
	}
	return amounts, true
}

func minBound(hi, v int64) int64 {
	if hi < 0 {
		return v
	}
	return min(hi, v)
}

// note records what a way of known amounts leaves, for a finding.
func (j *judgement) note(blockedOK bool, blocked, avail int64) {
	if !slices.Contains(j.blockedAt, blocked) && len(j.blockedAt) < 6 {
		j.blockedAt = append(j.blockedAt, blocked)
	}
	if blockedOK {
		j.blockedOK = true
		j.availAtLeast(avail)
	}
}

// availAtLeast records the available a way that matches blocked requires.
func (j *judgement) availAtLeast(avail int64) {
	if !j.availSet || avail < j.availMin {
		j.availMin, j.availSet = avail, true
	}
}

// moveOn takes a read the ways match as the new base: each operation in the
// phases the matching ways leave it in, amounts the read fixed learned, the
// operations ended forgotten.
func (l *ledger) moveOn(read *balanceRead, j *judgement) {
	for i, o := range l.ops {
		var to opPhase
		for _, ways := range j.consistent {
			to |= ways[i].to
		}
		o.phases = to
		if o.amount == 0 && j.learned[i] > 0 {
			o.amount = j.learned[i]
		}
	}
	l.base, l.legacy = read, min(l.legacy, read.blocked)
	l.dropDone()
}

// finding describes a read no way matches.
func (l *ledger) finding(ex *contract.Exchange, rt *contract.Route, read *balanceRead, fields [2]string, j *judgement) contract.Finding {
	f := contract.NewFinding("state.balance-mismatch", ex, "")
	f.Related = []uint64{l.base.ex}
	ops := []string{"no operation of the account"}
	for _, o := range l.ops {
		f.Related = append(f.Related, o.ex)
		what := fmt.Sprintf("%s (at least %s, its fee not known)", o.key, apiclient.FormatCents(o.min))
		if o.amount > 0 {
			what = o.key + " of " + apiclient.FormatCents(o.amount)
		}
		ops = append(ops, what)
	}
	since := strings.Join(ops[min(1, len(ops)-1):], ", ")
	cents := apiclient.FormatCents
	if j.blockedOK {
		f.Field, f.Seen, f.Expected = fields[0], cents(read.avail), "at least "+cents(j.availMin)
		f.Message = fmt.Sprintf("%s answered available %s; the read of exchange %d showed %s, and what %s leave is at least %s (a PIX received may only add)",
			rt, f.Seen, l.base.ex, cents(l.base.avail), since, f.Expected)
		return f
	}
	var at []string
	for _, b := range j.blockedAt {
		at = append(at, cents(b))
	}
	f.Field, f.Seen, f.Expected = fields[1], cents(read.blocked), "one of "+strings.Join(at, ", ")
	if l.legacy > 0 {
		f.Expected += " (less up to " + cents(l.legacy) + " held before)"
	}
	if j.unknown {
		f.Expected = strings.TrimPrefix(f.Expected+", or what an operation of unknown amount leaves", "one of , or ")
	}
	f.Message = fmt.Sprintf("%s answered blocked %s; the read of exchange %d showed %s, and since then only %s may have moved it (held, out or given back): none of them leaves %s",
		rt, f.Seen, l.base.ex, cents(l.base.blocked), since, f.Seen)
	return f
}

// sandboxBalance reads a control-plane write (in front of the sandbox) for
// the balance rule and the contradicting reads: a quiet write moves nothing
// the rule does not allow; a MED's account is judged no more; a reset or a
// workspace deleted starts accounts and transactions again; any other write
// ends the balance rule for the run, with a notice.
func (m *Model) sandboxBalance(ex *contract.Exchange) []contract.Finding {
	switch ex.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return nil
	}
	if !ex.Success() {
		return nil
	}
	ws, rest := sandboxPath(ex)
	switch {
	case quietSandboxWrite(ex.Method, rest):
		return nil
	case rest == "reset" || (rest == "" && ws != "" && ex.Method == http.MethodDelete):
		m.ledgers, m.reads = newWindow[*ledger](m.bounds.Accounts), newWindow[*readRec](m.bounds.Keys)
		return nil
	case rest == "med" || strings.HasPrefix(rest, "med/"):
		v, _ := ex.RespValue()
		if id := fmt.Sprint(lookup(v, "accountId")); ex.RespUnjudged == "" && id != "<nil>" {
			m.medAccounts.put(ws+"/"+id, fmt.Sprintf("exchange %d (%s %s) opened or moved a MED of the account, which moves its balance on the clock", ex.Seq, ex.Method, ex.Path))
			return nil
		}
	}
	if !m.quiet || m.balanceOff {
		return nil
	}
	m.balanceOff = true
	f := contract.NewFinding("state.balance-unjudged", ex, "")
	f.Field = "quiet accounts"
	f.Message = fmt.Sprintf("%s %s may move balances in ways the traffic does not show: the balance rule judges no more reads", ex.Method, ex.Path)
	return []contract.Finding{f}
}

// sandboxPath splits a control-plane path into its workspace (the path's,
// else the X-Sandbox-Workspace header's, else the default's "") and the
// rest after /_sandbox/ (and /_sandbox/workspaces/{id}/).
func sandboxPath(ex *contract.Exchange) (string, string) {
	rest := strings.Trim(strings.TrimPrefix(ex.Path, "/_sandbox/"), "/")
	if ws, after, ok := strings.Cut(strings.TrimPrefix(rest, "workspaces/"), "/"); strings.HasPrefix(rest, "workspaces/") {
		if !ok {
			return ws, ""
		}
		return ws, after
	}
	return ex.ReqHeader.Get("X-Sandbox-Workspace"), rest
}

// medAccount says why a token's account is judged no more because of a MED
// (in front of the sandbox): its sandbox account had one, or, once any MED
// was seen, its token does not name its sandbox account.
func (m *Model) medAccount(tok Token) string {
	if m.medAccounts.len() == 0 {
		return ""
	}
	if tok.Subject == "" {
		return "a MED was opened through the control plane, and the account's token does not name the sandbox account it is"
	}
	reason, _ := m.medAccounts.get(tok.Workspace + "/" + tok.Subject)
	return reason
}

// quietSandboxWrites move no balance but by a PIX received or a pending PIX
// out's ending: paths after /_sandbox/ (or /_sandbox/workspaces/{id}/), "*"
// any one segment.
var quietSandboxWrites = []string{
	"clock", "clock/advance", "jobs", "accounts", "accounts/*/token", "accounts/*/certificates", "accounts/*/settings",
	"transactions/*/settle", "transactions/*/fail", "dict/keys", "dict/keys/*", "webhook-targets", "webhook-targets/*",
	"webhook-registration", "listeners", "listeners/*", "listeners/*/renew", "check-receiver", "qrcode", "requests",
	"payments", "pix-in",
}

func quietSandboxWrite(method, rest string) bool {
	if rest == "workspaces" {
		return method == http.MethodPost // a new workspace, new accounts
	}
	segs := strings.Split(rest, "/")
	return slices.ContainsFunc(quietSandboxWrites, func(pattern string) bool {
		p := strings.Split(pattern, "/")
		if len(p) != len(segs) {
			return false
		}
		for i := range p {
			if p[i] != "*" && p[i] != segs[i] {
				return false
			}
		}
		return true
	})
}
