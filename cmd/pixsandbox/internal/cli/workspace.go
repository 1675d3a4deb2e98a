package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pixsandbox/pixsandbox/cmd/pixsandbox/internal/cmdline"
	"github.com/pixsandbox/pixsandbox/simulator/sandboxclient"
)

const workspaceUsage = `Usage:
  pixsandbox workspace create [--name N] [--clock virtual|real] [--clock-start TIME] [--seed N]
                              [--accounts N|fixtures|none] [--ttl 24h] [--from-snapshot FILE] [--quiet]
  pixsandbox workspace list [--page N] [--size N]
  pixsandbox workspace show [ID]
  pixsandbox workspace delete ID [--yes]
  pixsandbox workspace snapshot [ID] [--out FILE]

Manages the workspaces of a running simulator: isolated worlds on one server,
each with its own accounts, records, jobs and simulation clock
(docs/workspaces.md). Every other command acts in one with --workspace ID
(PIXSANDBOX_WORKSPACE).

create makes one (POST /_sandbox/workspaces) and prints its id, its admin
token and each account's clientId and clientSecret. The server returns them
once; they are printed and written nowhere else. --json prints the whole
answer, the accounts' certificates and private keys too; --quiet prints the
id alone:

  export PIXSANDBOX_WORKSPACE=$(pixsandbox workspace create --quiet)

--accounts is a number of new accounts, fixtures (the fixture accounts with
new client ids and secrets; the default) or none. --ttl is how long the
workspace lives without a request (wall time; 0 never expires). With
--from-snapshot FILE the workspace is a copy of a document written by
workspace snapshot; only --name and --ttl go with it.

list prints a page of the workspaces, oldest first. show prints one. delete
deletes one and everything in it; without --yes it asks for confirmation on
a terminal, and refuses when standard input is not one. snapshot writes a
workspace as one JSON document (GET /_sandbox/workspaces/{id}/snapshot) to
--out FILE (readable by its owner only: it holds the workspace's secrets) or
to standard output. show and snapshot act on the workspace of --workspace
when ID is left out.
`

// workspaceEnvPrefix prefixes the variables of the workspace command's own
// flags.
const workspaceEnvPrefix = "PIXSANDBOX_WORKSPACE_"

// workspaceFlags are the workspace command's own flags: the subcommand each
// goes with.
var workspaceFlags = map[string]string{
	"name": "create", "clock": "create", "clock-start": "create", "seed": "create", "accounts": "create",
	"ttl": "create", "from-snapshot": "create", "quiet": "create",
	"page": "list", "size": "list",
	"yes": "delete",
	"out": "snapshot",
}

// workspaceOpts are the values of workspaceFlags.
type workspaceOpts struct {
	name, clock, clockStart, accounts, ttl, fromSnapshot string
	seed                                                 uint64
	quiet                                                bool
	page, size                                           int
	yes                                                  bool
	out                                                  string
}

