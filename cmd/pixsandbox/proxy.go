package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/pixsandbox/pixsandbox/cmd/pixsandbox/internal/cmdline"
	"github.com/pixsandbox/pixsandbox/cmd/pixsandbox/internal/process"
	"github.com/pixsandbox/pixsandbox/conformance/contract"
	"github.com/pixsandbox/pixsandbox/conformance/contract/state"
	"github.com/pixsandbox/pixsandbox/conformance/proxy"
	"github.com/pixsandbox/pixsandbox/conformance/proxy/judging"
)

const proxyUsage = `Usage:
  pixsandbox proxy --upstream URL [--addr 127.0.0.1:8090] [--client-cert F --client-key F] [--ca F]
                   [--webhooks-to URL [--webhooks-addr ADDR] [--webhook-secret whsec_...]]
                   [--json FILE] [--junit FILE] [--fail-on none|response|state|request] [--quiet-accounts]
                   [--window N] [--judging process|inline]

Puts a validating proxy between a client and the PIX API at --upstream: every
request goes to the upstream unchanged and its answer comes back unchanged,
and each exchange is judged against the contract: response findings (the
upstream broke the contract), state findings (an answer contradicts earlier
ones) and request findings (the client broke it). One line per finding goes
to standard error as it happens; GET /_proxy/findings on the proxy serves them
live. An upstream that does not answer gets the client a 502 in the minimal
error shape.

With --webhooks-to the proxy is also the receiver of the upstream's webhook
deliveries: register the proxy's webhook URL (printed at start:
<proxy>/_proxy/webhooks, or the root of --webhooks-addr) with the upstream in
place of the integrator's. Each delivery goes on unchanged to --webhooks-to
plus its sub-path, the integrator's answer goes back unchanged, and the
delivery is judged: webhook findings (envelope, fields, money, statuses, the
transaction it names against the traffic, a webhook-id changed on a retry,
and with --webhook-secret the Standard Webhooks signature and timestamp).

The exchanges are judged in a process of their own at the lowest priority
(--judging process, the default), so that the judging never holds up the
traffic; --judging inline judges them in the proxy's own process.

With --quiet-accounts the balance rule judges each balance read against the
account's previous one: use it when nothing but the traffic through the proxy
takes money from an account or blocks it (no MED, no split, no other client).

On SIGINT or SIGTERM the proxy writes --json and --junit, prints a summary and
exits 1 when a finding at or above --fail-on was seen (state, the default: a
response, webhook, upstream or state finding; response: response, webhook and
upstream findings; request: any finding; none: never), else 0; 2 on bad usage.

  pixsandbox proxy --upstream http://127.0.0.1:8080        # then use http://127.0.0.1:8090
  pixsandbox conform --target http://127.0.0.1:8090        # the suite's traffic, judged
  pixsandbox proxy --upstream http://127.0.0.1:8080 --webhooks-to http://127.0.0.1:3000/hooks
                                                           # register http://127.0.0.1:8090/_proxy/webhooks

Each flag also reads an environment variable named after it (docs/cli.md);
flags win. The rules, the state model's bounds and what is not built yet:
docs/proxy.md.

Flags:
`

// proxyEnvPrefix prefixes the proxy's variables: --fail-on reads
// PIXSANDBOX_PROXY_FAIL_ON (the proxy's --addr and --json mean other things
// than serve's and the driving commands').
const proxyEnvPrefix = "PIXSANDBOX_PROXY_"

// proxyCmd is `pixsandbox proxy`: it runs until SIGINT or SIGTERM.
func proxyCmd(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Here rather than in runProxy, which the tests run in their own process.
	process.ApplyProxyMemoryLimit(os.LookupEnv)
	return runProxyTuned(ctx, args, stdout, stderr, os.LookupEnv, func(pf *proxyFlags) {
		if pf.opts.JudgeProcess != nil {
			process.ApplySplitProxyGC(os.LookupEnv)
		}
	})
}

// judgeProcess is the command of the proxy's judging process (--judging
// process): this binary's proxy-judge, in a process group of its own (a
// terminal's Ctrl-C is the proxy's to act on: it ends the judging process
// once every exchange is judged).
var judgeProcess = func() *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	return ownGroup(exec.Command(exe, judgeCommand))
}

// judgeCommand is the internal command the proxy starts its judging process
// with: not for use by hand.
const judgeCommand = "proxy-judge"

