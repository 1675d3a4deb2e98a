package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"syscall"

	"github.com/pixsandbox/pixsandbox/cmd/pixsandbox/internal/cmdline"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/receivercheck"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

const checkReceiverUsage = `usage: pixsandbox check-receiver --url URL [--callback-url URL] [--secret S]
         [--header 'Name: value']... [--timeout 5s] [--slow 6s] [--json-report FILE|-] [--cases a,b,...]

Sends the webhook receiver at --url two groups of cases, signed with Standard
Webhooks headers, and prints one line per case and a score per group.
Acceptance: the spec's payloads (V2 TRANSFER, RECEIVE, REFUND; CashOut
CONFIRMED and ERROR; CashIn; refund_out; med_created, med_accepted,
med_rejected) and the hard cases (duplicate, out_of_order, unknown_fields,
slow, custom_headers, rotation: two v1 signatures, the receiver's second),
each to be answered 2xx. Rejection: deliveries to be
refused with a 4xx (forged_signature, tampered_body, missing_signature,
unsupported_version, stale_timestamp, future_timestamp) and a replay of one
webhook-id with a fresh timestamp, to be applied once (replay); all but
missing_signature need the receiver's secret, given with --secret. With
--callback-url it then GETs that URL for
{"processed": [{"webhookId": "evt_...", "count": N}]} to judge the duplicate,
out-of-order and replay cases, and that no refused delivery took effect.
Every flag also reads PIXSANDBOX_RECEIVER_<FLAG> (e.g.
PIXSANDBOX_RECEIVER_URL, PIXSANDBOX_RECEIVER_CALLBACK_URL;
PIXSANDBOX_RECEIVER_HEADER holds one header per line); flags win. Exit status: 0 when no checked case failed, 1 otherwise, 2 on bad usage.
See docs/receiver-check.md.

Flags:
`

// headerFlags is the repeatable --header flag. Headers that came from the
// environment are replaced by the first --header on the command line.
type headerFlags struct {
	list    []receivercheck.Header
	fromEnv bool
}

func (h *headerFlags) String() string {
	if h == nil {
		return ""
	}
	parts := make([]string, len(h.list))
	for i, x := range h.list {
		parts[i] = x.Key + ": " + x.Value
	}
	return strings.Join(parts, ", ")
}

// Set adds one header per non-empty line of v, each "Name: value".
func (h *headerFlags) Set(v string) error {
	if h.fromEnv {
		h.list, h.fromEnv = nil, false
	}
	for _, line := range strings.Split(v, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return fmt.Errorf("%q must be 'Name: value'", line)
		}
		h.list = append(h.list, receivercheck.Header{Key: strings.TrimSpace(name), Value: strings.TrimSpace(value)})
	}
	return nil
}

// checkReceiverFlags are the flags of check-receiver.
type checkReceiverFlags struct {
	cfg     receivercheck.Config
	headers headerFlags
	json    string
	cases   string
}

func (c *checkReceiverFlags) register(fs *flag.FlagSet) {
	c.cfg.Timeout, c.cfg.Slow = receivercheck.DefaultTimeout, receivercheck.DefaultSlow
	fs.StringVar(&c.cfg.URL, "url", "", "the partner's webhook receiver (http or https; required)")
	fs.StringVar(&c.cfg.CallbackURL, "callback-url", "", `read with GET after the run: {"processed": [{"webhookId": "evt_...", "count": N}]}`)
	fs.StringVar(&c.cfg.Secret, "secret", "", "Standard Webhooks signing secret (whsec_...) the receiver verifies with; generated and printed when empty, and then missing_signature is the only rejection case run")
	fs.Var(&c.headers, "header", "'Name: value' sent with every delivery (repeatable, at most 5)")
	fs.DurationVar(&c.cfg.Timeout, "timeout", c.cfg.Timeout, "how long the receiver has to answer each delivery (at most 10s)")
	fs.DurationVar(&c.cfg.Slow, "slow", c.cfg.Slow, "the slow case's delay between signing a delivery and sending it (at most 1m)")
	fs.StringVar(&c.json, "json-report", "", "also write the report as JSON to FILE (- for stdout; the text report then goes to stderr)")
	fs.StringVar(&c.cases, "cases", "", "comma-separated cases to run (default all): "+strings.Join(receivercheck.Cases, ","))
}

// receiverEnvPrefix prefixes the environment variables of check-receiver.
const receiverEnvPrefix = cmdline.EnvPrefix + "RECEIVER_"

