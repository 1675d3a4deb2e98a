package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/sandboxclient"
)

const webhooksUsage = `Usage:
  pixsandbox webhooks tail [--account N] [--interval 1s] [--since TIME|DURATION|all]
  pixsandbox webhooks rotate-secret ID [--overlap 24h] [--secret whsec_...]

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

rotate-secret gives a webhook target (ID a number) or every target of a
listener of pixsandbox listen (ID lst_...) a new signing secret, --secret or
a fresh one, and prints it. For --overlap of wall time (default 24h, at most
7d; 0 ends the old secret at once) every delivery, retries of earlier ones
included, carries two Standard Webhooks signatures, the new secret's first,
so the receiver verifies with either secret while it changes over.
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

func cliWebhooks(ctx context.Context, env Env, args []string) int {
	cc := newCLICmd(env, "webhooks", webhooksUsage)
	account := cc.fs.Int64("account", 0, "only this account's deliveries (default: every account)")
	interval := cc.fs.Duration("interval", time.Second, "how often to poll (wall time)")
	since := cc.fs.String("since", "", "also print earlier attempts: at or after an RFC 3339 TIME, within the last DURATION of simulation time, or all")
	rot := addRotateFlags(cc)
	pos, code, done := cc.parse(args)
	if done {
		return code
	}
	if code, done := cc.webhooksSubcommand(ctx, rot, pos, args); done {
		return code
	}
	switch {
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

	from, code, ok := cc.attemptsFrom(ctx, *since)
	if !ok {
		return code
	}

	// The first poll reads the newest deliveries; later ones follow attempt ids
	// (afterAttempt), so retries of old deliveries show too.
	var cur attemptCursor
	poll := poller{cc: cc, interval: *interval}
	return poll.follow(ctx, false, func(first bool) error {
		if !first {
			q.Set("afterAttempt", cur.after())
		}
		list, err := cc.client.Deliveries(ctx, q)
		switch {
		case ctx.Err() != nil:
			return nil // interrupted: nothing more to print
		case err != nil:
			// Keep watching across a restart of the server; follow says so once.
			return err
		}
		floor := int64(math.MinInt64) // the first poll takes every attempt it reads
		if !first {
			floor = cur.newest - cursorMargin
		}
		var fresh []cliNewAttempt
		for i := range list {
			d := &list[i]
			for _, raw := range d.Attempts {
				a, err := sandboxclient.DecodeAttempt(raw)
				if err != nil || !cur.mark(a.WebhookLogID, floor) {
					continue // printed (or before the start) already
				}
				t, _ := time.Parse(time.RFC3339Nano, a.SentAt)
				if first && (from == nil || t.Before(*from)) {
					continue
				}
				fresh = append(fresh, cliNewAttempt{d: d, a: a, raw: raw, sentAt: t})
			}
		}
		cur.prune()
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
			fmt.Fprintf(env.Stderr, "watching webhook deliveries of %s at %s every %s (Ctrl-C to stop)\n", who, cc.where(), *interval)
		}
		return nil
	})
}

// attemptsFrom reads --since of webhooks tail: the first poll prints the
// attempts sent at or after the time it returns; zero time with all; nil
// without --since (only later attempts). ok false: the command ends with code.
func (cc *cliCmd) attemptsFrom(ctx context.Context, since string) (from *time.Time, code int, ok bool) {
	switch s := strings.TrimSpace(since); {
	case s == "":
		return nil, 0, true
	case s == "all":
		return &time.Time{}, 0, true
	default:
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return &t, 0, true
		}
		d, err := parseSpan(s)
		if err != nil {
			return nil, cc.usageError("--since %q must be an RFC 3339 time, a duration such as 30m or 1d, or all", s), false
		}
		c, _, err := cc.client.Clock(ctx)
		if err != nil {
			return nil, cc.fail(err), false
		}
		now, err := c.Time()
		if err != nil {
			return nil, cc.fail(err), false
		}
		t := now.Add(-d)
		return &t, 0, true
	}
}

// attemptCursor follows webhook attempt ids from poll to poll (webhooks tail,
// listen). An attempt made concurrently with a resend may commit just below
// the newest id read, so each poll re-reads cursorMargin ids below it and skips
// those seen.
type attemptCursor struct {
	newest int64
	seen   map[int64]bool
}

// after is the afterAttempt of the next poll.
func (c *attemptCursor) after() string {
	return strconv.FormatInt(max(0, c.newest-cursorMargin), 10)
}

// mark records attempt id; false when it was seen already or is at or below
// floor.
func (c *attemptCursor) mark(id, floor int64) bool {
	if id <= floor || c.seen[id] {
		return false
	}
	if c.seen == nil {
		c.seen = map[int64]bool{}
	}
	c.seen[id] = true
	c.newest = max(c.newest, id)
	return true
}

// prune forgets the ids below every later cursor.
func (c *attemptCursor) prune() {
	for id := range c.seen {
		if id <= c.newest-cursorMargin {
			delete(c.seen, id)
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
		cliTime(a.SentAt), d.EventType, target, a.StatusCode, a.Number, d.EventID, d.AccountID, d.TransactionID)
	if a.Error != "" {
		line += "  error: " + a.Error
	}
	if d.Status == "retrying" && a.Number == len(d.Attempts) && d.NextAttemptAt != "" {
		line += "  next attempt at " + cliTime(d.NextAttemptAt)
	}
	cc.printf("%s\n", line)
}
