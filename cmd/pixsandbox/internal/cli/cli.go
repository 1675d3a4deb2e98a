package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/pixsandbox/pixsandbox/cmd/pixsandbox/internal/cmdline"
	"github.com/pixsandbox/pixsandbox/simulator/sandboxclient"
)

// The commands that drive a running simulator over HTTP (token, pay, clock,
// trigger, webhooks, reset, requests, listen, workspace, fault; docs/cli.md). This
// file holds what they share: the common flags (--workspace among them), the
// HTTP client and the error messages. Exit codes: 0 done, 1 the server said
// no or could not be reached, 2 bad usage.

const (
	cliExitOK    = 0
	cliExitFail  = 1
	cliExitUsage = 2
)

// Env is what a command reads and writes besides HTTP. Run gives the
// process's; tests give buffers, a fake environment and a non-terminal
// standard input.
type Env struct {
	Stdin          io.Reader
	Terminal       bool // Stdin is an interactive terminal (reset and workspace delete ask for confirmation there)
	Stdout, Stderr io.Writer
	Lookup         func(string) (string, bool) // the PIXSANDBOX_* variables
}

// Run runs command cmd (token, pay, clock, trigger, webhooks, reset,
// requests, listen, workspace or fault) with args, the process's standard
// input and environment, and returns its exit code. SIGINT and SIGTERM
// cancel the command's context (webhooks tail then ends with 0).
func Run(cmd string, args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	env := Env{Stdin: os.Stdin, Terminal: stdinIsTerminal(), Stdout: stdout, Stderr: stderr, Lookup: os.LookupEnv}
	return RunEnv(ctx, env, cmd, args)
}

// RunEnv is Run with env in place of the process's; ctx ends long-running
// commands.
func RunEnv(ctx context.Context, env Env, cmd string, args []string) int {
	switch cmd {
	case "token":
		return cliToken(ctx, env, args)
	case "pay":
		return cliPay(ctx, env, args)
	case "clock":
		return cliClock(ctx, env, args)
	case "trigger":
		return cliTrigger(ctx, env, args)
	case "webhooks":
		return cliWebhooks(ctx, env, args)
	case "reset":
		return cliReset(ctx, env, args)
	case "requests":
		return cliRequests(ctx, env, args)
	case "listen":
		return cliListen(ctx, env, args)
	case "workspace":
		return cliWorkspace(ctx, env, args)
	case "fault":
		return cliFault(ctx, env, args)
	}
	fmt.Fprintf(env.Stderr, "pixsandbox: unknown command %q\n", cmd)
	return cliExitUsage
}

// stdinIsTerminal reports whether standard input is an interactive terminal: a
// character device other than the null device (the standard library has no
// isatty; /dev/null is a character device too).
func stdinIsTerminal() bool {
	st, err := os.Stdin.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	if null, err := os.Stat(os.DevNull); err == nil && os.SameFile(st, null) {
		return false
	}
	return true
}

// cliCmd is one invocation of a command: its flags (the common ones plus its
// own), its usage text and, once parsed, its client.
type cliCmd struct {
	name  string // "clock", "webhooks tail"
	usage string // synopsis and description, printed before the flags
	env   Env
	fs    *flag.FlagSet
	// envOf names a flag's variable (cmdline.EnvName unless the command's own flags
	// would clash with another command's), envNote says so in the usage.
	envOf   func(flag string) string
	envNote string

	url        string
	adminToken string
	json       bool
	workspace  string // a workspace id, or "" for the default one

	client *sandboxclient.Client
}