// checkReceiver runs pixsandbox check-receiver.
func checkReceiver(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runCheckReceiver(ctx, args, stdout, stderr, envLookup)
}

func runCheckReceiver(ctx context.Context, args []string, stdout, stderr io.Writer, lookup func(string) (string, bool)) int {
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "pixsandbox check-receiver: "+format+"\n"+cmdline.UsageHint("check-receiver"), a...)
		return 2
	}
	var f checkReceiverFlags
	fs := flag.NewFlagSet("check-receiver", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f.register(fs)
	fs.Usage = func() {} // errors are reported below, once, with the fix
	// Its variables are PIXSANDBOX_RECEIVER_<FLAG>: PIXSANDBOX_URL is the
	// simulator's address for the other commands, not the partner's receiver.
	receiverEnv := func(k string) (string, bool) {
		return lookup(strings.Replace(k, cmdline.EnvPrefix, receiverEnvPrefix, 1))
	}
	if err := cmdline.ApplyEnv(fs, receiverEnv, cmdline.EnvName); err != nil {
		return usageErr("%s", strings.ReplaceAll(err.Error(), cmdline.EnvPrefix, receiverEnvPrefix))
	}
	f.headers.fromEnv = len(f.headers.list) > 0
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, checkReceiverUsage)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return 0
		}
		return usageErr("%v", err)
	}
	if fs.NArg() > 0 {
		return usageErr("unexpected arguments %q: every setting is a flag", fs.Args())
	}
	if f.cfg.URL == "" {
		return usageErr("--url is required: the partner's webhook receiver, e.g. --url https://partner.example/webhooks (or %s)", receiverEnvPrefix+"URL")
	}
	f.cfg.Headers = f.headers.list
	for _, c := range strings.Split(f.cases, ",") {
		if c = strings.TrimSpace(c); c != "" {
			f.cfg.Cases = append(f.cfg.Cases, c)
		}
	}
	if f.cfg.Timeout == 0 {
		return usageErr("--timeout must be more than 0")
	}
	if f.cfg.Slow == 0 {
		return usageErr("--slow must be more than 0 (leave the slow case out with --cases instead)")
	}

	rep, err := receivercheck.Run(ctx, f.cfg, webhook.Dispatcher{})
	if pe, ok := errors.AsType[*pix.Error](err); ok && pe.Kind == pix.KindInvalid {
		msgs := make([]string, len(pe.Violations))
		for i, v := range pe.Violations {
			msgs[i] = flagViolation(v, f.cfg)
		}
		return usageErr("%s", strings.Join(msgs, "\n  "))
	}
	text := stdout
	if f.json == "-" {
		text = stderr
	}
	if rep.URL != "" {
		fmt.Fprint(text, rep.Text())
	}
	if err != nil {
		fmt.Fprintf(stderr, "pixsandbox check-receiver: %v\n", err)
		return 1
	}
	if f.json != "" {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			fmt.Fprintf(stderr, "pixsandbox check-receiver: JSON report: %v\n", err)
			return 1
		}
		b = append(b, '\n')
		if f.json == "-" {
			_, err = stdout.Write(b)
		} else {
			err = os.WriteFile(f.json, b, 0o644)
		}
		if err != nil {
			fmt.Fprintf(stderr, "pixsandbox check-receiver: write the JSON report: %v\n", err)
			return 1
		}
	}
	if !rep.OK {
		return 1
	}
	return 0
}

var headerField = regexp.MustCompile(`^headers\[(\d+)\]\.(key|value)$`)

// flagViolation words a violation of the configuration as the flag to fix.
func flagViolation(v pix.Violation, cfg receivercheck.Config) string {
	switch {
	case v.Field == "url":
		return "--url " + v.Message
	case v.Field == "callbackUrl":
		return "--callback-url " + v.Message
	case v.Field == "secret":
		return "--secret " + v.Message
	case v.Field == "timeout":
		return "--timeout " + v.Message
	case v.Field == "slow":
		return "--slow " + v.Message
	case v.Field == "headers":
		return "--header " + v.Message
	case strings.HasPrefix(v.Field, "cases["):
		return "--cases: each case " + v.Message
	}
	if m := headerField.FindStringSubmatch(v.Field); m != nil {
		var i int
		fmt.Sscan(m[1], &i)
		name := ""
		if i < len(cfg.Headers) {
			name = fmt.Sprintf(" %q", cfg.Headers[i].Key)
		}
		return fmt.Sprintf("--header%s: its %s %s", name, map[string]string{"key": "name", "value": "value"}[m[2]], v.Message)
	}
	return v.Field + " " + v.Message
}