func cliWorkspace(ctx context.Context, env Env, args []string) int {
	cc := newCLICmd(env, "workspace", workspaceUsage)
	// Its own flags read PIXSANDBOX_WORKSPACE_<FLAG>: PIXSANDBOX_TTL is
	// listen's lease and PIXSANDBOX_CLOCK serve's clock, not a new
	// workspace's.
	cc.envOf = func(flag string) string {
		if _, own := workspaceFlags[flag]; own {
			return cmdline.EnvNameIn(workspaceEnvPrefix, flag)
		}
		return cmdline.EnvName(flag)
	}
	cc.envNote = "--url, --admin-token, --json and --workspace also read from PIXSANDBOX_<FLAG>, the others from\n" +
		"PIXSANDBOX_WORKSPACE_<FLAG>, e.g. PIXSANDBOX_WORKSPACE_TTL; flags win"
	var o workspaceOpts
	fs := cc.fs
	fs.StringVar(&o.name, "name", "", "create: a label for the workspace, at most 100 characters")
	fs.StringVar(&o.clock, "clock", "", "create: the workspace's clock, virtual (moves only when advanced; the default) or real")
	fs.StringVar(&o.clockStart, "clock-start", "", "create: the virtual clock's first instant, RFC 3339 (default: where the server's virtual clock started)")
	fs.Uint64Var(&o.seed, "seed", 0, "create: seed of the generated names, documents, keys and balances (default random)")
	fs.StringVar(&o.accounts, "accounts", "", "create: a number of new accounts, fixtures (the default) or none")
	fs.StringVar(&o.ttl, "ttl", "", "create: how long the workspace lives without a request, e.g. 2h or 7d (wall time; 0 never expires; default 24h)")
	fs.StringVar(&o.fromSnapshot, "from-snapshot", "", "create: make the workspace from a JSON document of workspace snapshot")
	fs.BoolVar(&o.quiet, "quiet", false, "create: print the id alone (over PIXSANDBOX_JSON)")
	fs.IntVar(&o.page, "page", 1, "list: the page to print")
	fs.IntVar(&o.size, "size", 50, "list: workspaces per page, 1 to 500")
	fs.BoolVar(&o.yes, "yes", false, "delete: delete without asking")
	fs.StringVar(&o.out, "out", "", "snapshot: write the document to FILE instead of standard output")
	pos, code, done := cc.parse(args)
	if done {
		return code
	}
	if len(pos) == 0 {
		return cc.usageError("say create, list, show ID, delete ID or snapshot ID")
	}
	sub, rest := pos[0], pos[1:]
	given := flagsGiven(fs, args)
	subs := map[string]func() int{
		"create":   func() int { return cc.workspaceCreate(ctx, o, rest, given) },
		"list":     func() int { return cc.workspaceList(ctx, o, rest) },
		"show":     func() int { return cc.workspaceShow(ctx, rest) },
		"delete":   func() int { return cc.workspaceDelete(ctx, o, rest) },
		"snapshot": func() int { return cc.workspaceSnapshot(ctx, o, rest) },
	}
	run, ok := subs[sub]
	if !ok {
		return cc.usageError("unknown workspace subcommand %q: say create, list, show, delete or snapshot", sub)
	}
	cc.name = "workspace " + sub // for its messages
	for _, name := range slices.Sorted(maps.Keys(given)) {
		if of, ok := workspaceFlags[name]; ok && of != sub {
			return cc.usageError("--%s goes with workspace %s, not %s", name, of, sub)
		}
	}
	return run()
}

// flagsGiven returns the names of the flags args gives on the command line,
// not those set by a PIXSANDBOX_* variable only.
func flagsGiven(fs *flag.FlagSet, args []string) map[string]bool {
	given := map[string]bool{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		name, _, inline := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := fs.Lookup(name)
		if f == nil {
			continue
		}
		given[name] = true
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !inline && (!ok || !b.IsBoolFlag()) {
			i++ // its value
		}
	}
	return given
}

// newWorkspace checks the flags of workspace create and returns the body
// they ask for; code is the exit code of a usage error (ok false).
func (cc *cliCmd) newWorkspace(o workspaceOpts, given map[string]bool) (in sandboxclient.NewWorkspace, code int, ok bool) {
	in.Name = o.name
	if o.ttl != "" {
		d, err := parseSpan(o.ttl)
		if err != nil {
			return in, cc.usageError("--ttl %q must be a duration such as 24h, 90m or 7d, or 0 (never expires)", o.ttl), false
		}
		in.TTL = d.String()
	}
	if o.fromSnapshot != "" {
		for _, f := range []string{"clock", "clock-start", "seed", "accounts"} {
			if given[f] {
				return in, cc.usageError("--%s does not go with --from-snapshot: the snapshot brings the workspace's clock, seed and accounts", f), false
			}
		}
		return in, 0, true
	}
	switch o.clock {
	case "", "virtual", "real":
		in.Clock = o.clock
	default:
		return in, cc.usageError("--clock must be virtual or real, not %q", o.clock), false
	}
	if o.clockStart != "" {
		if _, err := time.Parse(time.RFC3339Nano, o.clockStart); err != nil {
			return in, cc.usageError("--clock-start %q must be RFC 3339 with a zone, e.g. 2026-03-02T12:00:00Z", o.clockStart), false
		}
		in.ClockStart = o.clockStart
	}
	if cc.isSet("seed") {
		in.Seed = &o.seed
	}
	switch a := strings.TrimSpace(o.accounts); a {
	case "":
	case "fixtures", "none":
		in.Accounts = a
	default:
		n, err := strconv.Atoi(a)
		if err != nil || n < 0 {
			return in, cc.usageError("--accounts %q must be a number of new accounts, fixtures or none", o.accounts), false
		}
		in.Accounts = n
	}
	return in, 0, true
}

