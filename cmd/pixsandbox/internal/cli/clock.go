package cli

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/sandboxclient"
)

const clockUsage = `Usage:
  pixsandbox clock show
  pixsandbox clock advance [--wait-webhooks] DURATION
  pixsandbox clock set [--wait-webhooks] TIME

Reads or moves the simulation clock. advance moves it forward by DURATION:
a Go duration (90s, 30m, 1h30m, 0s), a number of days (7d, 1d12h) or a bare
number of seconds (90). set moves it forward to TIME, RFC 3339 with a zone
(2026-03-09T12:00:00Z); the clock never moves back, so an earlier TIME is
refused by the server. A move runs every job that falls due on the way
(settlements, expiries, MED steps) before it answers; the webhook attempts
due on the way are handed to the server's worker pool and go on after the
answer. With --wait-webhooks the move also waits for them, at each instant
on the way (so retries happen at their own simulation times), and answers
once every attempt due by the new time is made.
Prints the simulation time, the clock's mode and, for a move, the jobs run
and the webhook attempts still under way.
`

func cliClock(ctx context.Context, env Env, args []string) int {
	cc := newCLICmd(env, "clock", clockUsage)
	waitWebhooks := cc.fs.Bool("wait-webhooks", false, "a move also waits for the webhook attempts due on the way")
	for _, a := range args {
		// "-5s" would otherwise read as an unknown flag.
		if len(a) > 1 && a[0] == '-' && (a[1] >= '0' && a[1] <= '9' || a[1] == '.') {
			return cc.usageError("cannot move the clock back by %s: the simulation clock only moves forward (give a positive DURATION such as 5s)", a[1:])
		}
	}
	pos, code, done := cc.parse(args)
	if done {
		return code
	}
	if len(pos) == 0 {
		return cc.usageError("say show, advance DURATION or set TIME")
	}
	var c sandboxclient.Clock
	var r *sandboxclient.Response
	var err error
	switch sub, rest := pos[0], pos[1:]; sub {
	case "show":
		if len(rest) != 0 {
			return cc.usageError("clock show takes no arguments")
		}
		c, r, err = cc.client.Clock(ctx)
	case "advance":
		if len(rest) != 1 {
			return cc.usageError("clock advance takes one DURATION, e.g. 90s, 30m, 2h or 7d")
		}
		d, perr := parseSpan(rest[0])
		if perr != nil {
			return cc.usageError("%v", perr)
		}
		c, r, err = cc.client.Advance(ctx, d, moveWait(*waitWebhooks))
	case "set":
		if len(rest) != 1 {
			return cc.usageError("clock set takes one TIME, e.g. 2026-03-09T12:00:00Z")
		}
		if _, err := time.Parse(time.RFC3339Nano, rest[0]); err != nil {
			return cc.usageError("TIME %q must be RFC 3339 with a zone, e.g. 2026-03-09T12:00:00Z", rest[0])
		}
		c, r, err = cc.client.SetClock(ctx, rest[0], moveWait(*waitWebhooks))
	default:
		return cc.usageError("unknown clock subcommand %q: say show, advance or set", sub)
	}
	if err != nil {
		return cc.fail(err)
	}
	if cc.json {
		cc.printRaw(r.Body)
		return cliExitOK
	}
	cc.printf("now %s (%s clock)", cliTime(c.Now), c.Mode)
	if c.JobsRun != nil {
		cc.printf(", %s run", plural(*c.JobsRun, "job", "jobs"))
	}
	if c.WebhooksPending != nil && *c.WebhooksPending > 0 {
		cc.printf(", %s under way", plural(*c.WebhooksPending, "webhook attempt", "webhook attempts"))
	}
	cc.printf("\n")
	return cliExitOK
}

// moveWait is the "wait" of a clock move.
func moveWait(webhooks bool) sandboxclient.Wait {
	if webhooks {
		return sandboxclient.WaitWebhooks
	}
	return sandboxclient.WaitJobs
}

// cliDays is a number of days, optionally followed by a Go duration: 7d, 1.5d, 1d12h.
var cliDays = regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?)d(.*)$`)

// parseSpan reads a non-negative span of simulation time: a Go duration, days
// (7d, 1d12h) or a bare number of seconds.
func parseSpan(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	bad := fmt.Errorf("DURATION %q must be a non-negative span such as 90s, 30m, 1h30m, 7d or 90 (seconds)", s)
	if cliDecimal.MatchString(s) {
		secs, err := strconv.ParseFloat(s, 64)
		if err != nil || secs*float64(time.Second) > math.MaxInt64 {
			return 0, bad
		}
		return time.Duration(secs * float64(time.Second)), nil
	}
	var days time.Duration
	if m := cliDays.FindStringSubmatch(s); m != nil {
		n, err := strconv.ParseFloat(m[1], 64)
		if err != nil || n*24*float64(time.Hour) > math.MaxInt64/2 {
			return 0, bad
		}
		days = time.Duration(n * 24 * float64(time.Hour))
		if s = m[2]; s == "" {
			return days, nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, bad
	}
	if d > math.MaxInt64-days {
		return 0, errors.New("DURATION is too long")
	}
	return days + d, nil
}
