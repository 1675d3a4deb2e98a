package main

import (
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
// Exit 0 when every check that ran passed, 1 when one failed, 2 on bad usage.
func conform(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("pixsandbox conform", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c framework.Config
	framework.RegisterFlags(fs, &c)
	fs.BoolVar(&c.Verbose, "v", false, "print every check as it runs")
	fs.BoolVar(&c.NoColor, "no-color", !isTerminal(stdout), "no colours in the report (default when stdout is not a terminal)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, `Usage: pixsandbox conform --target URL [flags]

Runs the PIX API conformance suite against URL. Against pixsandbox (or any
target with the /_sandbox control plane) every check can run; against a real
service give credentials and run only the specification's checks:

  pixsandbox conform --target https://api.example --client-id ID --client-secret S \
    --client-cert cert.pem --control-plane off --labels '%s'

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
