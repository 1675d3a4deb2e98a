package events_test

import (
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/events"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

// pair is a webhook as the code emits it: its registration event type and
// its payload kind.
type pair struct{ eventType, kind string }

// eventConsts names the event-type constants of simulator/webhook as the
// emitting code spells them.
var eventConsts = map[string]string{
	"EventCashIn": webhook.EventCashIn, "EventCashOut": webhook.EventCashOut, "EventRefundIn": webhook.EventRefundIn,
	"EventRefundOut": webhook.EventRefundOut, "EventMedCreated": webhook.EventMedCreated, "EventMedAccepted": webhook.EventMedAccepted,
	"EventMedRejected": webhook.EventMedRejected,
}

// emitted reads every call of outbox.Emit in the simulator's non-test
// source and returns the (event type, kind) pairs they send.
func emitted(t *testing.T) map[pair][]string {
	t.Helper()
	out := map[pair][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || !isEmit(call.Fun) || len(call.Args) < 4 {
				return true
			}
			at := fset.Position(call.Pos()).String()
			name := ""
			switch e := call.Args[2].(type) {
			case *ast.SelectorExpr:
				name = e.Sel.Name
			case *ast.Ident:
				name = strings.TrimPrefix(e.Name, "webhook")
			}
			typ, ok := eventConsts[name]
			lit, isLit := call.Args[3].(*ast.BasicLit)
			if !ok || !isLit {
				t.Errorf("%s: outbox.Emit with an event type or kind this test cannot read (%T, %T); name the webhook.Event* constant and a literal kind", at, call.Args[2], call.Args[3])
				return true
			}
			kind, _ := strconv.Unquote(lit.Value)
			p := pair{typ, kind}
			out[p] = append(out[p], at)
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func isEmit(fun ast.Expr) bool {
	switch f := fun.(type) {
	case *ast.SelectorExpr:
		x, ok := f.X.(*ast.Ident)
		return ok && x.Name == "outbox" && f.Sel.Name == "Emit"
	case *ast.Ident:
		return f.Name == "Emit"
	}
	return false
}

// TestCatalogue_EveryWebhookHasARecipe fails when the simulator emits a
// webhook (an event type of simulator/webhook, a payload kind) that no event
// of the catalogue produces, or when an event is badly named.
func TestCatalogue_EveryWebhookHasARecipe(t *testing.T) {
	declared := map[pair]bool{}
	for _, ev := range events.All() {
		for _, k := range ev.Kinds {
			declared[pair{ev.EventType, k}] = true
		}
		if !events.IsEventName(ev.Name) || strings.ToLower(ev.Name) != ev.Name || ev.Summary == "" || ev.World == "" || ev.Status == "" {
			t.Errorf("event %+v: a name must be lower case with a dot, and have a summary, a world and a status", ev)
		}
		if got, ok := events.Lookup(strings.ToUpper(ev.Name)); !ok || got.Name != ev.Name {
			t.Errorf("Lookup(%q) = %v %v", strings.ToUpper(ev.Name), got.Name, ok)
		}
	}
	for _, typ := range webhook.EventTypes {
		if !slices.ContainsFunc(events.All(), func(e events.Event) bool { return e.EventType == typ }) {
			t.Errorf("no event produces a webhook of type %s", typ)
		}
	}
	found := emitted(t)
	if len(found) < len(webhook.EventTypes) {
		t.Fatalf("found only %d kinds of webhook emitted: %v", len(found), found)
	}
	for p, at := range found {
		if !declared[p] {
			t.Errorf("%s sends %s to %s targets, and no event of simulator/events produces it: add a recipe", strings.Join(at, ", "), p.kind, p.eventType)
		}
	}
	for _, s := range scenarios.All() {
		if events.IsEventName(s.Name) {
			t.Errorf("scenario %s reads as an event name", s.Name)
		}
	}
}

// receiver records deliveries by webhook-id, with the path they came to.
type receiver struct {
	mu  sync.Mutex
	got map[string]delivered
}

type delivered struct {
	path string
	body map[string]any
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	rc.mu.Lock()
	rc.got[r.Header.Get("webhook-id")] = delivered{r.URL.Path, m}
	rc.mu.Unlock()
}

func (rc *receiver) get(id string) (delivered, bool) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	d, ok := rc.got[id]
	return d, ok
}

// kindAndStatus reads a webhook body's kind and status as the catalogue
// names them.
func kindAndStatus(body map[string]any) (kind, status string) {
	str := func(v any) string { s, _ := v.(string); return s }
	switch {
	case body["type"] != nil: // V2: TRANSFER, RECEIVE, REFUND
		data, _ := body["data"].(map[string]any)
		return str(body["type"]), str(data["status"])
	case body["med"] != nil:
		m, _ := body["med"].(map[string]any)
		return "MED", str(m["status"])
	}
	return str(body["event"]), str(body["status"]) // CashOut, CashIn
}

// TestTrigger_EveryEvent triggers every event of the catalogue for account 1,
// whose every event type has a target, and checks each webhook arrives with
// the declared type, kind and status, that only cashin.expired moves the
// clock, and that the ledger's invariants hold afterwards. cashin.paid runs
// twice, the second time with the account's cash-in webhook set to CashIn.
func TestTrigger_EveryEvent(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{})
	ctx := context.Background()
	rc := &receiver{got: map[string]delivered{}}
	srv := httptest.NewServer(rc)
	t.Cleanup(srv.Close)
	for _, typ := range webhook.EventTypes {
		if _, _, err := env.Sim.RegisterWebhookTarget(ctx, webhook.Target{AccountID: 1, URL: srv.URL + "/" + typ, EventType: typ, Active: true}, false); err != nil {
			t.Fatal(err)
		}
	}
	produced := map[pair]bool{}
	trigger := func(ev events.Event) {
		t.Helper()
		before := env.Sim.ClockNow().Now
		res, err := events.Trigger(ctx, env.Sim, ev.Name, events.Params{})
		if err != nil {
			t.Fatalf("%s: %v (steps %q)", ev.Name, err, res.Steps)
		}
		if moved := env.Sim.ClockNow().Now.Sub(before); moved != res.ClockMoved || (moved != 0) != ev.MovesClock {
			t.Errorf("%s: the clock moved %s, the result says %s", ev.Name, moved, res.ClockMoved)
		}
		if len(res.Deliveries) != 1 || res.Deliveries[0].EventType != ev.EventType || res.Deliveries[0].TransactionID != res.TransactionID || len(res.Steps) == 0 {
			t.Fatalf("%s: deliveries %+v, transaction %d, steps %q", ev.Name, res.Deliveries, res.TransactionID, res.Steps)
		}
		if err := env.Sim.WaitWebhooks(ctx); err != nil {
			t.Fatal(err)
		}
		d, ok := rc.get(res.Deliveries[0].EventID)
		if !ok {
			t.Fatalf("%s: webhook %s did not arrive", ev.Name, res.Deliveries[0].EventID)
		}
		kind, status := kindAndStatus(d.body)
		if d.path != "/"+ev.EventType || !slices.Contains(ev.Kinds, kind) || status == "" || (kind == ev.Kinds[0] && status != ev.Status) {
			t.Errorf("%s: got %s %s %s at %s, want %s %v %s", ev.Name, ev.EventType, kind, status, d.path, ev.EventType, ev.Kinds, ev.Status)
		}
		produced[pair{ev.EventType, kind}] = true
	}
	for _, ev := range events.All() {
		trigger(ev)
	}
	st, err := env.Sim.AccountSettings(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	st.CashInWebhook = pix.CashInWebhookCashIn
	if _, err := env.Sim.SetAccountSettings(ctx, 1, st); err != nil {
		t.Fatal(err)
	}
	ev, _ := events.Lookup("cashin.paid")
	trigger(ev)

	for _, ev := range events.All() {
		for _, k := range ev.Kinds {
			if !produced[pair{ev.EventType, k}] {
				t.Errorf("%s declares %s %s, which no run produced", ev.Name, ev.EventType, k)
			}
		}
	}
	rep, err := env.Sim.CheckInvariants(ctx)
	if err != nil || len(rep.Violations) > 0 {
		t.Fatalf("invariants: %v %v", rep.Violations, err)
	}
}

// TestTrigger_Params: defaults apply, bad parameters are refused naming
// their field before anything is made, and a refusal of the core names its
// step and keeps its kind.
func TestTrigger_Params(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{})
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		event string
		p     events.Params
		want  *pix.Error
		field string
	}{
		{"unknown event", "cashout.nope", events.Params{}, &pix.Error{Kind: pix.KindNotFound}, "cashout.confirmed"},
		{"amount", "cashout.confirmed", events.Params{Amount: "1.234"}, &pix.Error{Kind: pix.KindInvalid}, "amount"},
		{"zero amount", "cashout.confirmed", events.Params{Amount: "0"}, &pix.Error{Kind: pix.KindInvalid}, "amount"},
		{"account", "pixin.received", events.Params{Account: -1}, &pix.Error{Kind: pix.KindInvalid}, "accountId"},
		{"no such account", "pixin.received", events.Params{Account: 999999}, &pix.Error{Kind: pix.KindNotFound}, "999999"},
		{"error code", "cashout.failed", events.Params{ErrorCode: "NOPE"}, &pix.Error{Kind: pix.KindInvalid}, "errorCode"},
		{"unknown key", "transfer.liquidated", events.Params{Key: "nobody@nowhere.example"}, &pix.Error{Kind: pix.KindInvalid}, "key"},
		{"another's key", "pixin.received", events.Params{Key: events.DefaultKey()}, &pix.Error{Kind: pix.KindInvalid}, "key"},
		{"own key to refund", "refundout.received", events.Params{Key: firstKey(t, env, 1)}, &pix.Error{Kind: pix.KindInvalid}, "key"},
		{"too much", "cashout.confirmed", events.Params{Amount: "99999999.00"}, &pix.Error{Kind: pix.KindUnprocessable, Code: pix.CodePixTransactionLimitExceeded}, "POST /api/pix/cash-out: "},
	} {
		res, err := events.Trigger(ctx, env.Sim, tc.event, tc.p)
		if !pix.Match(tc.want, err) || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%s: %v (steps %q)", tc.name, err, res.Steps)
		}
	}
	res, err := events.Trigger(ctx, env.Sim, "CASHOUT.FAILED", events.Params{Account: 2, Amount: "1.5", ErrorCode: pix.CodeAccountClosed})
	if err != nil {
		t.Fatal(err)
	}
	tx, err := env.Sim.Transaction(ctx, strconv.FormatInt(res.TransactionID, 10))
	if err != nil || tx.AccountID != 2 || tx.Amount != 1_50 || tx.ErrorCode != pix.CodeAccountClosed || len(res.Deliveries) != 0 {
		t.Fatalf("cashout.failed for account 2: %+v %v; deliveries %v", tx, err, res.Deliveries)
	}
}

func firstKey(t *testing.T, env *simulatortest.Env, id pix.AccountID) string {
	t.Helper()
	a, _, err := env.Sim.Account(context.Background(), id)
	if err != nil || len(a.PixKeys) == 0 {
		t.Fatalf("account %d: %+v %v", id, a, err)
	}
	return a.PixKeys[0].Key
}