func newCLICmd(env Env, name, usage string) *cliCmd {
	cc := &cliCmd{name: name, usage: usage, env: env, envOf: cmdline.EnvName,
		envNote: "each also read from PIXSANDBOX_<FLAG>, e.g. PIXSANDBOX_URL; flags win"}
	cc.fs = flag.NewFlagSet("pixsandbox "+name, flag.ContinueOnError)
	cc.fs.SetOutput(io.Discard)
	cc.fs.Usage = func() {}
	cc.fs.StringVar(&cc.url, "url", cmdline.DefaultURL, "base URL of the simulator")
	cc.fs.StringVar(&cc.adminToken, "admin-token", "", "sent as "+sandboxclient.AdminHeader+" on /_sandbox requests (the server's --admin-token)")
	cc.fs.BoolVar(&cc.json, "json", false, "print the server's raw JSON answer instead of a summary")
	cc.fs.StringVar(&cc.workspace, "workspace", "", "the workspace to act in: an id of pixsandbox workspace create, or default (sent as "+sandboxclient.WorkspaceHeader+" on /_sandbox requests)")
	return cc
}

// cliWorkspaceID is a workspace id: a UUID (the server wants it in lower case).
var cliWorkspaceID = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// workspaceID reads a workspace id as typed: a UUID in any case, or default
// (returned as ""). ok false: neither.
func workspaceID(s string) (id string, ok bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	switch {
	case s == "default":
		return "", true
	case cliWorkspaceID.MatchString(s):
		return s, true
	}
	return "", false
}

// parse reads PIXSANDBOX_* variables, then args (flags may come before, between
// or after positional arguments) and builds the client. It returns the
// positional arguments, or done with the exit code when there is nothing more
// to do (-h: 0; a bad flag: 2, with the usage printed).
func (cc *cliCmd) parse(args []string) (pos []string, code int, done bool) {
	if err := cmdline.ApplyEnv(cc.fs, cc.env.Lookup, cc.envOf); err != nil {
		return nil, cc.usageError("%v", err), true
	}
	for {
		if err := cc.fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				cc.printUsage()
				return nil, cliExitOK, true
			}
			return nil, cc.usageError("%v", err), true
		}
		args = cc.fs.Args()
		if len(args) == 0 {
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	u, err := url.Parse(cc.url)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, cc.usageError("--url %q must be an http or https URL such as %s", cc.url, cmdline.DefaultURL), true
	}
	ws, ok := workspaceID(cc.workspace)
	if cc.workspace != "" && !ok {
		return nil, cc.usageError("--workspace %q must be a workspace id (a UUID, as pixsandbox workspace create prints it) or default", cc.workspace), true
	}
	cc.workspace = ws
	cc.client = sandboxclient.New(cc.url, cc.adminToken)
	cc.client.WorkspaceID = ws
	return pos, 0, false
}

// isSet reports whether flag name was given (on the command line or through
// its PIXSANDBOX_* variable).
func (cc *cliCmd) isSet(name string) bool {
	set := false
	cc.fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}

func (cc *cliCmd) printUsage() {
	var b strings.Builder
	b.WriteString(cc.usage)
	fmt.Fprintf(&b, "\nFlags (%s):\n", cc.envNote)
	cc.fs.SetOutput(&b)
	cc.fs.PrintDefaults()
	cc.fs.SetOutput(io.Discard)
	fmt.Fprint(cc.env.Stdout, b.String())
}

// usageError prints the problem on one line and a hint, and returns exit code 2.
func (cc *cliCmd) usageError(format string, args ...any) int {
	fmt.Fprintf(cc.env.Stderr, "pixsandbox %s: %s\n%s", cc.name, fmt.Sprintf(format, args...), cmdline.UsageHint(strings.Fields(cc.name)[0]))
	return cliExitUsage
}

// fail prints err and returns exit code 1.
func (cc *cliCmd) fail(err error) int {
	fmt.Fprintf(cc.env.Stderr, "pixsandbox %s: %v\n", cc.name, err)
	return cliExitFail
}

// printf writes a line of the human summary.
func (cc *cliCmd) printf(format string, args ...any) {
	fmt.Fprintf(cc.env.Stdout, format, args...)
}

// printRaw writes a JSON answer as received, ending with one newline.
func (cc *cliCmd) printRaw(body []byte) {
	cc.env.Stdout.Write(bytes.TrimRight(body, "\n"))
	io.WriteString(cc.env.Stdout, "\n")
}

