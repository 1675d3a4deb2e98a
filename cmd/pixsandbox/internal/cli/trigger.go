package cli

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/pixsandbox/pixsandbox/cmd/pixsandbox/internal/trigger"
	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/events"
)

const triggerUsage = `Usage:
  pixsandbox trigger EVENT [--account N] [--amount 10.00] [--key KEY] [--error-code CODE] [--wait 15s]
  pixsandbox trigger SCENARIO [--account N] [--operation OP] [--key KEY] [--amount 10.00]
  pixsandbox trigger --list

An argument with a dot names an EVENT (cashout.confirmed, med.accepted; --list
names them all); one without names an X-Sandbox-Scenario (TAX_ID_MISMATCH,
any case, - for _).

EVENT makes the simulator produce that webhook now (POST /_sandbox/events/EVENT):
a real transaction of account N (default 1), ended at once through the control
plane, whose webhook goes to every target of the account registered for its
event type, the listeners of pixsandbox listen included. The amount defaults to
10.00, the key to the usual one for the event (--list says which), the failure
of a *.failed event to ORDER_REJECTED. Events leave the clock alone, except
cashin.expired, which moves it by the charge's expiration (30 s by default).
Prints what was done and, waiting up to --wait (wall time) for them, the first
attempt of each delivery. With --json it prints the server's answer at once.

SCENARIO creates a transaction that runs the X-Sandbox-Scenario SCENARIO (docs/scenarios.md,
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

// cliAmount is an amount of --amount: BRL with at most 2 decimals.
var cliAmount = regexp.MustCompile(`^([0-9]{1,10})(?:\.([0-9]{1,2}))?$`)

func cliTrigger(ctx context.Context, env Env, args []string) int {
	cc := newCLICmd(env, "trigger", triggerUsage)
	account := cc.fs.Int64("account", 1, "account the transaction belongs to")
	op := cc.fs.String("operation", "", "SCENARIO: operation to use among those the scenario honours: cashout.create, cashin.create, transfer.create, cob.put, refund.create or auth.token")
	key := cc.fs.String("key", "", "DICT key paid by a cash-out, transfer or split (default: the first e-mail key of fixtures/dict.json); for an EVENT, as --list says")
	amount := cc.fs.String("amount", "10.00", "amount in BRL")
	errorCode := cc.fs.String("error-code", "", "EVENT *.failed: the errorCode of the failure (default ORDER_REJECTED)")
	wait := cc.fs.Duration("wait", 15*time.Second, "EVENT: how long to wait for the first attempt of each delivery (wall time; 0: do not wait)")
	list := cc.fs.Bool("list", false, "list the events and the scenarios, and exit")
	pos, code, done := cc.parse(args)
	if done {
		return code
	}
	if *list {
		if len(pos) > 0 {
			return cc.usageError("--list takes no EVENT or SCENARIO, got %q", pos)
		}
		cc.printf("%s", trigger.List())
		return cliExitOK
	}
	if len(pos) != 1 {
		return cc.usageError("name one EVENT or SCENARIO (pixsandbox trigger --list names them)")
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
	brl := fmt.Sprintf("%d.%s", whole, cents)
	if events.IsEventName(pos[0]) { // Gap G-72: a dot names an event, no dot a scenario
		if cc.isSet("operation") {
			return cc.usageError("--operation applies to a SCENARIO, not to the event %s", pos[0])
		}
		return cc.triggerEvent(ctx, &trigger.Event{Client: cc.client, Name: pos[0], Account: *account, Amount: brl, Key: *key,
			ErrorCode: *errorCode, Wait: *wait})
	}
	for _, f := range []string{"error-code", "wait"} {
		if cc.isSet(f) {
			return cc.usageError("--%s applies to an EVENT (a name with a dot), not to the scenario %s", f, pos[0])
		}
	}
	name := strings.ToUpper(strings.ReplaceAll(pos[0], "-", "_"))
	s, ok := scenarios.Lookup(name)
	if !ok {
		return cc.usageError("unknown scenario %q; known scenarios: %s (events have a dot: pixsandbox trigger --list)", pos[0], scenarioNames())
	}
	t := &trigger.Run{Client: cc.client, Scenario: s, Account: *account, Amount: brl, Key: *key,
		TokenCommand: cc.self(fmt.Sprintf("token --account %d", *account))}
	if *op != "" {
		t.Op = scenarios.Operation(*op)
		if !s.Honours(t.Op) {
			return cc.usageError("%s does not apply to %s; it applies to %s", s.Name, *op, joinOps(s.Operations))
		}
		if !trigger.Supported(t.Op) {
			return cc.fail(fmt.Errorf("pixsandbox trigger cannot drive %s; send the header %s: %s on that request yourself", *op, scenarios.Header, s.Name))
		}
	} else {
		for _, o := range trigger.Ops {
			if s.Honours(o) {
				t.Op = o
				break
			}
		}
		if t.Op == "" {
			return cc.fail(fmt.Errorf("pixsandbox trigger cannot drive %s: it applies to %s, which this command does not send. "+
				"Send the header %s: %s on such a request yourself (docs/scenarios.md)", s.Name, joinOps(s.Operations), scenarios.Header, s.Name))
		}
	}
	if err := t.Do(ctx); err != nil {
		return cc.fail(err)
	}
	if cc.json {
		cc.printRaw(t.Raw)
		return cliExitOK
	}
	cc.printTrigger(t)
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

// printTrigger writes the human summary: what was created and how to watch it.
func (cc *cliCmd) printTrigger(t *trigger.Run) {
	cc.printf("%s (%s) on account %d through %s:\n", t.Scenario.Name, t.Scenario.Phase, t.Account, t.Op)
	for _, l := range t.Lines {
		cc.printf("  %s\n", l)
	}
	cc.printf("  %s\n", t.Scenario.Summary)
	if t.Rejected {
		return
	}
	type step struct{ cmd, why string }
	steps := []step{{cc.self(fmt.Sprintf("webhooks tail --account %d", t.Account)), "in another terminal: its webhooks as they go out"}}
	advance := func(d time.Duration, why string) {
		steps = append(steps, step{cc.self("clock advance " + shortDuration(d)), why})
	}
	s := t.Scenario
	switch {
	case s.Phase == scenarios.AtSettlement:
		advance(5*time.Second, fmt.Sprintf("past the settlement delay (--settlement-delay, 2s by default): ERROR %s", s.Code))
	case s.Phase == scenarios.Timing && s.Never && t.TxnID != "":
		steps = append(steps, step{"curl -s -X POST " + cc.client.SandboxURL("/_sandbox/transactions/"+t.TxnID+"/settle"),
			"it never settles by itself: force it (or /fail with {\"errorCode\":\"ORDER_REJECTED\"})"})
	case s.Phase == scenarios.Timing:
		advance(s.Delay, "it settles "+shortDuration(s.Delay)+" after acceptance")
	case s.Phase == scenarios.Payer && s.AfterExpiry:
		advance(t.Expiry+s.Delay, "it expires, then a late payment arrives and is refused")
	case s.Phase == scenarios.Payer:
		advance(s.Delay, "the payer pays it "+shortDuration(s.Delay)+" after creation")
	case s.Phase == scenarios.Splits:
		advance(5*time.Second, "its splits settle after the settlement delay and fail with "+string(s.SplitFailure))
	case s.Phase == scenarios.MED:
		advance(s.Delay, "the payer's bank opens the MED "+shortDuration(s.Delay)+" after the payment; advance further for its analysis and refund")
	}
	if t.TxnID != "" {
		steps = append(steps, step{"curl -s " + cc.client.SandboxURL("/_sandbox/transactions/"+t.TxnID), "its state"})
	}
	if s.Phase == scenarios.MED {
		steps = append(steps, step{fmt.Sprintf("curl -s %s/api/med -H \"Authorization: Bearer $(%s)\"", cc.client.Base, cc.self(fmt.Sprintf("token --account %d", t.Account))), "the account's MEDs"})
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