// workspaceCreate runs workspace create.
func (cc *cliCmd) workspaceCreate(ctx context.Context, o workspaceOpts, rest []string, given map[string]bool) int {
	switch {
	case len(rest) > 0:
		return cc.usageError("workspace create takes no arguments, only flags: unexpected %q", rest)
	case given["quiet"] && given["json"]:
		return cc.usageError("give --quiet or --json, not both")
	}
	in, code, ok := cc.newWorkspace(o, given)
	if !ok {
		return code
	}
	if o.fromSnapshot != "" {
		doc, err := os.ReadFile(o.fromSnapshot)
		if err != nil {
			return cc.fail(fmt.Errorf("read the snapshot: %w", err))
		}
		if !json.Valid(doc) {
			return cc.fail(fmt.Errorf("%s is not a JSON document (write one with pixsandbox workspace snapshot ID --out FILE)", o.fromSnapshot))
		}
		in.Snapshot = doc
	}
	w, r, err := cc.client.CreateWorkspace(ctx, in)
	if err != nil {
		return cc.fail(err)
	}
	switch {
	case o.quiet: // over PIXSANDBOX_JSON
		cc.printf("%s\n", w.ID)
		return cliExitOK
	case cc.json:
		cc.printRaw(r.Body)
		return cliExitOK
	}
	cc.printf("created workspace %s\n", w.ID)
	cc.printWorkspace(w.Workspace)
	cc.printf("%-12s %s\n", "admin token", w.AdminToken)
	for _, a := range w.Accounts {
		cc.printf("account %-4s %s  clientId %s  clientSecret %s\n", a.ID, a.Name, a.ClientID, a.ClientSecret)
	}
	cc.printf("Use it: export PIXSANDBOX_WORKSPACE=%s   (or --workspace %s on each command)\n", w.ID, w.ID)
	if len(w.Accounts) > 0 {
		cc.printf("The accounts' certificates and private keys are in the --json answer only; pixsandbox token --account N\n" +
			"gives a token without them.\n")
	}
	return cliExitOK
}

// printWorkspace writes what the server tells of a workspace, one field a line.
func (cc *cliCmd) printWorkspace(w sandboxclient.Workspace) {
	line := func(k, v string) { cc.printf("%-12s %s\n", k, v) }
	if w.Name != "" {
		line("name", w.Name)
	}
	line("clock", w.Clock.Mode+", now "+cliTime(w.Clock.Now))
	line("accounts", strconv.Itoa(w.AccountCount))
	line("expires", workspaceExpiry(w))
	line("created", cliTime(w.CreatedAt))
	line("last used", cliTime(w.LastUsedAt))
}

// workspaceExpiry says when a workspace expires.
func workspaceExpiry(w sandboxclient.Workspace) string {
	if w.ExpiresAt == nil {
		return "never"
	}
	ttl := w.TTL
	if d, err := time.ParseDuration(w.TTL); err == nil {
		ttl = shortDuration(d)
	}
	return cliTime(*w.ExpiresAt) + " (after " + ttl + " without a request)"
}

