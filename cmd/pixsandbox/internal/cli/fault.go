package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/pixsandbox/pixsandbox/cmd/pixsandbox/internal/cmdline"
	"github.com/pixsandbox/pixsandbox/simulator/sandboxclient"
)

const faultUsage = `Usage:
  pixsandbox fault add METHOD ROUTE FAULT [--account N] [--times N] [--probability P] [--seed N]
  pixsandbox fault list
  pixsandbox fault clear [ID]

Makes requests of the PIX API fail as a network would (docs/faults.md),
through the workspace's fault rules (/_sandbox/faults). add makes the
requests of METHOD and ROUTE (a route's template as docs/openapi.yaml writes
it, e.g. POST /api/pix/cash-out or GET /cob/{txid}; "*" for every method or
route) get FAULT:

  delay=DURATION     the route runs (and commits); its answer comes DURATION later (at most 1h)
  timeout            the route does not run; no answer until the client gives up
  reset-before       the route does not run; the connection is closed without an answer
  reset-after        the route runs (and commits); the connection is closed without its answer
  status=5XX         the route does not run; a gateway's error page (add ;body=json for JSON)
  trickle=BYTES      the route's answer at BYTES a second

--account keeps the rule to one account's requests, --times to that many
faulted requests, --probability to that share of the matching requests,
drawn from --seed (default 0) so that a run made again fails the same
requests. A request gets the first rule that matches; a request with the
header X-Sandbox-Fault: FAULT gets that fault instead. The control plane,
/healthz and /metrics are never faulted. The journal (pixsandbox requests)
marks each request a fault was applied to.

list prints the rules with how many requests each matched and faulted.
clear removes every rule, or rule ID. Rules live in the server's memory: a
restart, pixsandbox reset and the workspace's deletion clear them.

  pixsandbox fault add POST /api/pix/cash-out reset-after --times 1
  pixsandbox fault add GET /api/balance status=503 --probability 0.2 --seed 7
`

// faultEnvPrefix prefixes the variables of the fault command's own flags
// (PIXSANDBOX_SEED is serve's seed, PIXSANDBOX_ACCOUNT token's account).
const faultEnvPrefix = "PIXSANDBOX_FAULT_"

// faultFlags are the fault command's own flags, all of fault add.
var faultFlags = map[string]bool{"account": true, "times": true, "probability": true, "seed": true}

func cliFault(ctx context.Context, env Env, args []string) int {
	cc := newCLICmd(env, "fault", faultUsage)
	cc.envOf = func(flag string) string {
		if faultFlags[flag] {
			return cmdline.EnvNameIn(faultEnvPrefix, flag)
		}
		return cmdline.EnvName(flag)
	}
	cc.envNote = "--url, --admin-token, --json and --workspace also read from PIXSANDBOX_<FLAG>, the others from\n" +
		"PIXSANDBOX_FAULT_<FLAG>, e.g. PIXSANDBOX_FAULT_SEED; flags win"
	var req sandboxclient.FaultRequest
	var seed uint64
	cc.fs.Int64Var(&req.AccountID, "account", 0, "add: only this account's requests (default every account)")
	cc.fs.IntVar(&req.Times, "times", 0, "add: at most this many faulted requests (default no limit)")
	cc.fs.Float64Var(&req.Probability, "probability", 1, "add: the share of matching requests faulted, above 0 and at most 1")
	cc.fs.Uint64Var(&seed, "seed", 0, "add: seeds the draws of --probability, so a run made again fails the same requests")
	pos, code, done := cc.parse(args)
	if done {
		return code
	}
	if len(pos) == 0 {
		return cc.usageError("say add METHOD ROUTE FAULT, list or clear [ID]")
	}
	sub, rest := pos[0], pos[1:]
	cc.name = "fault " + sub
	for _, name := range []string{"account", "times", "probability", "seed"} {
		if sub != "add" && cc.isSet(name) {
			return cc.usageError("--%s goes with fault add, not %s", name, sub)
		}
	}
	switch sub {
	case "add":
		if len(rest) != 3 {
			return cc.usageError("fault add takes METHOD ROUTE FAULT, e.g. POST /api/pix/cash-out reset-after")
		}
		req.Method, req.Route, req.Fault = rest[0], rest[1], rest[2]
		switch {
		case cc.isSet("account") && req.AccountID <= 0:
			return cc.usageError("--account must be a positive account id")
		case cc.isSet("times") && req.Times <= 0:
			return cc.usageError("--times must be a positive number of requests")
		case !(req.Probability > 0 && req.Probability <= 1):
			return cc.usageError("--probability must be above 0 and at most 1, e.g. 0.25")
		}
		if cc.isSet("seed") {
			req.Seed = &seed
		}
		return cc.faultAdd(ctx, req)
	case "list":
		if len(rest) != 0 {
			return cc.usageError("fault list takes no arguments")
		}
		return cc.faultList(ctx)
	case "clear":
		return cc.faultClear(ctx, rest)
	}
	return cc.usageError("unknown fault subcommand %q: say add, list or clear", sub)
}

func (cc *cliCmd) faultAdd(ctx context.Context, req sandboxclient.FaultRequest) int {
	rule, r, err := cc.client.AddFault(ctx, req)
	return cc.answered(r, err, func() {
		cc.printf("fault rule %d: %s %s gets %s%s\n", rule.ID, rule.Method, rule.Route, rule.Fault, faultScope(rule))
	})
}

// faultScope says which requests of its route a rule faults.
func faultScope(r sandboxclient.FaultRule) string {
	var parts []string
	if r.AccountID != nil {
		parts = append(parts, "account "+strconv.FormatInt(*r.AccountID, 10))
	}
	if r.Times != nil {
		parts = append(parts, plural(*r.Times, "time", "times"))
	}
	if r.Probability < 1 {
		parts = append(parts, "probability "+strconv.FormatFloat(r.Probability, 'g', -1, 64)+", seed "+strconv.FormatUint(r.Seed, 10))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func (cc *cliCmd) faultList(ctx context.Context) int {
	rules, r, err := cc.client.Faults(ctx)
	return cc.answered(r, err, func() {
		if len(rules) == 0 {
			cc.printf("no fault rules in %s\n", cc.where())
			return
		}
		tw := tabwriter.NewWriter(cc.env.Stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tMETHOD\tROUTE\tFAULT\tAPPLIES TO\tMATCHED\tAPPLIED")
		for _, rule := range rules {
			scope := strings.TrimSuffix(strings.TrimPrefix(faultScope(rule), " ("), ")")
			if scope == "" {
				scope = "every request"
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d\t%d\n", rule.ID, rule.Method, rule.Route, rule.Fault, scope, rule.Matched, rule.Applied)
		}
		_ = tw.Flush()
	})
}

func (cc *cliCmd) faultClear(ctx context.Context, rest []string) int {
	switch len(rest) {
	case 0:
		n, r, err := cc.client.ClearFaults(ctx)
		return cc.answered(r, err, func() { cc.printf("%s cleared\n", plural(n, "fault rule", "fault rules")) })
	case 1:
		id, err := strconv.ParseInt(rest[0], 10, 64)
		if err != nil || id <= 0 {
			return cc.usageError("ID %q must be a rule's id, as fault list prints it", rest[0])
		}
		r, err := cc.client.DeleteFault(ctx, id)
		return cc.answered(r, err, func() { cc.printf("fault rule %d removed\n", id) })
	}
	return cc.usageError("fault clear takes at most one ID")
}