// proxyJudge is `pixsandbox proxy-judge`: a judging process
// (judging.Serve) on standard input and output, at the lowest priority
// (a nice value of 19: it yields the CPU to the proxy that forwards, and to
// anything else that wants it). It ends when its input does: the proxy
// ends it once every exchange is judged. SIGINT and SIGTERM are the
// proxy's to act on (judgeProcess starts it out of the terminal's process
// group too): ending here at once would lose the exchanges not yet judged.
func proxyJudge(args []string, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintf(stderr, "pixsandbox %s: started by pixsandbox proxy, takes no arguments\n", judgeCommand)
		return 2
	}
	signal.Ignore(os.Interrupt, syscall.SIGTERM)
	process.ApplyProxyMemoryLimit(os.LookupEnv)
	process.ApplySplitProxyGC(os.LookupEnv)
	if err := process.LowerPriority(19); err != nil {
		fmt.Fprintf(stderr, "pixsandbox %s: the priority stays: %v\n", judgeCommand, err)
	}
	if err := judging.Serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(stderr, "pixsandbox %s: %v\n", judgeCommand, err)
		return 1
	}
	return 0
}

// proxyFlags are the parsed flags of `pixsandbox proxy`.
type proxyFlags struct {
	opts              proxy.Options
	addr, json, junit string
	failOn, judging   string
}

func parseProxyFlags(args []string, stderr io.Writer, lookup func(string) (string, bool)) (*proxyFlags, error) {
	fs := flag.NewFlagSet("pixsandbox proxy", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	env := func(name, def string) string {
		if v, ok := lookup(cmdline.EnvNameIn(proxyEnvPrefix, name)); ok {
			return v
		}
		return def
	}
	envInt := func(name string, def int) int {
		if n, err := strconv.Atoi(env(name, "")); err == nil {
			return n
		}
		return def
	}
	envBool := func(name string) bool {
		b, _ := strconv.ParseBool(env(name, "false"))
		return b
	}
	pf := &proxyFlags{}
	fs.StringVar(&pf.opts.Upstream, "upstream", env("upstream", ""), "base URL of the PIX API implementation every request is forwarded to (required)")
	fs.StringVar(&pf.addr, "addr", env("addr", "127.0.0.1:8090"), "listen address of the proxy (host:port; port 0 picks a free one)")
	fs.StringVar(&pf.opts.ClientCert, "client-cert", env("client-cert", ""), "PEM client certificate presented to the upstream in the TLS handshake (mutual TLS)")
	fs.StringVar(&pf.opts.ClientKey, "client-key", env("client-key", ""), "PEM private key of --client-cert")
	fs.StringVar(&pf.opts.CA, "ca", env("ca", ""), "PEM bundle of the authorities trusted for the upstream's server certificate, besides the system's")
	fs.StringVar(&pf.json, "json", env("json", ""), "write the JSON report (summary, rules, findings) to this file on exit")
	fs.StringVar(&pf.junit, "junit", env("junit", ""), "write a JUnit XML report (one test case per rule) to this file on exit")
	fs.StringVar(&pf.failOn, "fail-on", env("fail-on", "state"), "exit 1 when a finding at or above this kind was seen: none, response, state or request")
	fs.IntVar(&pf.opts.MaxFindings, "max-findings", envInt("max-findings", proxy.DefaultMaxFindings), "findings kept in full (the latest); all are counted")
	fs.IntVar(&pf.opts.Bounds.Keys, "window", envInt("window", state.DefaultBounds.Keys), "entries each window of the state model keeps (idempotency keys, externalIds, cobs, refunds, ...)")
	fs.StringVar(&pf.judging, "judging", env("judging", "process"), "where the exchanges are judged: process (a process of its own at the lowest priority, started by the proxy) or inline (the proxy's own)")
	fs.BoolVar(&pf.opts.QuietAccounts, "quiet-accounts", envBool("quiet-accounts"), "the accounts are quiet (nothing but the traffic through the proxy takes money from them or blocks it): judge every balance read against the operations since the previous one")
	fs.StringVar(&pf.opts.WebhooksTo, "webhooks-to", env("webhooks-to", ""), "the integrator's webhook receiver: the proxy takes the upstream's deliveries and forwards each there, unchanged, plus its sub-path")
	fs.StringVar(&pf.opts.WebhooksAddr, "webhooks-addr", env("webhooks-addr", ""), "a listen address of its own for the deliveries (default: "+proxy.WebhooksPath+" on --addr)")
	fs.StringVar(&pf.opts.WebhookSecret, "webhook-secret", env("webhook-secret", ""), "the upstream's Standard Webhooks signing secret (whsec_...): judge each delivery's signature and timestamp")
	fs.Usage = func() {} // a usage error is one line and a hint; -h prints the usage
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stderr, proxyUsage)
			fs.SetOutput(stderr)
			fs.PrintDefaults()
		}
		return nil, err
	}
	switch {
	case fs.NArg() > 0:
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	case pf.opts.Upstream == "":
		return nil, errors.New("--upstream is required: the base URL of the PIX API to forward to")
	}
	if err := proxy.CheckUpstream(pf.opts.Upstream); err != nil {
		return nil, err
	}
	if (pf.opts.ClientCert == "") != (pf.opts.ClientKey == "") {
		return nil, errors.New("--client-cert and --client-key go together: give both or neither")
	}
	if _, err := failThreshold(pf.failOn); err != nil {
		return nil, err
	}
	switch pf.judging {
	case "process":
		pf.opts.JudgeProcess = judgeProcess
	case "inline":
	default:
		return nil, fmt.Errorf("--judging %q: want process or inline", pf.judging)
	}
	if err := checkWebhookFlags(pf.opts); err != nil {
		return nil, err
	}
	return pf, nil
}

