package trigger

import (
	"strings"
	"testing"

	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/events"
	"github.com/pixsandbox/pixsandbox/simulator/sandboxclient"
)

// The requests themselves are tested through pixsandbox trigger against a
// running simulator (cmd/pixsandbox TestCLI_Trigger and
// TestCLI_TriggerEveryEventToListen).

func TestCashOutKey(t *testing.T) {
	for _, tt := range []struct{ typ, key, wantKey, wantType string }{
		{"CPF", "52998224725", "52998224725", "DOCUMENT"},
		{"CNPJ", "11222333000181", "11222333000181", "DOCUMENT"},
		{"PHONE", "+5511999990000", "11999990000", "PHONE"},
		{"EVP", "123e4567-e89b-12d3-a456-426614174000", "123e4567-e89b-12d3-a456-426614174000", "RANDOM"},
		{"EMAIL", "a@b.example", "a@b.example", "EMAIL"},
	} {
		e := dictEntry{Type: tt.typ, Key: tt.key}
		if k, kt := e.cashOutKey(); k != tt.wantKey || kt != tt.wantType {
			t.Errorf("cashOutKey of %s %s = %s %s, want %s %s", tt.typ, tt.key, k, kt, tt.wantKey, tt.wantType)
		}
	}
}

func TestSupported(t *testing.T) {
	for _, op := range Ops {
		if !Supported(op) {
			t.Errorf("%s is in Ops but not supported", op)
		}
	}
	if Supported(scenarios.Operation("nothing.here")) {
		t.Error("an unknown operation is supported")
	}
}

func TestDefaultKeyAndRandomHex(t *testing.T) {
	if defaultKey() == "" {
		t.Error("no default key")
	}
	if h := randomHex(6); len(h) != 12 {
		t.Errorf("randomHex(6) = %q, want 12 hex digits", h)
	}
}

func TestList(t *testing.T) {
	l := List()
	for _, name := range append(events.Names(), "TAX_ID_MISMATCH") {
		if !strings.Contains(l, "  "+name+" ") {
			t.Errorf("List lacks %s:\n%s", name, l)
		}
	}
	for _, line := range strings.Split(l, "\n") {
		if strings.HasPrefix(line, "                     ") && len(line) > 22+80 {
			t.Errorf("a description line is not wrapped at 80: %q", line)
		}
	}
}

func TestWrapWords(t *testing.T) {
	got := wrapWords("aa bb cc dd", 5)
	if strings.Join(got, "|") != "aa bb|cc dd" {
		t.Fatalf("wrapWords = %q", got)
	}
	if got := wrapWords("", 5); len(got) != 1 || got[0] != "" {
		t.Fatalf("wrapWords of nothing = %q", got)
	}
}

func TestEventSummary(t *testing.T) {
	self := func(args string) string { return "pixsandbox " + args }
	e := &Event{Result: EventResult{Event: "cashout.failed", EventType: "cash_out", AccountID: 2, TransactionID: 7, Steps: []string{"step one"}}}
	if s := e.Summary(self); !strings.Contains(s, "step one") || !strings.Contains(s, "pixsandbox listen --account 2 --forward-to URL") {
		t.Fatalf("without a target:\n%s", s)
	}
	e.Result.Deliveries = []EventDelivery{{ID: "d1", EventID: "evt_1", URL: "http://a"}, {ID: "d2", EventID: "evt_2", URL: "http://b"}, {ID: "d3", EventID: "evt_3", URL: "http://c"}}
	e.Attempts = map[string]sandboxclient.Attempt{"d1": {StatusCode: 200}, "d2": {Error: "connection refused"}}
	s := e.Summary(self)
	for _, want := range []string{"goes to 3 targets", "http://a  --> 200 OK  webhook-id evt_1", "http://b  --> connection refused (retried later)",
		"http://c  no attempt yet: pixsandbox webhooks tail --account 2", "CashOut ERROR"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
}
