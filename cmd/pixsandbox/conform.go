package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/pixsandbox/pixsandbox/conformance" // also registers the conformance specs
	"github.com/pixsandbox/pixsandbox/conformance/framework"
)

// conform runs the conformance suite against a target: the same checks as
// `go test ./conformance/`, shipped in this binary (docs/conformance.md).
// Without --target it runs them against a throwaway simulator started in this
// process. Exit 0 when the run passed (checks ran and every one that ran
// passed, no route of the contract absent), 1 when it did not, 2 on bad usage.
func conform(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("pixsandbox conform", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := framework.Config{ReportsDir: "reports"}
	framework.RegisterFlags(fs, &c)
	fs.BoolVar(&c.Verbose, "v", false, "print every check as it runs")
	fs.BoolVar(&c.NoColor, "no-color", !isTerminal(stdout), "no colours in the report (default when stdout is not a terminal)")
	list := fs.Bool("list", false, "print the checks the label filter, --focus and --skip select, and run nothing")
	ginkgoFocus := fs.String("ginkgo.focus", "", "the same as --focus")
	ginkgoSkip := fs.String("ginkgo.skip", "", "the same as --skip")
	ginkgoLabels := fs.String("ginkgo.label-filter", "", "the same as --labels")
	fs.Usage = func() {
		fmt.Fprintf(stderr, `Usage: pixsandbox conform [--target URL] [flags]

Runs the PIX API conformance suite against URL; without --target, against a
throwaway simulator started in this process. Against a target with the
/_sandbox control plane the checks that move its clock or reset it run only
with --allow-clock-moves. Against a real service give a way to authenticate
and run only the specification's checks:

  pixsandbox conform --target https://api.example --control-plane off \
    --client-id ID --client-secret S --client-cert cert.pem --labels '%s'
  pixsandbox conform --target https://api.example --control-plane off --token "$TOKEN" ...
  pixsandbox conform --target https://api.example --control-plane off --token-command 'get-token' ...
  pixsandbox conform --target https://api.example --control-plane off --auth none ...
  pixsandbox conform --target https://api.example --control-plane off --auth header --header 'X-Api-Key: K' ...

Before any check the run establishes authentication once (a token from the
token route, or one request with --token, --token-command or --auth header);
when that fails it stops with one error naming what was tried, what answered
and the flags that fit, and reports every check "not run".
--header 'Name: value' (repeatable) adds a header to every request; with
--auth header the headers are the account's credential instead.

The run fails when no check ran (unless --allow-empty), when a check failed,
when its setup failed, or when a route of the contract is absent on the target. Reports go to
--reports-dir (default ./reports): conformance-junit.xml, conformance.json and
conformance-coverage.{json,md}.

Flags (each also read from PIXSANDBOX_CONFORMANCE_<FLAG>):
`, conformance.RealServiceLabels)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "pixsandbox conform: unexpected arguments %q\n", fs.Args())
		return 2
	}
	for _, alias := range []struct{ from, to *string }{{ginkgoFocus, &c.Focus}, {ginkgoSkip, &c.Skip}, {ginkgoLabels, &c.LabelFilter}} {
		if *alias.from != "" {
			*alias.to = *alias.from
		}
	}
	if *list {
		checks, err := framework.ListChecks(c)
		if err != nil {
			fmt.Fprintf(stderr, "pixsandbox conform: %v\n", err)
			return 2
		}
		for _, l := range checks {
			fmt.Fprintln(stdout, l)
		}
		fmt.Fprintf(stderr, "%d checks selected\n", len(checks))
		return 0
	}
	if c.Target == "" {
		m, err := throwawaySimulator(stderr)
		if err != nil {
			fmt.Fprintf(stderr, "pixsandbox conform: starting the in-process simulator: %v\n", err)
			return 1
		}
		defer m.Close()
		c.Target, c.ControlPlane, c.AllowClockMoves, c.AllowReset = m.URL(), framework.ControlPlaneOn, true, true
		fmt.Fprintf(stdout, "No --target: running against a throwaway in-process simulator at %s (virtual clock, in memory).\n", c.Target)
	}
	if err := c.Validate(); err != nil {
		fmt.Fprintf(stderr, "pixsandbox conform: %v\n", err)
		return 2
	}
	r := &conformRunner{stderr: stderr}
	passed := r.run(c)
	switch {
	case r.fatal != "":
		fmt.Fprintf(stderr, "pixsandbox conform: %s\n", r.fatal)
		return 2
	case !passed || r.failed:
		return 1
	}
	return 0
}

// throwawaySimulator starts a simulator in this process for a conform run
// without --target: loopback, a port of the kernel's choice, in memory, on a
// virtual clock, with the control plane.
func throwawaySimulator(stderr io.Writer) (*Main, error) {
	m := NewMain(io.Discard, stderr)
	m.Config.Addr, m.Config.InMemory, m.Config.Clock, m.Config.LogLevel = "127.0.0.1:0", true, "virtual", "error"
	if err := m.Run(context.Background()); err != nil {
		return nil, err
	}
	return m, nil
}

// conformRunner is what framework.Run needs from a *testing.T, for a run
// outside `go test`.
type conformRunner struct {
	stderr io.Writer
	failed bool
	fatal  string
}

// errFatal stops Run at a Fatal, as testing.T's FailNow does.
var errFatal = errors.New("conformance run stopped")

func (r *conformRunner) run(c framework.Config) (passed bool) {
	defer func() {
		if v := recover(); v != nil {
			if err, ok := v.(error); !ok || !errors.Is(err, errFatal) {
				panic(v)
			}
		}
	}()
	return framework.Run(r, c)
}

func (r *conformRunner) Helper() {}
func (r *conformRunner) Fail()   { r.failed = true }
func (r *conformRunner) Fatal(args ...any) {
	r.failed, r.fatal = true, fmt.Sprint(args...)
	panic(errFatal)
}
func (r *conformRunner) Fatalf(format string, args ...any) { r.Fatal(fmt.Sprintf(format, args...)) }

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
