package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/sandboxclient"
)

const listenUsage = `Usage:
  pixsandbox listen --forward-to URL [--account N | --all] [--events cash_out,refund_in] [--print-json]

Forwards webhook events to a local URL while it runs, as stripe listen does.
It registers a temporary webhook target at URL for every event type of the
account (default 1, the first fixture account) or, with --all, of every
account, those created while it runs too (each renewal of its lease adds
them); the simulator then delivers each event there with its headers and a
Standard Webhooks signature, using the signing secret it prints at start
(--secret to choose one; pixsandbox webhooks rotate-secret with the listener's
id rotates it, and listen prints the new one). One line per delivery attempt as it
happens: simulation time, event type, webhook-id, transaction, and the status
the local URL answered (or the error). --print-json also prints each payload.

The simulator itself calls URL, so it must reach it (the same machine; from a
container, the host's address). The targets are removed on Ctrl-C; if this
command dies without removing them, they expire on their own --ttl (wall time)
after it stops polling. Works with both clocks: with a virtual clock, events
happen when the clock moves (pixsandbox clock advance 5s).
`

func cliListen(ctx context.Context, env Env, args []string) int {
	cc := newCLICmd(env, "listen", listenUsage)
	forward := cc.fs.String("forward-to", "", "the local URL deliveries go to, e.g. http://127.0.0.1:4000/webhooks")
	account := cc.fs.Int64("account", 1, "the account whose events to forward")
	all := cc.fs.Bool("all", false, "forward the events of every account, those created while it runs too")
	events := cc.fs.String("events", "", "only these event types, comma-separated: cash_in, cash_out, refund_in, refund_out, med_created, med_accepted, med_rejected")
	printJSON := cc.fs.Bool("print-json", false, "also print each delivery's payload")
	secret := cc.fs.String("secret", "", "the Standard Webhooks signing secret to use (whsec_...); default a new one")
	interval := cc.fs.Duration("interval", time.Second, "how often to poll (wall time)")
	ttl := cc.fs.Duration("ttl", 30*time.Second, "how long the targets outlive this command if it dies without removing them (wall time, 1s to 1h)")
	pos, code, done := cc.parse(args)
	if done {
		return code
	}
	u, err := url.Parse(*forward)
	switch {
	case len(pos) > 0:
		return cc.usageError("unexpected arguments %q", pos)
	case *forward == "":
		return cc.usageError("--forward-to is required, e.g. --forward-to http://127.0.0.1:4000/webhooks")
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return cc.usageError("--forward-to %q must be an http or https URL", *forward)
	case *all && cc.isSet("account"):
		return cc.usageError("give --account or --all, not both")
	case *account <= 0:
		return cc.usageError("--account must be a positive account id")
	case *interval <= 0:
		return cc.usageError("--interval must be positive, e.g. 1s or 200ms")
	case *ttl < time.Second || *ttl > time.Hour:
		return cc.usageError("--ttl must be 1s to 1h")
	case *ttl <= 2**interval:
		return cc.usageError("--ttl %s must be more than twice --interval %s, or the targets would expire between polls", *ttl, *interval)
	}
	req := listenerRequest(*forward, *ttl, *account, *all, *events, *secret)

	// The first cursor: the newest attempt before the targets exist.
	cursor, err := cc.newestAttempt(ctx)
	if err != nil {
		return cc.fail(err)
	}
	l, err := cc.client.CreateListener(ctx, req)
	if err != nil {
		return cc.fail(err)
	}
	mine := map[int64]bool{}
	types := map[string]bool{}
	for _, t := range l.Targets {
		mine[t.ID] = true
		types[t.EventType] = true
	}
	who := "account " + strconv.FormatInt(*account, 10)
	if *all {
		who = plural(len(l.AccountIDs), "account", "accounts")
	}
	if cc.workspace != "" {
		who += " of workspace " + cc.workspace
	}
	fmt.Fprintf(env.Stderr, "Ready! Forwarding %s of %s to %s (%s).\nSigning secret: %s (rotate: %s)\nCtrl-C to stop; the targets are then removed.\n",
		plural(len(types), "event type", "event types"), who, *forward, plural(len(l.Targets), "target", "targets"), l.Secret, cc.self("webhooks rotate-secret "+l.ID))
	defer cc.removeListener(l.ID, *ttl)

	return cc.forward(ctx, &l, mine, &attemptCursor{newest: cursor}, *account, *all, *printJSON, *interval)
}

// forward polls every interval until ctx ends (exit 0) or the simulator drops
// the listener (exit 1), reporting other failures once each.
func (cc *cliCmd) forward(ctx context.Context, l *sandboxclient.Listener, mine map[int64]bool, cur *attemptCursor, account int64, all, printJSON bool, interval time.Duration) int {
	poll := poller{cc: cc, interval: interval}
	for {
		err := cc.listenPoll(ctx, l, mine, cur, account, all, printJSON)
		if err != nil {
			var he *sandboxclient.HTTPError
			switch {
			case ctx.Err() != nil:
				return cliExitOK
			case errors.As(err, &he) && he.Status == http.StatusNotFound && strings.Contains(he.Path, "/renew"):
				fmt.Fprintf(cc.env.Stderr, "pixsandbox listen: the simulator dropped this listener (restarted, or the lease ran out): start listen again\n")
				return cliExitFail
			}
		}
		poll.report(err)
		if !poll.wait(ctx) {
			return cliExitOK
		}
	}
}

