package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/sandboxclient"
)

const webhooksUsage = `Usage:
  pixsandbox webhooks tail [--account N] [--interval 1s] [--since TIME|DURATION|all]

Prints webhook delivery attempts as they happen, one line each: simulation
time, event type, target URL, the receiver's status code (0 when none
answered, with the error), attempt number, webhook-id and transaction. It
polls GET /_sandbox/webhook-deliveries every --interval (wall time) and runs
until interrupted (Ctrl-C). Without --since only attempts made after it
starts are printed; --since also prints earlier ones: those at or after TIME
(RFC 3339, simulation time), within the last DURATION of simulation time
(30m, 2h, 1d), or all. With --json each attempt is one JSON line.

Attempts happen when the job runner delivers them: right away in the default
real-time clock mode, or when the clock moves (pixsandbox clock advance 5s).
`

// cursorMargin is how many attempt ids below the newest one read each poll of
// webhooks tail reads again (see the afterAttempt parameter).
const cursorMargin = 100

// cliNewAttempt is an attempt not printed yet.
type cliNewAttempt struct {
	d      *sandboxclient.Delivery
	a      sandboxclient.Attempt
	raw    json.RawMessage
	sentAt time.Time
}

func cliWebhooks(ctx context.Context, env cliEnv, args []string) int {
	cc := newCLICmd(env, "webhooks", webhooksUsage)
	account := cc.fs.Int64("account", 0, "only this account's deliveries (default: every account)")
	interval := cc.fs.Duration("interval", time.Second, "how often to poll (wall time)")
	since := cc.fs.String("since", "", "also print earlier attempts: at or after an RFC 3339 TIME, within the last DURATION of simulation time, or all")
	pos, code, done := cc.parse(args)
	if done {
		return code
	}
	switch {
	case len(pos) == 0:
		return cc.usageError("say tail")
	case pos[0] != "tail":
		return cc.usageError("unknown webhooks subcommand %q: say tail", pos[0])
	case len(pos) > 1:
		return cc.usageError("unexpected arguments %q", pos[1:])
	case *account < 0:
		return cc.usageError("--account must be a positive account id")
	case *interval <= 0:
		return cc.usageError("--interval must be positive, e.g. 1s or 200ms")
	}
	q := url.Values{"limit": {"1000"}}
	if *account > 0 {
		q.Set("accountId", strconv.FormatInt(*account, 10))
	}

	// from: print attempts sent at or after it on the first poll; zero time with
	// all; nil without --since (only later attempts).
	var from *time.Time
	switch s := strings.TrimSpace(*since); {
	case s == "":
	case s == "all":
		from = &time.Time{}
	default:
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			from = &t
			break
		}
		d, err := parseSpan(s)
		if err != nil {
			return cc.usageError("--since %q must be an RFC 3339 time, a duration such as 30m or 1d, or all", s)
		}
		c, _, err := cc.client.Clock(ctx)
		if err != nil {
			return cc.fail(err)
		}
		now, err := c.Time()
		if err != nil {
			return cc.fail(err)
		}
		t := now.Add(-d)
		from = &t
	}

	// The first poll reads the newest deliveries; later ones follow attempt ids
	// (afterAttempt), so retries of old deliveries show too. An attempt made
	// concurrently with a resend may commit just below the newest id read, so
	// each poll re-reads cursorMargin ids below it and skips those seen.
	seen := map[int64]bool{}
	var newest int64
	first := true
	poll := poller{cc: cc, interval: *interval}
	for {
		if !first {
			q.Set("afterAttempt", strconv.FormatInt(max(0, newest-cursorMargin), 10))
		}
		list, err := cc.client.Deliveries(ctx, q)
		switch {
		case ctx.Err() != nil:
			return cliExitOK
		case err != nil && first:
			return cc.fail(err)
		case err != nil:
			// Keep watching across a restart of the server; say so once.
			poll.report(err)
		default:
			poll.report(nil)
			var fresh []cliNewAttempt
			floor := newest - cursorMargin
			for i := range list {
				d := &list[i]
				for _, raw := range d.Attempts {
					a, err := sandboxclient.DecodeAttempt(raw)
					if err != nil {
						continue
					}
					id := a.WebhookLogID
					if (!first && id <= floor) || seen[id] {
						continue // printed (or before the start) already
					}
					seen[id] = true
					newest = max(newest, id)
					t, _ := time.Parse(time.RFC3339Nano, a.SentAt)
					if first && (from == nil || t.Before(*from)) {
						continue
					}
					fresh = append(fresh, cliNewAttempt{d: d, a: a, raw: raw, sentAt: t})
				}
			}
			for id := range seen {
				if id <= newest-cursorMargin {
					delete(seen, id) // below every later cursor
				}
			}
			sort.SliceStable(fresh, func(i, j int) bool {
				if !fresh[i].sentAt.Equal(fresh[j].sentAt) {
					return fresh[i].sentAt.Before(fresh[j].sentAt)
				}
				return fresh[i].a.WebhookLogID < fresh[j].a.WebhookLogID
			})
			for _, f := range fresh {
				cc.printAttempt(f)
			}
			if first {
				who := "every account"
				if *account > 0 {
					who = fmt.Sprintf("account %d", *account)
				}
				fmt.Fprintf(env.stderr, "watching webhook deliveries of %s at %s every %s (Ctrl-C to stop)\n", who, cc.client.Base, *interval)
				first = false
			}
		}
		if !poll.wait(ctx) {
			return cliExitOK
		}
	}
}

func (cc *cliCmd) printAttempt(f cliNewAttempt) {
	d, a := f.d, f.a
	if cc.json {
		line, err := json.Marshal(struct {
			DeliveryID    string          `json:"deliveryId"`
			EventID       string          `json:"eventId"`
			EventType     string          `json:"eventType"`
			AccountID     json.Number     `json:"accountId"`
			TransactionID json.Number     `json:"transactionId"`
			Status        string          `json:"status"`
			NextAttemptAt string          `json:"nextAttemptAt,omitempty"`
			Attempt       json.RawMessage `json:"attempt"`
		}{d.ID, d.EventID, d.EventType, d.AccountID, d.TransactionID, d.Status, d.NextAttemptAt, f.raw})
		if err == nil {
			cc.printf("%s\n", line)
		}
		return
	}
	target := a.URL
	if target == "" {
		target = d.URL
	}
	line := fmt.Sprintf("%s  %-12s %s  %d  attempt %d  webhook-id %s  account %s transaction %s",
		a.SentAt, d.EventType, target, a.StatusCode, a.Number, d.EventID, d.AccountID, d.TransactionID)
	if a.Error != "" {
		line += "  error: " + a.Error
	}
	if d.Status == "retrying" && a.Number == len(d.Attempts) && d.NextAttemptAt != "" {
		line += "  next attempt at " + d.NextAttemptAt
	}
	cc.printf("%s\n", line)
}
