package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/pixsandbox/pixsandbox/cmd/pixsandbox/internal/cmdline"
	"github.com/pixsandbox/pixsandbox/conformance/contract/state"
	"github.com/pixsandbox/pixsandbox/conformance/proxy"
)

const validateUsage = `Usage:
  pixsandbox validate FILE [--json F] [--junit F] [--fail-on none|response|state|request]
                      [--max-findings N] [--window N] [--quiet-accounts]

Applies the rules of pixsandbox proxy to recorded traffic. FILE (- for
standard input) is an export of the simulator's request journal (the JSON
GET /_sandbox/requests answers, or the lines of pixsandbox requests --json)
or a HAR 1.2 file from a browser or a proxy; the format is read from the
content. Every entry is checked first: a file in neither format, truncated
JSON or an entry without a response is refused, naming the entry, before
anything is judged (exit 2). The exchanges are then judged in the order
their answers ended, with one state model, as the proxy judges live traffic:
one line per finding on standard error, a summary on standard output,
--json and --junit written, exit 1 when a finding at or above --fail-on was
seen (state, the default: a response or state finding; response: response
findings only; request: any finding; none: never), else 0.

  curl -s 'http://127.0.0.1:8080/_sandbox/requests?limit=1000000' > journal.json
  pixsandbox validate journal.json --junit validate.xml
  pixsandbox requests --json --limit 1000000 | pixsandbox validate -

The journal masks secrets and cuts long bodies: what validate cannot see
there, and the rules, are in docs/proxy.md. Each flag also reads an
environment variable named after it (docs/cli.md); flags win.

Flags:
`

// validateEnvPrefix prefixes validate's variables: --fail-on reads
// PIXSANDBOX_VALIDATE_FAIL_ON (its --json names a file, not the driving
// commands' switch).
const validateEnvPrefix = "PIXSANDBOX_VALIDATE_"

// validateCmd is `pixsandbox validate`.
func validateCmd(args []string, stdout, stderr io.Writer) int {
	return runValidate(args, os.Stdin, stdout, stderr, os.LookupEnv)
}

// parseValidateFlags reads the flags (before or after FILE) and returns
// them with FILE.
func parseValidateFlags(args []string, stderr io.Writer, lookup func(string) (string, bool)) (*proxyFlags, string, error) {
	fs := flag.NewFlagSet("pixsandbox validate", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	pf := &proxyFlags{}
	fs.StringVar(&pf.json, "json", "", "write the JSON report (summary, rules, findings) to this file")
	fs.StringVar(&pf.junit, "junit", "", "write a JUnit XML report (one test case per rule) to this file")
	fs.StringVar(&pf.failOn, "fail-on", "state", "exit 1 when a finding at or above this kind was seen: none, response, state or request")
	fs.IntVar(&pf.opts.MaxFindings, "max-findings", proxy.DefaultMaxFindings, "findings kept in full (the latest); all are counted")
	fs.IntVar(&pf.opts.Bounds.Keys, "window", state.DefaultBounds.Keys, "entries each window of the state model keeps (idempotency keys, externalIds, cobs, refunds, ...)")
	fs.BoolVar(&pf.opts.QuietAccounts, "quiet-accounts", false, "the accounts were quiet (nothing but the recorded traffic took money from them or blocked it): judge every balance read against the operations since the previous one")
	err := cmdline.ApplyEnv(fs, lookup, func(name string) string {
		return cmdline.EnvNameIn(validateEnvPrefix, name)
	})
	if err != nil {
		return nil, "", err
	}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(stderr, validateUsage)
				fs.SetOutput(stderr)
				fs.PrintDefaults()
			}
			return nil, "", err
		}
		if fs.NArg() == 0 {
			break
		}
		pos, args = append(pos, fs.Arg(0)), fs.Args()[1:]
	}
	switch {
	case len(pos) == 0:
		return nil, "", errors.New("name the FILE of recorded traffic: a request journal export or a HAR file (- for standard input)")
	case len(pos) > 1:
		return nil, "", fmt.Errorf("one FILE at a time, not %d: %s", len(pos), strconv.Quote(strings.Join(pos, " ")))
	}
	if _, err := failThreshold(pf.failOn); err != nil {
		return nil, "", err
	}
	return pf, pos[0], nil
}

// runValidate runs `pixsandbox validate`. Exit 0, 1 (findings at or above
// --fail-on, or a report that could not be written) or 2 (bad usage, or
// input that is not recorded traffic).
func runValidate(args []string, stdin io.Reader, stdout, stderr io.Writer, lookup func(string) (string, bool)) int {
	pf, file, err := parseValidateFlags(args, stderr, lookup)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "pixsandbox validate: %v\n%s", err, cmdline.UsageHint("validate"))
		return 2
	}
	name, in := "standard input", stdin
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			fmt.Fprintf(stderr, "pixsandbox validate: %v\n", err)
			return 2
		}
		defer f.Close()
		name, in = file, f
	}
	rc, err := proxy.ReadRecording(name, in)
	if err != nil {
		fmt.Fprintf(stderr, "pixsandbox validate: %v\n", err)
		return 2
	}
	defer rc.Close()
	fmt.Fprintf(stdout, "pixsandbox validate: %s: %s, %d entries\n", name, rc.Format.Describe(), rc.Len())
	pf.opts.Log = stderr
	v, err := proxy.ValidateRecording(rc, pf.opts)
	if err != nil {
		fmt.Fprintf(stderr, "pixsandbox validate: %v\n", err)
		return 2
	}
	code := 0
	if err := writeProxyReports(v.Proxy, pf); err != nil {
		fmt.Fprintf(stderr, "pixsandbox validate: %v\n", err)
		code = 1
	}
	v.WriteSummary(stdout)
	if v.Hidden > 0 {
		fmt.Fprintf(stdout, "(%d findings left out: they rested on values the journal masked or headers it left out; docs/proxy.md)\n", v.Hidden)
	}
	threshold, _ := failThreshold(pf.failOn)
	if n := v.Counts().AtOrAbove(threshold); threshold != "" && n > 0 {
		fmt.Fprintf(stdout, "FAIL: %d findings at or above --fail-on %s\n", n, pf.failOn)
		return 1
	}
	return code
}