// listenerRequest is the listener listen asks for.
func listenerRequest(forward string, ttl time.Duration, account int64, all bool, events, secret string) sandboxclient.ListenerRequest {
	req := sandboxclient.ListenerRequest{URL: forward, TTLSeconds: int(ttl.Seconds())}
	if all {
		req.All = true
	} else {
		req.AccountID = account
	}
	if events != "" {
		var list []string
		for _, e := range strings.Split(events, ",") {
			if e = strings.TrimSpace(e); e != "" {
				list = append(list, e)
			}
		}
		req.Events = list
	}
	req.Secret = secret
	return req
}

// removeListener removes the listener's targets as listen ends.
func (cc *cliCmd) removeListener(id string, ttl time.Duration) {
	// The command's context has ended: removing the targets gets its own
	// short deadline (wall time: I/O).
	dctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	removed, err := cc.client.DeleteListener(dctx, id)
	if err != nil {
		fmt.Fprintf(cc.env.Stderr, "pixsandbox listen: could not remove the targets (they expire within %s): %v\n", ttl, err)
		return
	}
	fmt.Fprintf(cc.env.Stderr, "Stopped: %s removed.\n", plural(removed, "target", "targets"))
}

// newestAttempt is the id of the newest webhook attempt (0 when none).
func (cc *cliCmd) newestAttempt(ctx context.Context) (int64, error) {
	list, err := cc.client.Deliveries(ctx, url.Values{"limit": {"50"}})
	if err != nil {
		return 0, err
	}
	var newest int64
	for _, d := range list {
		for _, raw := range d.Attempts {
			if a, err := sandboxclient.DecodeAttempt(raw); err == nil {
				newest = max(newest, a.WebhookLogID)
			}
		}
	}
	return newest, nil
}

// listenPoll renews the lease (with --all, the answer lists the targets made
// for accounts created since), then prints the attempts to the listener's
// targets made since the cursor.
func (cc *cliCmd) listenPoll(ctx context.Context, l *sandboxclient.Listener, mine map[int64]bool, cur *attemptCursor, account int64, all, printJSON bool) error {
	renewed, err := cc.client.RenewListener(ctx, l.ID)
	if err != nil {
		return err
	}
	if renewed.Secret != "" && renewed.Secret != l.Secret { // pixsandbox webhooks rotate-secret lst_...
		l.Secret = renewed.Secret
		previous := "the previous one no longer signs"
		if renewed.PreviousSecretExpiresAt != "" {
			previous = "the previous one also signs until " + cliTime(renewed.PreviousSecretExpiresAt) + " (wall time)"
		}
		fmt.Fprintf(cc.env.Stderr, "Signing secret rotated: %s (%s).\n", l.Secret, previous)
	}
	for _, t := range renewed.Targets {
		if !mine[t.ID] {
			mine[t.ID] = true
			if !slices.Contains(l.AccountIDs, t.AccountID) {
				l.AccountIDs = append(l.AccountIDs, t.AccountID)
				fmt.Fprintf(cc.env.Stderr, "Forwarding the events of account %d too (created after listen started).\n", t.AccountID)
			}
		}
	}
	q := url.Values{"limit": {"1000"}, "afterAttempt": {cur.after()}}
	if !all {
		q.Set("accountId", strconv.FormatInt(account, 10))
	}
	list, err := cc.client.Deliveries(ctx, q)
	if err != nil {
		return err
	}
	for _, d := range list {
		for _, raw := range d.Attempts {
			a, err := sandboxclient.DecodeAttempt(raw)
			if err != nil || !cur.mark(a.WebhookLogID, cur.newest-cursorMargin) || !mine[d.TargetID] {
				continue
			}
			answer := fmt.Sprintf("%d %s", a.StatusCode, http.StatusText(a.StatusCode))
			if a.StatusCode == 0 {
				answer = "no answer: " + a.Error
			}
			retry := ""
			if a.Number > 1 {
				retry = fmt.Sprintf("  (attempt %d)", a.Number)
			}
			cc.printf("%s  %-12s %s  transaction %s  --> %s  [%s]%s\n", cliTime(a.SentAt), d.EventType, d.EventID,
				d.TransactionID, answer, humanDuration(time.Duration(a.DurationMs*float64(time.Millisecond))), retry)
			if printJSON {
				var pretty bytes.Buffer
				if json.Indent(&pretty, []byte(a.RequestBody), "", "  ") == nil {
					cc.printf("%s\n", pretty.String())
				} else {
					cc.printf("%s\n", a.RequestBody)
				}
			}
		}
	}
	cur.prune()
	return nil
}
