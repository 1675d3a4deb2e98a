package netfault_test

import (
	"strings"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/netfault"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want netfault.Fault
		text string // String(); in when empty
	}{
		{in: "reset-before", want: netfault.Fault{Kind: netfault.ResetBefore}},
		{in: "reset-after", want: netfault.Fault{Kind: netfault.ResetAfter}},
		{in: " timeout ", want: netfault.Fault{Kind: netfault.Timeout}, text: "timeout"},
		{in: "delay=2s", want: netfault.Fault{Kind: netfault.Delay, Delay: 2 * time.Second}},
		{in: "delay=1500ms", want: netfault.Fault{Kind: netfault.Delay, Delay: 1500 * time.Millisecond}, text: "delay=1.5s"},
		{in: "delay=1h", want: netfault.Fault{Kind: netfault.Delay, Delay: time.Hour}, text: "delay=1h0m0s"},
		{in: "status=502", want: netfault.Fault{Kind: netfault.Status, Code: 502}},
		{in: "status=599; body=html", want: netfault.Fault{Kind: netfault.Status, Code: 599}, text: "status=599"},
		{in: "status=503;body=json", want: netfault.Fault{Kind: netfault.Status, Code: 503, JSON: true}},
		{in: "trickle=64", want: netfault.Fault{Kind: netfault.Trickle, Rate: 64}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := netfault.Parse(tt.in)
			if err != nil || got != tt.want {
				t.Fatalf("Parse(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
			}
			text := tt.text
			if text == "" {
				text = tt.in
			}
			if got.String() != text {
				t.Errorf("String() = %q, want %q", got.String(), text)
			}
			if again, err := netfault.Parse(got.String()); err != nil || again != got {
				t.Errorf("Parse(String()) = %+v, %v", again, err)
			}
		})
	}
}

func TestParse_Errors(t *testing.T) {
	tests := []struct{ in, says string }{
		{"", "is empty"},
		{"drop", `"drop" is not a fault`},
		{"RESET-BEFORE", "is not a fault"},
		{"timeout=5s", "takes no value"},
		{"reset-after=1", "takes no value"},
		{"delay", "delay must be a duration"},
		{"delay=0s", "delay must be a duration"},
		{"delay=-1s", "delay must be a duration"},
		{"delay=2h", "delay must be a duration"},
		{"delay=5", "delay must be a duration"},
		{"status=404", "from 500 to 599"},
		{"status=600", "from 500 to 599"},
		{"status=+502", "from 500 to 599"},
		{"status=0502", "from 500 to 599"},
		{"status=502;body=xml", "body=json"},
		{"trickle=0", "trickle must be"},
		{"trickle=1.5", "trickle must be"},
		{"trickle=+5", "trickle must be"},
		{"trickle=2000000000", "trickle must be"},
	}
	for _, tt := range tests {
		_, err := netfault.Parse(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.says) || !strings.Contains(err.Error(), "reset-after") {
			t.Errorf("Parse(%q) = %v, want an error saying %q and listing the faults", tt.in, err, tt.says)
		}
	}
}

// newRules is a set of rules over a few contract routes.
func newRules() *netfault.Rules {
	rs := netfault.NewRules()
	rs.SetRoutes([]netfault.Route{
		{Method: "POST", Path: "/api/pix/cash-out"}, {Method: "GET", Path: "/api/balance"},
		{Method: "PUT", Path: "/cob/{txid}"}, {Method: "GET", Path: "/cob/{txid}"},
	})
	return rs
}

func mustAdd(t *testing.T, rs *netfault.Rules, ws string, r netfault.Rule) netfault.Rule {
	t.Helper()
	out, err := rs.Add(ws, r)
	if err != nil {
		t.Fatalf("Add(%+v): %v", r, err)
	}
	return out
}

func TestRules_MatchAndTimes(t *testing.T) {
	rs := newRules()
	if !rs.Empty() {
		t.Fatal("a new set of rules is not empty")
	}
	reset := netfault.Fault{Kind: netfault.ResetAfter}
	r1 := mustAdd(t, rs, "", netfault.Rule{Method: "post", Route: "/api/pix/cash-out", Account: 2, Fault: reset, Times: 2})
	r2 := mustAdd(t, rs, "", netfault.Rule{Method: "*", Route: "*", Fault: netfault.Fault{Kind: netfault.Status, Code: 502}, Times: 1})
	if r1.ID != 1 || r2.ID != 2 || r1.Method != "POST" || r1.Probability != 1 {
		t.Fatalf("rules as added: %+v %+v", r1, r2)
	}
	for i, want := range []int64{1, 1, 2, 0} {
		a, ok, err := rs.For(nil, "", "POST", "/api/pix/cash-out", 2)
		if err != nil || ok != (want != 0) || a.Rule != want {
			t.Fatalf("request %d: %+v %v %v, want rule %d", i, a, ok, err, want)
		}
	}
	if _, ok, _ := rs.For(nil, "other-workspace", "GET", "/api/balance", 2); ok {
		t.Error("a rule of the default workspace applied in another")
	}
	got := rs.List("")
	if len(got) != 2 || got[0].Applied != 2 || got[0].Remaining() != 0 || got[1].Applied != 1 || got[1].Matched != 1 {
		t.Fatalf("List: %+v", got)
	}
	if _, ok, err := rs.For([]string{" "}, "", "GET", "/api/balance", 0); ok || err != nil {
		t.Fatalf("an empty header: %v %v, want no fault", ok, err)
	}
	a, ok, err := rs.For([]string{"delay=1ms"}, "", "POST", "/api/pix/cash-out", 2)
	if err != nil || !ok || a.Rule != 0 || a.Fault.Kind != netfault.Delay {
		t.Fatalf("the header's fault: %+v %v %v", a, ok, err)
	}
	if _, _, err := rs.For([]string{"nope"}, "", "GET", "/api/balance", 0); !pix.Match(&pix.Error{Kind: pix.KindInvalid}, err) ||
		err.(*pix.Error).Violations[0].Field != netfault.Header {
		t.Fatalf("a bad header: %v, want KindInvalid naming %s", err, netfault.Header)
	}
	if !rs.Delete("", 2) || rs.Delete("", 2) || rs.Clear("") != 1 || rs.Clear("") != 0 {
		t.Fatal("Delete and Clear")
	}
	if r := mustAdd(t, rs, "", netfault.Rule{Method: "GET", Route: "/api/balance", Fault: reset}); r.ID != 3 {
		t.Errorf("the id after a clear is %d, want 3 (ids are not reused)", r.ID)
	}
	if rs.Empty() {
		t.Error("Empty with a rule")
	}
	rs.Forget("")
	if rs.List("") != nil || !rs.Empty() {
		t.Error("Forget left rules")
	}
}

