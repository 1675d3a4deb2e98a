// Command pixsandbox is a stateful sandbox of a PIX payment API.
//
//	pixsandbox serve [flags]        start the simulator (see pixsandbox serve -h)
//	pixsandbox cert-header FILE     print FILE's PEM URL-encoded for X-SSL-Client-Cert
//	pixsandbox conform [flags]      run the conformance suite against a target
//	pixsandbox check-receiver ...   check a partner's webhook receiver
//	pixsandbox proxy --upstream URL validate traffic: forward it and judge each exchange
//	pixsandbox token|pay|clock|trigger|webhooks|reset|requests|listen|workspace|fault ...
//	                                drive a running simulator (see pixsandbox help)
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"syscall"
	"time"

	"github.com/pixsandbox/pixsandbox/cmd/pixsandbox/internal/cli"
	"github.com/pixsandbox/pixsandbox/cmd/pixsandbox/internal/cmdline"
	"github.com/pixsandbox/pixsandbox/cmd/pixsandbox/internal/process"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	if isHelpFlag(args[0]) || args[0] == "help" {
		fmt.Fprint(stdout, usage)
		return 0
	}
	if len(args) > 1 && slices.ContainsFunc(args[1:], isHelpFlag) {
		// Help goes to standard output with exit 0, for every command.
		stderr = stdout
	}
	switch args[0] {
	case "version", "--version", "-version":
		return printVersion(args[1:], stdout, stderr)
	case "completion":
		return completion(args[1:], stdout, stderr)
	case "serve":
		return serve(args[1:], stdout, stderr)
	case "healthcheck":
		return healthcheck(args[1:], stdout, stderr)
	case "cert-header":
		return certHeader(args[1:], stdout, stderr)
	case "conform":
		return conform(args[1:], stdout, stderr)
	case "check-receiver":
		return checkReceiver(args[1:], stdout, stderr)
	case "proxy":
		return proxyCmd(args[1:], stdout, stderr)
	case "validate":
		return validateCmd(args[1:], stdout, stderr)
	case judgeCommand:
		return proxyJudge(args[1:], stderr)
	case "token", "pay", "clock", "trigger", "webhooks", "reset", "requests", "listen", "workspace", "fault":
		return cli.Run(args[0], args[1:], stdout, stderr)
	default:
		fmt.Fprintf(stderr, "pixsandbox: unknown command %q\nRun 'pixsandbox help' for the list of commands.\n", args[0])
		return 2
	}
}

const usage = `pixsandbox: a stateful sandbox of a PIX payment API

Usage:
  pixsandbox serve [flags]           start the simulator (flags also read from PIXSANDBOX_* variables)
  pixsandbox cert-header F           print the PEM certificate in file F URL-encoded for X-SSL-Client-Cert
  pixsandbox conform [flags]         run the conformance suite against a target (--target, credentials, --labels)
  pixsandbox check-receiver --url U  send a partner's webhook receiver the spec's payloads and the hard cases
  pixsandbox proxy --upstream U      forward traffic to U unchanged and judge every exchange against the contract
  pixsandbox validate FILE           judge recorded traffic (a request journal export, a HAR file) as the proxy would
  pixsandbox token [flags]           print an access token for an account of a running simulator
  pixsandbox pay [flags]             pay a charge by pixCode, txid or transactionId
  pixsandbox clock show|advance|set  read or move the simulation clock
  pixsandbox trigger SCENARIO        create a transaction that runs a named scenario
  pixsandbox webhooks tail           print webhook deliveries as they happen
  pixsandbox webhooks rotate-secret ID
                                     give a webhook target or a listener a new signing secret
  pixsandbox reset                   drop all state and reseed the fixture accounts
  pixsandbox requests [--follow]     print the requests the simulator answered (secrets masked)
  pixsandbox listen --forward-to U   forward an account's webhook events to a local URL while it runs
  pixsandbox workspace create|list|show|delete|snapshot
                                     manage the workspaces (isolated worlds) of a running simulator
  pixsandbox fault add|list|clear    make the PIX API's requests fail as a network would (delay, timeout, reset, 5xx)
  pixsandbox healthcheck [--url U]    exit 0 when the server's /healthz answers ok within 3 s, 1 otherwise
  pixsandbox version                 print the version, commit and build date (also --version)
  pixsandbox completion bash|zsh|fish  print a shell completion script

Run "pixsandbox COMMAND -h" for a command's flags. The commands that drive a
running simulator act in the workspace of --workspace ID (PIXSANDBOX_WORKSPACE).
`

func serve(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	adapt := process.ServeProcs(runtime.NumCPU(), os.Getenv("GOMAXPROCS")) > 0
	if adapt {
		runtime.GOMAXPROCS(2) // while the start writes; the governor below takes over
	}

	m := NewMain(stdout, stderr)
	if err := m.ParseFlags(args); err != nil {
		if errors.Is(err, errHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "pixsandbox serve: %v\n%s", err, cmdline.UsageHint("serve"))
		return 2
	}
	// The process's own budget (a test that runs many servers in one process
	// does not set it).
	process.ApplyMemoryLimit(int64(m.Config.MemoryLimit))
	if err := m.Run(ctx); err != nil {
		fmt.Fprintf(stderr, "pixsandbox serve: %v\n", err)
		_ = m.Close()
		return 1
	}
	m.PrintBanner()
	if adapt {
		go process.NewProcGovernor(m.store.WriterStats, runtime.GOMAXPROCS).Run(ctx, process.ProcsTick)
	}
	// The store as Run opened it: Close clears m.store while this may still
	// read it.
	store := m.store
	go process.ReleaseWhenIdle(ctx, 15*time.Second, func() int64 { return store.WriterStats().Operations })
	if addr := os.Getenv("PIXSANDBOX_PPROF"); addr != "" {
		go process.ServePprof(addr, m.Logger)
	}
	<-ctx.Done()
	m.Logger.Info("shutting down")
	if err := m.Close(); err != nil {
		fmt.Fprintf(stderr, "pixsandbox serve: shutdown: %v\n", err)
		return 1
	}
	return 0
}

const certHeaderUsage = `Usage:
  pixsandbox cert-header CERTIFICATE.pem

Prints the PEM certificate in the file URL-encoded (every + as %2B), as the
X-SSL-Client-Cert header of POST /api/auth/token wants it:

  curl -H "X-SSL-Client-Cert: $(pixsandbox cert-header fixtures/certs/account-1.pem)" ...
`

// certHeader prints a PEM certificate file URL-encoded as the X-SSL-Client-Cert
// header wants it (every + as %2B), for curl:
//
//	-H "X-SSL-Client-Cert: $(pixsandbox cert-header fixtures/certs/account-1.pem)"
func certHeader(args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && isHelpFlag(args[0]) {
		fmt.Fprint(stdout, certHeaderUsage)
		return 0
	}
	if len(args) != 1 {
		fmt.Fprintln(stderr, "pixsandbox cert-header: give exactly one certificate file\nRun 'pixsandbox cert-header -h' for usage.")
		return 2
	}
	b, err := os.ReadFile(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "pixsandbox cert-header: %v\n", err)
		return 1
	}
	if _, err := pix.DecodeCertHeader(pix.EncodeCertHeader(b)); err != nil {
		fmt.Fprintf(stderr, "pixsandbox cert-header: %s is not a PEM certificate: %v\n", args[0], err)
		return 1
	}
	fmt.Fprint(stdout, pix.EncodeCertHeader(b))
	return 0
}
