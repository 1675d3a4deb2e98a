package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/sandboxclient"
	"github.com/pixsandbox/pixsandbox/simulator/wire"
)

const requestsUsage = `Usage:
  pixsandbox requests [--account N] [--path PREFIX] [--status 404|4xx] [--since TIME|DURATION] [--ref ID] [--unmatched] [--limit N] [--follow]
  pixsandbox requests clear

Prints the requests the simulator answered, from its request journal (GET
/_sandbox/requests; the server keeps the last --journal-size, default 1000),
oldest first, one line each: simulation time, method, path, status, duration,
account, request id (the errorId of error bodies) and the network fault
applied to it, if any (pixsandbox fault). Secrets are masked by the server.
--since keeps those at or after an RFC 3339 TIME, or within the last
DURATION of simulation time (30m, 2h, 1d). --ref keeps those that named a
transaction identifier (transactionId, endToEndId, externalId, txid, ...).
--unmatched keeps the requests no route matched (404, 405, or the 401 an
unknown path answers without a token); under each request no route matched,
a line names the route it came closest to and what differs ("did you mean
POST /api/pix/cash-out? the path differs in 'cashout' → 'cash-out'").
--follow keeps printing new requests every --interval (wall time) until
interrupted (Ctrl-C). With --json each request is one JSON line with its
headers and bodies. clear empties the journal.
`

func cliRequests(ctx context.Context, env Env, args []string) int {
	cc := newCLICmd(env, "requests", requestsUsage)
	account := cc.fs.Int64("account", 0, "only this account's requests")
	path := cc.fs.String("path", "", "only requests whose path starts with PREFIX, e.g. /api/pix")
	status := cc.fs.String("status", "", "only requests answered with this status (404) or class (4xx)")
	since := cc.fs.String("since", "", "only requests at or after an RFC 3339 TIME or within the last DURATION of simulation time")
	ref := cc.fs.String("ref", "", "only requests that named this transaction identifier")
	unmatched := cc.fs.Bool("unmatched", false, "only requests no route matched, with the routes they came closest to")
	limit := cc.fs.Int("limit", 50, "at most this many requests (the first listing with --follow)")
	follow := cc.fs.Bool("follow", false, "keep printing new requests until interrupted")
	interval := cc.fs.Duration("interval", time.Second, "how often --follow polls (wall time)")
	pos, code, done := cc.parse(args)
	if done {
		return code
	}
	switch {
	case len(pos) == 1 && pos[0] == "clear":
		return cc.clearRequests(ctx)
	case len(pos) > 0:
		return cc.usageError("unexpected arguments %q (only clear)", pos)
	case *account < 0:
		return cc.usageError("--account must be a positive account id")
	case *limit < 1:
		return cc.usageError("--limit must be at least 1")
	case *interval <= 0:
		return cc.usageError("--interval must be positive, e.g. 1s or 200ms")
	}
	q := url.Values{"limit": {strconv.Itoa(*limit)}}
	if *account > 0 {
		q.Set("account", strconv.FormatInt(*account, 10))
	}
	for k, v := range map[string]string{"path": *path, "status": *status, "ref": *ref} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if *unmatched {
		q.Set("matched", "false")
	}
	if s := strings.TrimSpace(*since); s != "" {
		t, err := cc.sinceTime(ctx, s)
		if err != nil {
			return cc.fail(err)
		}
		if t.IsZero() {
			return cc.usageError("--since %q must be an RFC 3339 time or a duration such as 30m or 1d", s)
		}
		q.Set("since", t.UTC().Format(time.RFC3339Nano))
	}
	var after int64
	poll := poller{cc: cc, interval: *interval}
	return poll.follow(ctx, !*follow, func(first bool) error {
		return cc.requestsPoll(ctx, q, &after, first, *follow, *interval)
	})
}

