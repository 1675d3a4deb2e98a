package cli

import (
	"context"
	"strconv"
	"strings"

	"github.com/pixsandbox/pixsandbox/cmd/pixsandbox/internal/cmdline"
	"github.com/pixsandbox/pixsandbox/simulator/sandboxclient"
)

// webhooks rotate-secret: a new signing secret for a webhook target or a
// listener, the old one signing too for an overlap (Gap G-67).

// webhooksEnvPrefix prefixes the variables of the flags of webhooks
// rotate-secret: PIXSANDBOX_SECRET is listen's secret.
const webhooksEnvPrefix = "PIXSANDBOX_WEBHOOKS_"

// rotateFlags are the flags of webhooks rotate-secret, and tailFlags those of
// webhooks tail: each goes with its subcommand only.
var (
	rotateFlags = []string{"overlap", "secret"}
	tailFlags   = []string{"account", "interval", "since"}
)

// rotateOpts are the values of rotateFlags.
type rotateOpts struct {
	overlap, secret string
}

// addRotateFlags binds the flags of webhooks rotate-secret to cc, reading
// PIXSANDBOX_WEBHOOKS_<FLAG>.
func addRotateFlags(cc *cliCmd) *rotateOpts {
	var o rotateOpts
	cc.fs.StringVar(&o.overlap, "overlap", "", "rotate-secret: how long the old secret also signs, wall time, 0 to 7d (e.g. 24h, 90m, 0; default 24h)")
	cc.fs.StringVar(&o.secret, "secret", "", "rotate-secret: the new Standard Webhooks secret (whsec_...); default a fresh one")
	cc.envOf = func(flag string) string {
		for _, f := range rotateFlags {
			if f == flag {
				return cmdline.EnvNameIn(webhooksEnvPrefix, flag)
			}
		}
		return cmdline.EnvName(flag)
	}
	cc.envNote = "--overlap and --secret read PIXSANDBOX_WEBHOOKS_<FLAG>, the others PIXSANDBOX_<FLAG>,\ne.g. PIXSANDBOX_URL; flags win"
	return &o
}

// misplacedFlag returns the first flag of others that args gives on the
// command line ("" when none): a flag of the other subcommand.
func misplacedFlag(cc *cliCmd, args []string, others []string) string {
	given := flagsGiven(cc.fs, args)
	for _, f := range others {
		if given[f] {
			return f
		}
	}
	return ""
}

// webhooksSubcommand runs webhooks rotate-secret, or refuses a subcommand
// other than tail and a flag of rotate-secret given to tail; done false: go
// on with tail.
func (cc *cliCmd) webhooksSubcommand(ctx context.Context, o *rotateOpts, pos, args []string) (code int, done bool) {
	switch {
	case len(pos) > 0 && pos[0] == "rotate-secret":
		return cc.webhooksRotate(ctx, o, pos[1:], args), true
	case len(pos) == 0:
		return cc.usageError("say tail or rotate-secret ID"), true
	case pos[0] != "tail":
		return cc.usageError("unknown webhooks subcommand %q: say tail or rotate-secret", pos[0]), true
	}
	if f := misplacedFlag(cc, args, rotateFlags); f != "" {
		return cc.usageError("--%s goes with webhooks rotate-secret, not tail", f), true
	}
	return 0, false
}

// webhooksRotate runs webhooks rotate-secret ID: a number is a webhook
// target, lst_… a listener of pixsandbox listen.
func (cc *cliCmd) webhooksRotate(ctx context.Context, o *rotateOpts, pos, args []string) int {
	cc.name = "webhooks rotate-secret"
	if f := misplacedFlag(cc, args, tailFlags); f != "" {
		return cc.usageError("--%s goes with webhooks tail, not rotate-secret", f)
	}
	if len(pos) != 1 {
		return cc.usageError("say which: rotate-secret ID, a webhook target id (GET /_sandbox/webhook-targets) or a listener id (lst_...)")
	}
	rot := sandboxclient.Rotation{Secret: o.secret}
	if o.overlap != "" {
		d, err := parseSpan(o.overlap)
		if err != nil {
			return cc.usageError("--overlap %q must be a duration such as 24h, 90m or 7d, or 0 (the old secret stops at once)", o.overlap)
		}
		rot.Overlap = d.String()
	}
	id := pos[0]
	if strings.HasPrefix(id, "lst_") {
		l, r, err := cc.client.RotateListenerSecret(ctx, id, rot)
		if err != nil {
			return cc.fail(err)
		}
		return cc.printRotation(r, "listener "+id+" ("+plural(len(l.Targets), "target", "targets")+")", l.Secret, l.PreviousSecretExpiresAt)
	}
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || n <= 0 {
		return cc.usageError("ID %q must be a webhook target id (a positive number) or a listener id (lst_...)", id)
	}
	t, r, err := cc.client.RotateTargetSecret(ctx, n, rot)
	if err != nil {
		return cc.fail(err)
	}
	return cc.printRotation(r, "webhook target "+id+" ("+t.EventType+" "+t.URL+")", t.Secret, t.PreviousSecretExpiresAt)
}

// printRotation prints the answer of a rotation.
func (cc *cliCmd) printRotation(r *sandboxclient.Response, what, secret, until string) int {
	if cc.json {
		cc.printRaw(r.Body)
		return cliExitOK
	}
	cc.printf("%s: new signing secret %s\n", what, secret)
	if until == "" {
		cc.printf("The previous secret no longer signs: deliveries carry the new signature only.\n")
		return cliExitOK
	}
	cc.printf("Until %s (wall time) deliveries carry both signatures, the new one first; after that the new one only.\n"+
		"Give the new secret to the receiver before then.\n", cliTime(until))
	return cliExitOK
}
