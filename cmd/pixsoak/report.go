package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// recorder collects counts and violations from every goroutine of a run.
type recorder struct {
	mu         sync.Mutex
	violations []string
	acked      map[string]int // acknowledged (2xx) operations by kind
	rejected   map[string]int // definite 4xx answers by kind and code
	checks     []string       // what the final verification checked, with counts
	errorLines []string       // the server's level=ERROR log lines

	kills, restarts, invariantChecks, clockAdvances atomic.Int64
	unknownRetried, replays, uncertainResolved      atomic.Int64
	advancesKilled                                  atomic.Int64
}

func newRecorder() *recorder {
	return &recorder{acked: map[string]int{}, rejected: map[string]int{}}
}

func (r *recorder) violation(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.violations = append(r.violations, fmt.Sprintf(format, args...))
}

func (r *recorder) ack(kind string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.acked[kind]++
}

func (r *recorder) reject(kind, code string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rejected[strings.TrimSpace(kind+" "+code)]++
}

func (r *recorder) checked(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.checks = append(r.checks, fmt.Sprintf(format, args...))
}

func (r *recorder) count(c *atomic.Int64) { c.Add(1) }

// Report is the result of a run.
type Report struct {
	Kills, Restarts, InvariantChecks, ClockAdvances int
	// AdvancesKilled is how many clock advances the server died in the middle of.
	AdvancesKilled int
	// UnknownOutcomes is how many requests were sent again because the server
	// died before answering.
	UnknownOutcomes int
	// ResolvedByDuplicate is how many operations were acknowledged only by the
	// answer to their resend (PIX_DUPLICATE_EXTERNAL_ID, or a charge found paid):
	// the first attempt had committed before the kill.
	ResolvedByDuplicate int
	// Replays is how many acknowledged operations were deliberately sent again
	// with the same idempotency key and answered with the same transaction.
	Replays      int
	Acknowledged map[string]int
	Rejected     map[string]int
	Transactions int
	// Deliveries are the webhook deliveries the server planned; EventsReceived
	// the distinct webhook-id values the receiver got, Redeliveries the extra
	// requests for an id already received (at-least-once after a kill).
	Deliveries, EventsReceived, WebhookRequests, Redeliveries int
	ServerErrorLogLines                                       int
	// ServerErrors are the server's error log lines (informational: a request
	// cut by a kill may log one).
	ServerErrors []string
	Checks       []string
	Violations   []string
}

func (r *recorder) report() Report {
	r.mu.Lock()
	defer r.mu.Unlock()
	cp := func(m map[string]int) map[string]int {
		out := make(map[string]int, len(m))
		for k, v := range m {
			out[k] = v
		}
		return out
	}
	return Report{
		Kills: int(r.kills.Load()), Restarts: int(r.restarts.Load()), InvariantChecks: int(r.invariantChecks.Load()),
		ClockAdvances: int(r.clockAdvances.Load()), AdvancesKilled: int(r.advancesKilled.Load()), UnknownOutcomes: int(r.unknownRetried.Load()), ResolvedByDuplicate: int(r.uncertainResolved.Load()), Replays: int(r.replays.Load()),
		Acknowledged: cp(r.acked), Rejected: cp(r.rejected),
		ServerErrors: append([]string(nil), r.errorLines...),
		Checks:       append([]string(nil), r.checks...), Violations: append([]string(nil), r.violations...),
	}
}

// Print writes the report for people.
func (rep Report) Print(w io.Writer) {
	total := 0
	for _, n := range rep.Acknowledged {
		total += n
	}
	fmt.Fprintf(w, "pixsoak: %d kills, %d restarts, %d invariant checks, %d clock advances (+%d cut short by a kill)\n",
		rep.Kills, rep.Restarts, rep.InvariantChecks, rep.ClockAdvances, rep.AdvancesKilled)
	fmt.Fprintf(w, "operations acknowledged: %d (%s)\n", total, mapLine(rep.Acknowledged))
	fmt.Fprintf(w, "operations rejected (4xx, expected): %s\n", mapLine(rep.Rejected))
	fmt.Fprintf(w, "requests resent after a kill (unknown outcome): %d, of which %d had committed before the kill; deliberate idempotent replays: %d\n",
		rep.UnknownOutcomes, rep.ResolvedByDuplicate, rep.Replays)
	fmt.Fprintf(w, "transactions listed: %d\n", rep.Transactions)
	fmt.Fprintf(w, "webhooks: %d deliveries planned, %d distinct events received in %d requests (%d redeliveries)\n",
		rep.Deliveries, rep.EventsReceived, rep.WebhookRequests, rep.Redeliveries)
	if rep.ServerErrorLogLines > 0 {
		fmt.Fprintf(w, "server error log lines: %d\n", rep.ServerErrorLogLines)
		for i, l := range rep.ServerErrors {
			if i == 5 {
				break
			}
			fmt.Fprintf(w, "  %s\n", truncate(l, 300))
		}
	}
	fmt.Fprintln(w, "checked:")
	for _, c := range rep.Checks {
		fmt.Fprintf(w, "  - %s\n", c)
	}
	if len(rep.Violations) == 0 {
		fmt.Fprintln(w, "violations: 0")
		return
	}
	fmt.Fprintf(w, "violations: %d\n", len(rep.Violations))
	for i, v := range rep.Violations {
		if i == 50 {
			fmt.Fprintf(w, "  … %d more\n", len(rep.Violations)-50)
			break
		}
		fmt.Fprintf(w, "  ! %s\n", v)
	}
}

func mapLine(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	s := ""
	for i, k := range keys {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s %d", k, m[k])
	}
	if s == "" {
		return "none"
	}
	return s
}