// TestRules_ProbabilityRepeats: a seeded probability makes the same decisions
// for the same requests in two runs, and another seed others.
func TestRules_ProbabilityRepeats(t *testing.T) {
	run := func(seed uint64) string {
		rs := newRules()
		mustAdd(t, rs, "", netfault.Rule{Method: "GET", Route: "/api/balance", Fault: netfault.Fault{Kind: netfault.Status, Code: 503}, Probability: 0.5, Seed: seed})
		var b strings.Builder
		for range 64 {
			_, ok, _ := rs.For(nil, "", "GET", "/api/balance", 1)
			b.WriteString(map[bool]string{true: "x", false: "."}[ok])
		}
		return b.String()
	}
	first, second := run(42), run(42)
	if first != second {
		t.Fatalf("seed 42 twice:\n%s\n%s", first, second)
	}
	if n := strings.Count(first, "x"); n < 16 || n > 48 {
		t.Errorf("probability 0.5 faulted %d of 64: %s", n, first)
	}
	if run(43) == first {
		t.Error("seeds 42 and 43 made the same decisions")
	}
}

func TestRules_AddRefuses(t *testing.T) {
	rs := newRules()
	ok := netfault.Fault{Kind: netfault.Timeout}
	tests := []struct {
		name  string
		rule  netfault.Rule
		field string
	}{
		{"no route", netfault.Rule{Method: "GET", Fault: ok}, "route"},
		{"no method", netfault.Rule{Route: "/api/balance", Fault: ok}, "method"},
		{"control plane", netfault.Rule{Method: "GET", Route: "/_sandbox/clock", Fault: ok}, "route"},
		{"a path, not a template", netfault.Rule{Method: "GET", Route: "/cob/abc", Fault: ok}, "route"},
		{"method of another route", netfault.Rule{Method: "DELETE", Route: "/cob/{txid}", Fault: ok}, "method"},
		{"method of no route", netfault.Rule{Method: "TRACE", Route: "*", Fault: ok}, "method"},
		{"negative account", netfault.Rule{Method: "*", Route: "*", Account: -1, Fault: ok}, "accountId"},
		{"negative times", netfault.Rule{Method: "*", Route: "*", Times: -1, Fault: ok}, "times"},
		{"probability above 1", netfault.Rule{Method: "*", Route: "*", Probability: 1.5, Fault: ok}, "probability"},
		{"no fault", netfault.Rule{Method: "*", Route: "*"}, "fault"},
	}
	for _, tt := range tests {
		_, err := rs.Add("", tt.rule)
		var e *pix.Error
		if !pix.Match(&pix.Error{Kind: pix.KindInvalid}, err) || len(err.(*pix.Error).Violations) != 1 {
			t.Errorf("%s: %v, want KindInvalid naming %s", tt.name, err, tt.field)
			continue
		}
		if e = err.(*pix.Error); e.Violations[0].Field != tt.field {
			t.Errorf("%s: names %q (%s), want %q", tt.name, e.Violations[0].Field, e.Violations[0].Message, tt.field)
		}
	}
	for range netfault.MaxRules {
		mustAdd(t, rs, "w", netfault.Rule{Method: "*", Route: "*", Fault: ok})
	}
	if _, err := rs.Add("w", netfault.Rule{Method: "*", Route: "*", Fault: ok}); err == nil {
		t.Error("a workspace took more than MaxRules rules")
	}
}

// TestRules_ForCostsNothingWithoutRules: with no header and no rule, For
// allocates nothing (an atomic load), nor with rules in another workspace
// only (a map lookup more).
func TestRules_ForCostsNothingWithoutRules(t *testing.T) {
	rs := newRules()
	if n := testing.AllocsPerRun(100, func() { rs.For(nil, "", "GET", "/api/balance", 1) }); n != 0 {
		t.Errorf("no rules: %v allocations a request", n)
	}
	mustAdd(t, rs, "other", netfault.Rule{Method: "*", Route: "*", Fault: netfault.Fault{Kind: netfault.Timeout}})
	if n := testing.AllocsPerRun(100, func() { rs.For(nil, "", "GET", "/api/balance", 1) }); n != 0 {
		t.Errorf("rules elsewhere: %v allocations a request", n)
	}
}
