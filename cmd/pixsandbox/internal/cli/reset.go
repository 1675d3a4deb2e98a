package cli

import (
	"context"
)

const resetUsage = `Usage:
  pixsandbox reset [--yes]

Drops every record of the running simulator (accounts, transactions, charges,
refunds, MEDs, jobs, webhook targets and deliveries) and seeds the fixture
accounts and the DICT directory again (POST /_sandbox/reset; docs/spec-gaps.md
G-58). The clock stays where it is. Without --yes it asks for confirmation on
a terminal, and refuses when standard input is not one. With --workspace it
resets that workspace only: its fixture accounts come back if it was created
with them.
`

func cliReset(ctx context.Context, env Env, args []string) int {
	cc := newCLICmd(env, "reset", resetUsage)
	yes := cc.fs.Bool("yes", false, "reset without asking")
	pos, code, done := cc.parse(args)
	if done {
		return code
	}
	if len(pos) > 0 {
		return cc.usageError("unexpected arguments %q", pos)
	}
	again := "the fixture accounts"
	if cc.workspace != "" {
		again = "its fixture accounts (if it was created with them)"
	}
	what := "drop every account, transaction, charge, refund, MED, job, webhook target and delivery of " + cc.where() +
		" and seed " + again + " again"
	if code, ok := cc.confirm(*yes, what); !ok {
		return code
	}
	r, err := cc.client.Reset(ctx)
	if err != nil {
		return cc.fail(err)
	}
	if cc.json {
		cc.printRaw(r.Body)
		return cliExitOK
	}
	if cc.workspace != "" {
		cc.printf("reset: every record of workspace %s dropped, %s and the DICT directory seeded again (the clock did not move)\n", cc.workspace, again)
		return cliExitOK
	}
	cc.printf("reset: every record dropped, the fixture accounts and the DICT directory seeded again (the clock did not move)\n")
	return cliExitOK
}