// answered ends a command with the server's answer: err printed (exit 1),
// or the raw JSON with --json, or the summary print writes (exit 0).
func (cc *cliCmd) answered(r *sandboxclient.Response, err error, print func()) int {
	if err != nil {
		return cc.fail(err)
	}
	if cc.json {
		cc.printRaw(r.Body)
		return cliExitOK
	}
	print()
	return cliExitOK
}

// self is how to call this program against the same server and workspace, for
// the commands a summary suggests.
func (cc *cliCmd) self(args string) string {
	s := "pixsandbox " + args
	if env, ok := cc.env.Lookup(cmdline.EnvName("url")); cc.url != cmdline.DefaultURL && (!ok || env != cc.url) {
		s += " --url " + cc.client.Base
	}
	env, _ := cc.env.Lookup(cmdline.EnvName("workspace"))
	switch envWS, _ := workspaceID(env); {
	case cc.workspace == envWS:
	case cc.workspace == "":
		s += " --workspace default" // overrides PIXSANDBOX_WORKSPACE
	default:
		s += " --workspace " + cc.workspace
	}
	return s
}

// where names the simulator and the workspace a command acts on, for its
// messages.
func (cc *cliCmd) where() string {
	if cc.workspace == "" {
		return cc.client.Base
	}
	return cc.client.Base + " (workspace " + cc.workspace + ")"
}

// confirm asks on a terminal before a command destroys what, unless yes is
// set. ok false: the command ends with code (2 when standard input is not a
// terminal, 1 when the answer is not yes).
func (cc *cliCmd) confirm(yes bool, what string) (code int, ok bool) {
	if yes {
		return 0, true
	}
	if !cc.env.Terminal {
		fmt.Fprintf(cc.env.Stderr, "pixsandbox %s: standard input is not a terminal, so there is no one to confirm: "+
			"pass --yes to %s.\n", cc.name, what)
		return cliExitUsage, false
	}
	fmt.Fprintf(cc.env.Stderr, "%s? Type yes to continue: ", strings.ToUpper(what[:1])+what[1:])
	line, _ := bufio.NewReader(cc.env.Stdin).ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(line)); a != "yes" && a != "y" {
		fmt.Fprintf(cc.env.Stderr, "pixsandbox %s: not confirmed; nothing was changed.\n", cc.name)
		return cliExitFail, false
	}
	return 0, true
}

// poller paces a command that polls the simulator until interrupted (webhooks
// tail, requests --follow, listen) and reports a failing poll once, not at
// every interval.
type poller struct {
	cc       *cliCmd
	interval time.Duration
	lastErr  string
}

// report prints err the first time it differs from the last one; nil after a
// failure says the simulator answers again.
func (p *poller) report(err error) {
	switch {
	case err == nil && p.lastErr != "":
		fmt.Fprintf(p.cc.env.Stderr, "pixsandbox %s: the simulator answers again\n", p.cc.name)
		p.lastErr = ""
	case err != nil && err.Error() != p.lastErr:
		fmt.Fprintf(p.cc.env.Stderr, "pixsandbox %s: %v (retrying every %s)\n", p.cc.name, err, p.interval)
		p.lastErr = err.Error()
	}
}

// follow calls poll (first true the first time) every interval until ctx ends,
// or once when once is set. A failing first poll ends the command with exit
// code 1; later failures are reported once each and retried (the simulator may
// be restarting).
func (p *poller) follow(ctx context.Context, once bool, poll func(first bool) error) int {
	first := true
	for {
		err := poll(first)
		switch {
		case ctx.Err() != nil:
			return cliExitOK
		case err != nil && first:
			return p.cc.fail(err)
		}
		p.report(err)
		if err == nil {
			first = false
		}
		if once || !p.wait(ctx) {
			return cliExitOK
		}
	}
}

// wait waits one interval; false when ctx ended first.
func (p *poller) wait(ctx context.Context) bool {
	// Wall time: the polling period is I/O pacing, not simulation time.
	t := time.NewTimer(p.interval)
	select {
	case <-ctx.Done():
		t.Stop()
		return false
	case <-t.C:
		return true
	}
}