// requestsPoll prints the requests journalled since after (the first time,
// the newest --limit ones) and moves after past them.
func (cc *cliCmd) requestsPoll(ctx context.Context, q url.Values, after *int64, first, follow bool, interval time.Duration) error {
	if !first {
		q.Set("after", strconv.FormatInt(*after, 10))
	}
	list, err := cc.client.Requests(ctx, q)
	switch {
	case ctx.Err() != nil:
		return nil // interrupted: nothing more to print
	case err != nil:
		return err
	case first && !list.Enabled:
		return fmt.Errorf("the simulator keeps no request journal: it runs with --journal-size 0 (PIXSANDBOX_JOURNAL_SIZE)")
	}
	for i := len(list.Data) - 1; i >= 0; i-- { // the server lists newest first
		var e sandboxclient.JournalEntry
		if sandboxclient.DecodeJSON(list.Data[i], &e) != nil {
			continue
		}
		*after = max(*after, e.ID)
		var extra journalNearMiss
		_ = sandboxclient.DecodeJSON(list.Data[i], &extra)
		if q.Get("matched") == "false" && extra.Route != unmatchedRoute {
			continue // a server older than the matched filter lists every request
		}
		cc.printJournalEntry(e, list.Data[i])
		if !cc.json {
			for _, m := range extra.NearMiss {
				cc.printf("    did you mean %s %s? %s\n", m.Method, m.Route, strings.Join(m.Differences, " and "))
			}
		}
	}
	if first && follow {
		fmt.Fprintf(cc.env.Stderr, "following requests at %s every %s (Ctrl-C to stop)\n", cc.where(), interval)
	}
	if first && !follow && len(list.Data) == 0 && !cc.json {
		cc.printf("no requests match\n")
	}
	return nil
}

// unmatchedRoute is the route of a journal entry no route matched.
const unmatchedRoute = "(unmatched)"

// journalNearMiss is what an entry of the journal says of its route: the
// template, and for a request no route matched the routes it came closest
// to.
type journalNearMiss struct {
	Route    string `json:"route"`
	NearMiss []struct {
		Method      string   `json:"method"`
		Route       string   `json:"route"`
		Differences []string `json:"differences"`
	} `json:"nearMiss"`
}

// clearRequests runs requests clear.
func (cc *cliCmd) clearRequests(ctx context.Context) int {
	deleted, r, err := cc.client.ClearRequests(ctx)
	if err != nil {
		return cc.fail(err)
	}
	if cc.json {
		cc.printRaw(r.Body)
		return cliExitOK
	}
	cc.printf("%s dropped from the journal\n", plural(deleted, "request", "requests"))
	return cliExitOK
}

// sinceTime reads --since: an RFC 3339 time, or a span back from the
// simulation clock's now. Zero time (no error) when s is neither.
func (cc *cliCmd) sinceTime(ctx context.Context, s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	d, err := parseSpan(s)
	if err != nil {
		return time.Time{}, nil
	}
	c, _, err := cc.client.Clock(ctx)
	if err != nil {
		return time.Time{}, err
	}
	now, err := c.Time()
	if err != nil {
		return time.Time{}, err
	}
	return now.Add(-d), nil
}

func (cc *cliCmd) printJournalEntry(e sandboxclient.JournalEntry, raw json.RawMessage) {
	if cc.json {
		cc.printRaw(raw)
		return
	}
	target := e.Path
	if e.Query != "" {
		target += "?" + e.Query
	}
	who := "-"
	if e.AccountID != "" {
		who = "account " + e.AccountID.String()
	}
	fault := ""
	if f := e.Fault; f != nil {
		fault = "  fault " + f.Applied + " (" + f.Source
		if f.RuleID != 0 {
			fault += " " + strconv.FormatInt(f.RuleID, 10)
		}
		fault += ")"
	}
	cc.printf("%s  %-6s %s  %d  %s  %s  %s%s\n", cliTime(e.Time), e.Method, target, e.Status,
		humanDuration(time.Duration(e.DurationMs*float64(time.Millisecond))), who, e.RequestID, fault)
}

// plural is "1 request", "2 requests".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// cliTime writes an instant the server sent (RFC 3339, any precision) as
// the API writes its timestamps, ISO 8601 in UTC with milliseconds
// (2026-03-02T12:00:00.000Z, wire.Time), so every time the CLI prints reads
// as the API's do. The date is kept: the simulation clock may be days ahead.
// Text that is not a time is returned as is.
func cliTime(s string) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return s
	}
	return wire.Time(t)
}

// humanDuration prints a wall-clock duration with a sensible precision.
func humanDuration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return strconv.FormatInt(d.Microseconds(), 10) + "µs"
	case d < time.Second:
		return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 1, 64) + "ms"
	}
	return d.Round(10 * time.Millisecond).String()
}
