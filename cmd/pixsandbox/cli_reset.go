package main

import (
	"bufio"
	"context"
	"fmt"
	"strings"
)

const resetUsage = `Usage:
  pixsandbox reset [--yes]

Drops every record of the running simulator (accounts, transactions, charges,
refunds, MEDs, jobs, webhook targets and deliveries) and seeds the fixture
accounts and the DICT directory again (POST /_sandbox/reset; docs/spec-gaps.md
G-58). The clock stays where it is. Without --yes it asks for confirmation on
a terminal, and refuses when standard input is not one.
`

func cliReset(ctx context.Context, env cliEnv, args []string) int {
	cc := newCLICmd(env, "reset", resetUsage)
	yes := cc.fs.Bool("yes", false, "reset without asking")
	pos, code, done := cc.parse(args)
	if done {
		return code
	}
	if len(pos) > 0 {
		return cc.usageError("unexpected arguments %q", pos)
	}
	if !*yes {
		if !env.terminal {
			fmt.Fprintf(env.stderr, "pixsandbox reset: standard input is not a terminal, so there is no one to confirm: "+
				"pass --yes to drop every record of %s and seed the fixtures again.\n", cc.client.Base)
			return cliExitUsage
		}
		fmt.Fprintf(env.stderr, "Drop every account, transaction, charge, refund, MED, job, webhook target and delivery of %s\n"+
			"and seed the fixture accounts again? Type yes to continue: ", cc.client.Base)
		line, _ := bufio.NewReader(env.stdin).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(line)); a != "yes" && a != "y" {
			fmt.Fprintln(env.stderr, "pixsandbox reset: not confirmed; nothing was changed.")
			return cliExitFail
		}
	}
	r, err := cc.client.Reset(ctx)
	if err != nil {
		return cc.fail(err)
	}
	if cc.json {
		cc.printRaw(r.Body)
		return cliExitOK
	}
	cc.printf("reset: every record dropped, the fixture accounts and the DICT directory seeded again (the clock did not move)\n")
	return cliExitOK
}
