package trigger

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/events"
	"github.com/pixsandbox/pixsandbox/simulator/sandboxclient"
)

// Event asks a running simulator for one webhook: POST
// /_sandbox/events/{event}, which makes a real transaction whose webhook goes
// to the account's targets and listeners, then, with Wait, the first attempt
// of each of its deliveries.
type Event struct {
	Client  *sandboxclient.Client
	Name    string
	Account int64
	// Amount, Key and ErrorCode are sent when not empty; the server has
	// defaults for each.
	Amount, Key, ErrorCode string
	// Wait bounds how long Do waits for each delivery's first attempt (wall
	// time); 0 does not wait.
	Wait time.Duration

	Raw    []byte      // the answer of POST /_sandbox/events/{event}
	Result EventResult // that answer
	// Attempts are the first attempts that came within Wait, by delivery id.
	Attempts map[string]sandboxclient.Attempt
}

// EventResult is the answer of POST /_sandbox/events/{event}.
type EventResult struct {
	Event             string          `json:"event"`
	EventType         string          `json:"eventType"`
	AccountID         int64           `json:"accountId"`
	TransactionID     int64           `json:"transactionId"`
	MEDID             int64           `json:"medId"`
	ClockMovedSeconds int64           `json:"clockMovedSeconds"`
	Steps             []string        `json:"steps"`
	Deliveries        []EventDelivery `json:"deliveries"`
}

// EventDelivery is a delivery the event planned.
type EventDelivery struct {
	ID       string `json:"id"`
	EventID  string `json:"eventId"`
	TargetID int64  `json:"targetId"`
	URL      string `json:"url"`
	Status   string `json:"status"`
}

// pollEvery paces the wait for the attempts.
const pollEvery = 50 * time.Millisecond

// Do triggers the event, then waits for the attempts.
func (e *Event) Do(ctx context.Context) error {
	body := map[string]any{"accountId": e.Account}
	if e.Amount != "" {
		body["amount"] = json.Number(e.Amount)
	}
	if e.Key != "" {
		body["key"] = e.Key
	}
	if e.ErrorCode != "" {
		body["errorCode"] = e.ErrorCode
	}
	r, err := e.Client.CallJSON(ctx, http.MethodPost, "/_sandbox/events/"+url.PathEscape(e.Name), body, nil, &e.Result, http.StatusCreated)
	if err != nil {
		return err
	}
	e.Raw, e.Attempts = r.Body, map[string]sandboxclient.Attempt{}
	if e.Wait <= 0 || len(e.Result.Deliveries) == 0 {
		return nil
	}
	return e.await(ctx)
}

// await polls the event's deliveries until each has an attempt or Wait has
// passed; a wait that runs out is not an error (the attempts go on).
func (e *Event) await(ctx context.Context) error {
	// Wall time: the bound of a wait for I/O, not simulation time.
	wctx, cancel := context.WithTimeout(ctx, e.Wait)
	defer cancel()
	q := url.Values{"accountId": {strconv.FormatInt(e.Result.AccountID, 10)}, "transactionId": {strconv.FormatInt(e.Result.TransactionID, 10)}}
	want := map[string]bool{}
	for _, d := range e.Result.Deliveries {
		want[d.ID] = true
	}
	for {
		ds, err := e.Client.Deliveries(wctx, q)
		if wctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			return err
		}
		for _, d := range ds {
			if want[d.ID] && len(d.Attempts) > 0 {
				if a, err := sandboxclient.DecodeAttempt(d.Attempts[0]); err == nil {
					e.Attempts[d.ID] = a
				}
			}
		}
		if len(e.Attempts) == len(want) {
			return nil
		}
		t := time.NewTimer(pollEvery)
		select {
		case <-wctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// Summary is the human summary of a triggered event: what was done, then
// where its webhook went and how each target answered. self writes the
// pixsandbox command line of args, for the hints.
func (e *Event) Summary(self func(args string) string) string {
	var b strings.Builder
	res := e.Result
	ev, _ := events.Lookup(res.Event)
	fmt.Fprintf(&b, "%s on account %d: %s\n", res.Event, res.AccountID, ev.Summary)
	for _, s := range res.Steps {
		fmt.Fprintf(&b, "  %s\n", s)
	}
	if len(res.Deliveries) == 0 {
		fmt.Fprintf(&b, "No webhook target of account %d takes %s events, so nothing was sent: run %s, or register a target (POST /_sandbox/webhook-targets).\n",
			res.AccountID, res.EventType, self(fmt.Sprintf("listen --account %d --forward-to URL", res.AccountID)))
		return b.String()
	}
	targets := "1 target"
	if n := len(res.Deliveries); n != 1 {
		targets = strconv.Itoa(n) + " targets"
	}
	fmt.Fprintf(&b, "Its %s webhook (%s %s, transaction %d) goes to %s:\n", res.EventType, strings.Join(ev.Kinds, " or "), ev.Status, res.TransactionID, targets)
	for _, d := range res.Deliveries {
		outcome := "no attempt yet: " + self(fmt.Sprintf("webhooks tail --account %d", res.AccountID))
		switch a, ok := e.Attempts[d.ID]; {
		case ok && a.StatusCode != 0:
			outcome = fmt.Sprintf("--> %d %s", a.StatusCode, http.StatusText(a.StatusCode))
		case ok:
			outcome = "--> " + a.Error + " (retried later)"
		}
		fmt.Fprintf(&b, "  %s  %s  webhook-id %s\n", d.URL, outcome, d.EventID)
	}
	return b.String()
}

// List is pixsandbox trigger --list: every event with its webhook, a line on
// what it announces and what triggering it does, then the scenarios.
func List() string {
	var b strings.Builder
	b.WriteString("Events (pixsandbox trigger EVENT; GET /_sandbox/events): the webhook, then what triggering it does.\n")
	for _, e := range events.All() {
		fmt.Fprintf(&b, "  %-19s %-12s %-19s %s\n", e.Name, e.EventType, e.Kinds[0]+" "+e.Status, e.Summary)
		for _, l := range wrapWords(e.World, 80) {
			fmt.Fprintf(&b, "  %19s %s\n", "", l)
		}
	}
	b.WriteString("\nScenarios (pixsandbox trigger SCENARIO; docs/scenarios.md):\n")
	for _, s := range scenarios.All() {
		fmt.Fprintf(&b, "  %-30s %s\n", s.Name, s.Summary)
	}
	return b.String()
}

// wrapWords breaks s into lines of at most width characters, at spaces.
func wrapWords(s string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && len(line)+1+len(w) > width {
			lines, line = append(lines, line), ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(lines, line)
}