// checkWebhookFlags: --webhooks-addr and --webhook-secret go with
// --webhooks-to, a URL; the secret is whsec_ and base64.
func checkWebhookFlags(o proxy.Options) error {
	switch {
	case o.WebhooksTo == "" && o.WebhooksAddr != "":
		return errors.New("--webhooks-addr needs --webhooks-to: the integrator's receiver the deliveries go on to")
	case o.WebhooksTo == "" && o.WebhookSecret != "":
		return errors.New("--webhook-secret needs --webhooks-to: the proxy judges the signatures of the deliveries it receives")
	case o.WebhooksTo == "":
		return nil
	}
	if err := proxy.CheckWebhooksTo(o.WebhooksTo); err != nil {
		return err
	}
	if o.WebhookSecret != "" {
		if err := contract.CheckHookSecret(o.WebhookSecret); err != nil {
			return fmt.Errorf("--webhook-secret: %w", err)
		}
	}
	return nil
}

// failThreshold parses --fail-on: the lowest kind that fails the run, or ""
// for none.
func failThreshold(s string) (contract.Kind, error) {
	switch s {
	case "none":
		return "", nil
	case "response":
		return contract.KindResponse, nil
	case "state":
		return contract.KindState, nil
	case "request":
		return contract.KindRequest, nil
	}
	return "", fmt.Errorf("--fail-on %q: want none, response, state or request", s)
}

// runProxy runs the proxy until ctx ends, then writes the reports and the
// summary. Exit 0, 1 (findings at or above --fail-on, or a failure) or 2.
func runProxy(ctx context.Context, args []string, stdout, stderr io.Writer, lookup func(string) (string, bool)) int {
	return runProxyTuned(ctx, args, stdout, stderr, lookup, nil)
}

// runProxyTuned is runProxy calling tune, when set, with the flags parsed:
// the process-wide settings that follow from them (proxyCmd).
func runProxyTuned(ctx context.Context, args []string, stdout, stderr io.Writer, lookup func(string) (string, bool), tune func(*proxyFlags)) int {
	pf, err := parseProxyFlags(args, stderr, lookup)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "pixsandbox proxy: %v\n%s", err, cmdline.UsageHint("proxy"))
		return 2
	}
	if tune != nil {
		tune(pf)
	}
	pf.opts.Log = stderr
	if addr, ok := lookup("PIXSANDBOX_PPROF"); ok && addr != "" { // as for serve: profiling under load
		go process.ServePprof(addr, slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	}
	srv, err := proxy.Listen(pf.addr, pf.opts)
	if err != nil {
		fmt.Fprintf(stderr, "pixsandbox proxy: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "pixsandbox proxy: %s -> %s (findings at %s%s; Ctrl-C ends the run)\n", srv.URL, srv.Upstream(), srv.URL, proxy.FindingsPath)
	if srv.WebhooksURL != "" {
		signed := ""
		if pf.opts.WebhookSecret != "" {
			signed = "; signatures checked"
		}
		fmt.Fprintf(stdout, "pixsandbox proxy: webhooks %s -> %s (register %s with the upstream%s)\n", srv.WebhooksURL, pf.opts.WebhooksTo, srv.WebhooksURL, signed)
	}
	<-ctx.Done()
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	code := 0
	if err := srv.Shutdown(shutdown); err != nil {
		fmt.Fprintf(stderr, "pixsandbox proxy: shutdown: %v\n", err)
		code = 1
	}
	if err := writeProxyReports(srv.Proxy, pf); err != nil {
		fmt.Fprintf(stderr, "pixsandbox proxy: %v\n", err)
		code = 1
	}
	srv.WriteSummary(stdout)
	srv.WriteWebhookSummary(stdout)
	threshold, _ := failThreshold(pf.failOn)
	if n := srv.Counts().AtOrAbove(threshold); threshold != "" && n > 0 {
		fmt.Fprintf(stdout, "FAIL: %d findings at or above --fail-on %s\n", n, pf.failOn)
		return 1
	}
	return code
}

func writeProxyReports(p *proxy.Proxy, pf *proxyFlags) error {
	write := func(path string, fn func(io.Writer) error) error {
		if path == "" {
			return nil
		}
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		if err := fn(f); err != nil {
			f.Close()
			return fmt.Errorf("%s: %w", path, err)
		}
		return f.Close()
	}
	return errors.Join(write(pf.json, p.WriteJSON), write(pf.junit, p.WriteJUnit))
}