// workspaceList runs workspace list.
func (cc *cliCmd) workspaceList(ctx context.Context, o workspaceOpts, rest []string) int {
	switch {
	case len(rest) > 0:
		return cc.usageError("workspace list takes no arguments: unexpected %q", rest)
	case o.page < 1:
		return cc.usageError("--page must be 1 or more, not %d", o.page)
	case o.size < 1 || o.size > 500:
		return cc.usageError("--size must be 1 to 500, not %d", o.size)
	}
	list, r, err := cc.client.Workspaces(ctx, o.page, o.size)
	if err != nil {
		return cc.fail(err)
	}
	if cc.json {
		cc.printRaw(r.Body)
		return cliExitOK
	}
	md := list.Metadata
	if md.Total == 0 {
		cc.printf("no workspaces besides the default one (%s makes one)\n", cc.self("workspace create"))
		return cliExitOK
	}
	tw := tabwriter.NewWriter(cc.env.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tCLOCK\tACCOUNTS\tLAST USED\tEXPIRES")
	for _, w := range list.Data {
		name := w.Name
		if name == "" {
			name = "-"
		}
		expires := "never"
		if w.ExpiresAt != nil {
			expires = cliTime(*w.ExpiresAt)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s %s\t%d\t%s\t%s\n", w.ID, name, w.Clock.Mode, cliTime(w.Clock.Now), w.AccountCount, cliTime(w.LastUsedAt), expires)
	}
	tw.Flush()
	if md.TotalPages > 1 {
		cc.printf("page %d of %d, %s", md.Page, md.TotalPages, plural(md.Total, "workspace", "workspaces"))
		if md.HasNext {
			cc.printf("; --page %d for the next", md.Page+1)
		}
		cc.printf("\n")
	}
	return cliExitOK
}

// workspaceArg reads the ID of show, delete and snapshot; orFlag: without
// one, the workspace of --workspace. code is the exit code of a usage error
// (ok false).
func (cc *cliCmd) workspaceArg(sub string, rest []string, orFlag bool) (id string, code int, ok bool) {
	switch {
	case len(rest) > 1:
		return "", cc.usageError("workspace %s takes one ID, not %q", sub, rest), false
	case len(rest) == 0 && orFlag && cc.workspace != "":
		return cc.workspace, 0, true
	case len(rest) == 0:
		return "", cc.usageError("workspace %s takes a workspace ID (pixsandbox workspace list shows them)", sub), false
	}
	id, ok = workspaceID(rest[0])
	if !ok {
		return "", cc.usageError("ID %q must be a workspace id (a UUID, as pixsandbox workspace create prints it)", rest[0]), false
	}
	if id == "" {
		id = "default"
	}
	return id, 0, true
}

// workspaceShow runs workspace show.
func (cc *cliCmd) workspaceShow(ctx context.Context, rest []string) int {
	id, code, ok := cc.workspaceArg("show", rest, true)
	if !ok {
		return code
	}
	w, r, err := cc.client.Workspace(ctx, id)
	if err != nil {
		return cc.fail(err)
	}
	if cc.json {
		cc.printRaw(r.Body)
		return cliExitOK
	}
	cc.printf("%-12s %s\n", "id", w.ID)
	cc.printWorkspace(w)
	return cliExitOK
}

// workspaceDelete runs workspace delete.
func (cc *cliCmd) workspaceDelete(ctx context.Context, o workspaceOpts, rest []string) int {
	id, code, ok := cc.workspaceArg("delete", rest, false)
	if !ok {
		return code
	}
	what := "delete workspace " + id + " of " + cc.client.Base + " and everything in it (accounts, transactions, charges, jobs, webhook targets)"
	if code, ok := cc.confirm(o.yes, what); !ok {
		return code
	}
	r, err := cc.client.DeleteWorkspace(ctx, id)
	if err != nil {
		return cc.fail(err)
	}
	if cc.json {
		cc.printRaw(r.Body)
		return cliExitOK
	}
	cc.printf("deleted workspace %s\n", id)
	return cliExitOK
}

// workspaceSnapshot runs workspace snapshot.
func (cc *cliCmd) workspaceSnapshot(ctx context.Context, o workspaceOpts, rest []string) int {
	id, code, ok := cc.workspaceArg("snapshot", rest, true)
	if !ok {
		return code
	}
	r, err := cc.client.Snapshot(ctx, id)
	if err != nil {
		return cc.fail(err)
	}
	if o.out == "" || o.out == "-" {
		cc.printRaw(r.Body)
		return cliExitOK
	}
	// Owner only: the document holds the workspace's credentials.
	if err := os.WriteFile(o.out, r.Body, 0o600); err != nil {
		return cc.fail(fmt.Errorf("write the snapshot: %w", err))
	}
	cc.printf("wrote workspace %s to %s (%d bytes); %s makes a copy of it\n",
		id, o.out, len(r.Body), cc.self("workspace create --from-snapshot "+o.out))
	return cliExitOK
}
