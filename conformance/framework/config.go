package framework

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
)

// Control-plane modes accepted by Config.ControlPlane.
const (
	// ControlPlaneAuto detects the control plane: the target has one when
	// GET /_sandbox/clock answers 200 with a JSON object carrying "mode".
	ControlPlaneAuto = "auto"
	// ControlPlaneOn asserts that the target has the control plane; the suite
	// fails in BeforeSuite when GET /_sandbox/clock does not answer as expected.
	ControlPlaneOn = "on"
	// ControlPlaneOff treats the target as having no control plane, even when it
	// has one: specs labelled "sandbox" are skipped and the configured credentials
	// are used.
	ControlPlaneOff = "off"
)

// Authentication modes accepted by Config.Auth.
const (
	// AuthTokenRoute requests tokens from the token route with the configured
	// client credentials and certificate.
	AuthTokenRoute = "token-route"
	// AuthToken sends the configured static token.
	AuthToken = "token"
	// AuthTokenCommand sends the token printed by the configured command.
	AuthTokenCommand = "token-command"
	// AuthNone sends no Authorization header: for a target that requires no
	// authentication. Checks that need client credentials are skipped.
	AuthNone = "none"
	// AuthHeader sends the configured headers (Config.Headers) as the
	// credential, in place of a bearer token, on the requests that act as
	// the configured account, and on no other.
	AuthHeader = "header"
)

// Defaults applied by Config.WithDefaults to zero fields.
const (
	// DefaultWebhookListen is the webhook receiver's default listen address: the
	// loopback interface on a port chosen by the kernel.
	DefaultWebhookListen = "127.0.0.1:0"
	// DefaultSettleTimeout bounds every wait for asynchronous outcomes.
	DefaultSettleTimeout = 30 * time.Second
)

// EnvPrefix prefixes the environment variables that provide flag defaults.
const EnvPrefix = "PIXSANDBOX_CONFORMANCE_"

// Config says which implementation of the PIX API the suite talks to and how.
// The zero value of a field means its default (see WithDefaults).
type Config struct {
	// Target is the base URL of the implementation under test, for example
	// http://127.0.0.1:8080. Paths of the specification are appended to it.
	Target string
	// ClientID is the clientId (UUID v4) used when the target has no control
	// plane to create fresh accounts.
	ClientID string
	// ClientSecret is the clientSecret belonging to ClientID.
	ClientSecret string
	// ClientCert is the path of the PEM certificate, registered and linked to
	// ClientID's account, that is sent URL-encoded in X-SSL-Client-Cert.
	ClientCert string
	// ControlPlane is ControlPlaneAuto, ControlPlaneOn or ControlPlaneOff.
	ControlPlane string
	// AdminToken is sent as X-Sandbox-Admin-Token on every control-plane request
	// when it is not empty.
	AdminToken string
	// WebhookListen is the address the webhook receiver listens on.
	WebhookListen string
	// WebhookPublicURL is the base URL under which the target reaches the
	// webhook receiver (for example through a tunnel); empty means the
	// receiver's own listen address.
	WebhookPublicURL string
	// SettleTimeout bounds every wait for an asynchronous outcome (Eventually).
	SettleTimeout time.Duration
	// DictKey is a PIX key registered in the target's DICT, used as the
	// destination of the transfers the suite sends to POST /dict/pix. Empty
	// means: register one through the control plane when the target has one,
	// otherwise skip the checks that need an accepted transfer.
	DictKey string
	// PixKey is a PIX key of the configured account, sent as the chave of the
	// PUT /cob/{txid} charges the suite creates. Empty means: the account's EVP
	// key on a target with a control plane, no chave otherwise.
	PixKey string
	// RefundE2E is the endToEndId of a PIX the configured account received,
	// refunded one centavo at a time by the PUT /pix/{e2eid}/devolucao/{id}
	// checks that need a refundable PIX. Empty means: receive a fresh PIX through
	// the control plane when the target has one, otherwise skip those checks.
	RefundE2E string
	// RefundTransactionID is the transaction id of a PIX the configured account
	// received (usually the one RefundE2E names), the {id} of the
	// POST /api/pix/refund-in/{id} checks that need a refundable PIX. Empty
	// means: receive a fresh PIX through the control plane when the target has
	// one, otherwise skip those checks.
	RefundTransactionID string
	// ResendTransaction identifies a transaction of the configured account that
	// has already sent its webhook (its transaction id, externalId or
	// end-to-end id), resent by the POST /api/resend-webhook/{transactionIdentifier}
	// checks. Empty means: settle a fresh cash-out through the control plane when
	// the target has one, otherwise take the newest CONFIRMED transaction that
	// GET /api/transactions lists, otherwise skip those checks.
	ResendTransaction string
	// AllowReset lets the suite run the check of POST /_sandbox/reset, which
	// drops every record of the target: only for a sandbox nobody else uses.
	AllowReset bool
	// LabelFilter, when set, replaces -ginkgo.label-filter: which checks run,
	// e.g. "spec && !sandbox && !sandbox-choice" against a real service.
	LabelFilter string
	// CoverageReport, when set, is a path prefix: Run writes the coverage of
	// the specification's tables to PREFIX.json and PREFIX.md.
	CoverageReport string
	// Verbose prints every check as it runs (Ginkgo's -v), NoColor turns off
	// the colours of the console report.
	Verbose, NoColor bool
	// JUnitReport, when set, is where Run writes a JUnit XML report (the same as
	// -ginkgo.junit-report, settable from PIXSANDBOX_CONFORMANCE_JUNIT_REPORT so one
	// `go test ./...` can produce it). Each test case's classname is the
	// resource its check exercises (its res: label).
	JUnitReport string
	// JSONReport, when set, is where Run writes the machine-readable result of
	// the run: the counts, the absent routes, every check with its state and
	// reason, and the coverage (see RunResult).
	JSONReport string

	// Auth says how the suite authenticates as the configured account on a
	// target without a control plane: AuthTokenRoute (client credentials on
	// the token route), AuthToken (the static Token), AuthTokenCommand (the
	// token TokenCommand prints), AuthHeader (the Headers) or AuthNone (no
	// Authorization header).
	// Empty means AuthToken when Token is set, AuthTokenCommand when
	// TokenCommand is set, otherwise AuthTokenRoute.
	Auth string
	// Token is a bearer token sent as is on every request of the configured
	// account (AuthToken).
	Token string
	// TokenCommand is a shell command (run with sh -c) that prints a bearer
	// token on its standard output; it is run again for every check that needs
	// a token, so each check gets a fresh one (AuthTokenCommand).
	TokenCommand string
	// TokenPath is the path of the token route; empty means the
	// specification's POST /api/auth/token.
	TokenPath string
	// Headers are extra request headers, each "Name: value". They go on
	// every request the suite sends, except with AuthHeader, where they are
	// the configured account's credential: sent exactly where a check acts
	// as that account, never on the requests that deliberately carry no
	// credential or a bad one.
	Headers []string
	// TLSClientCert and TLSClientKey are PEM files of a client certificate the
	// suite presents in the TLS handshake with the target (mTLS); CACert is a
	// PEM bundle of the authorities the suite trusts for the target's server
	// certificate, in addition to the system's.
	TLSClientCert, TLSClientKey, CACert string

	// Seed orders the checks: every run shuffles all of them (not only the
	// top-level containers), in an order drawn from Seed, or from a new seed
	// each run when it is 0; the run prints the seed and records it in its
	// JSON result, so that an order that changes a verdict can be repeated.
	Seed int64

	// AllowEmpty lets a run in which no check ran pass; without it such a run
	// fails, so that a pipeline never goes green having tested nothing.
	AllowEmpty bool
	// AllowClockMoves lets checks move the simulation clock of a target with a
	// control plane (or reset it). Without it those checks are skipped, with
	// that reason, and the target's clock is left where it was.
	AllowClockMoves bool
	// NoWorkspace runs the checks in the target's default world even when its
	// control plane offers workspaces; KeepWorkspace keeps the run's
	// workspace at the end and prints its id.
	NoWorkspace, KeepWorkspace bool
	// Focus and Skip, when set, are regular expressions over a check's full
	// text: only matching checks run (Focus), matching checks do not (Skip).
	// They replace -ginkgo.focus and -ginkgo.skip.
	Focus, Skip string
	// ReportsDir, when set, is the directory the report files go to by
	// default: JUnitReport, JSONReport and CoverageReport that are empty are
	// written there (conformance-junit.xml, conformance.json,
	// conformance-coverage.{json,md}).
	ReportsDir string

	// envErr records an unusable environment default found by RegisterFlags.
	envErr error
}

// RegisterFlags defines the suite's flags on fs, storing their values in c.
// Each flag's default is taken from its environment variable when set
// (PIXSANDBOX_CONFORMANCE_TARGET for -target, and so on), otherwise from the
// value already in c, with the defaults of WithDefaults for zero fields. An unparsable PIXSANDBOX_CONFORMANCE_SETTLE_TIMEOUT is
// reported by Validate.
func RegisterFlags(fs *flag.FlagSet, c *Config) {
	d := c.WithDefaults()
	c.ControlPlane, c.WebhookListen, c.SettleTimeout = d.ControlPlane, d.WebhookListen, d.SettleTimeout
	str := func(p *string, name, env, usage string) {
		def := *p
		if v, ok := os.LookupEnv(EnvPrefix + env); ok {
			def = v
		}
		fs.StringVar(p, name, def, usage+" (env "+EnvPrefix+env+")")
	}
	str(&c.Target, "target", "TARGET", "base URL of the PIX API implementation under test; empty skips the suite")
	str(&c.ClientID, "client-id", "CLIENT_ID", "clientId (UUID v4) used when the target has no control plane")
	str(&c.ClientSecret, "client-secret", "CLIENT_SECRET", "clientSecret of -client-id")
	str(&c.ClientCert, "client-cert", "CLIENT_CERT", "path of the PEM client certificate registered for -client-id")
	str(&c.ControlPlane, "control-plane", "CONTROL_PLANE", "whether the target has the /_sandbox control plane: auto, on or off")
	str(&c.AdminToken, "admin-token", "ADMIN_TOKEN", "value of X-Sandbox-Admin-Token for control-plane requests")
	str(&c.WebhookListen, "webhook-listen", "WEBHOOK_LISTEN", "listen address of the suite's webhook receiver")
	str(&c.WebhookPublicURL, "webhook-public-url", "WEBHOOK_PUBLIC_URL", "base URL under which the target reaches the webhook receiver")
	str(&c.DictKey, "dict-key", "DICT_KEY", "a PIX key registered in the target's DICT, the destination of POST /dict/pix transfers")
	str(&c.PixKey, "pix-key", "PIX_KEY", "a PIX key of the configured account, the chave of the PUT /cob/{txid} charges")
	str(&c.RefundE2E, "refund-e2e", "REFUND_E2E", "endToEndId of a PIX the configured account received, refunded 0.01 at a time by the refund checks")
	str(&c.RefundTransactionID, "refund-transaction-id", "REFUND_TRANSACTION_ID", "transaction id of a PIX the configured account received, the {id} of the refund-in checks")
	str(&c.ResendTransaction, "resend-transaction", "RESEND_TRANSACTION", "transaction id, externalId or end-to-end id of a transaction of the configured account that sent its webhook, resent by the resend checks")
	str(&c.JUnitReport, "junit-report", "JUNIT_REPORT", "write a JUnit XML report to this file")
	str(&c.LabelFilter, "labels", "LABELS", "run only the checks whose labels match this Ginkgo label filter, e.g. 'spec && !sandbox && !sandbox-choice'")
	str(&c.CoverageReport, "coverage-report", "COVERAGE_REPORT", "write the coverage of the specification's tables to PREFIX.json and PREFIX.md")
	str(&c.JSONReport, "json", "JSON", "write the machine-readable result of the run (counts, absent routes, every check, coverage) to this file")
	str(&c.Auth, "auth", "AUTH", "how to authenticate without a control plane: token-route (client credentials), token, token-command, header (the --header values) or none; empty: from the flags given")
	str(&c.Token, "token", "TOKEN", "a bearer token sent as is (instead of the token route)")
	str(&c.TokenCommand, "token-command", "TOKEN_COMMAND", "a shell command that prints a bearer token, run again for each check that needs one")
	str(&c.TokenPath, "token-path", "TOKEN_PATH", "path of the token route (default "+apiclient.TokenPath+")")
	headers := &headerList{p: &c.Headers}
	if v, ok := os.LookupEnv(EnvPrefix + "HEADER"); ok {
		c.Headers, headers.isDefault = nil, true
		for _, line := range strings.Split(v, "\n") {
			if line = strings.TrimSpace(line); line != "" {
				c.Headers = append(c.Headers, line)
			}
		}
	}
	fs.Var(headers, "header", "a request header 'Name: value', repeatable: sent on every request, or with --auth header only where a check acts as the configured account (env "+EnvPrefix+"HEADER, one header per line)")
	str(&c.TLSClientCert, "tls-client-cert", "TLS_CLIENT_CERT", "PEM client certificate presented in the TLS handshake with the target (mTLS)")
	str(&c.TLSClientKey, "tls-client-key", "TLS_CLIENT_KEY", "PEM private key of -tls-client-cert")
	str(&c.CACert, "ca-cert", "CA_CERT", "PEM bundle of the authorities trusted for the target's server certificate, besides the system's")
	str(&c.Focus, "focus", "FOCUS", "run only the checks whose full text matches this regular expression")
	str(&c.Skip, "skip", "SKIP", "do not run the checks whose full text matches this regular expression")
	str(&c.ReportsDir, "reports-dir", "REPORTS_DIR", "directory of the report files not given a path of their own")

	boolean := func(p *bool, name, env, usage string) {
		def := *p
		if v, ok := os.LookupEnv(EnvPrefix + env); ok {
			def = v == "1" || strings.EqualFold(v, "true")
		}
		fs.BoolVar(p, name, def, usage+" (env "+EnvPrefix+env+")")
	}
	boolean(&c.AllowReset, "allow-reset", "ALLOW_RESET", "run the check of POST /_sandbox/reset, which drops every record of the target")
	boolean(&c.AllowEmpty, "allow-empty", "ALLOW_EMPTY", "pass a run in which no check ran")
	boolean(&c.AllowClockMoves, "allow-clock-moves", "ALLOW_CLOCK_MOVES", "run the checks that move the clock of a target with a control plane (or reset it) in its default world; a run in a workspace of its own runs them anyway")
	boolean(&c.NoWorkspace, "no-workspace", "NO_WORKSPACE", "run in the target's default world even when its control plane offers workspaces")
	boolean(&c.KeepWorkspace, "keep-workspace", "KEEP_WORKSPACE", "keep the run's workspace at the end and print its id")

	seed := c.Seed
	if v, ok := os.LookupEnv(EnvPrefix + "SEED"); ok {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			seed = n
		}
	}
	fs.Int64Var(&c.Seed, "seed", seed, "shuffle the checks with this seed (0: a new seed each run, printed at the start and in the JSON result) (env "+EnvPrefix+"SEED)")

	def := c.SettleTimeout
	if v, ok := os.LookupEnv(EnvPrefix + "SETTLE_TIMEOUT"); ok {
		d, err := time.ParseDuration(v)
		if err != nil {
			c.envErr = fmt.Errorf("%sSETTLE_TIMEOUT=%q: %w", EnvPrefix, v, err)
		} else {
			def = d
		}
	}
	fs.DurationVar(&c.SettleTimeout, "settle-timeout", def,
		"bound on every wait for an asynchronous outcome (env "+EnvPrefix+"SETTLE_TIMEOUT)")
}

// WithDefaults returns c with every zero field set to its default:
// ControlPlane "auto", WebhookListen "127.0.0.1:0", SettleTimeout 30s. It also
// trims a trailing slash from Target and WebhookPublicURL.
func (c Config) WithDefaults() Config {
	if c.ControlPlane == "" {
		c.ControlPlane = ControlPlaneAuto
	}
	if c.WebhookListen == "" {
		c.WebhookListen = DefaultWebhookListen
	}
	if c.SettleTimeout == 0 {
		c.SettleTimeout = DefaultSettleTimeout
	}
	if c.Auth == "" {
		switch {
		case c.Token != "":
			c.Auth = AuthToken
		case c.TokenCommand != "":
			c.Auth = AuthTokenCommand
		default:
			c.Auth = AuthTokenRoute
		}
	}
	if c.TokenPath == "" {
		c.TokenPath = apiclient.TokenPath
	}
	if c.ReportsDir != "" {
		if c.JUnitReport == "" {
			c.JUnitReport = filepath.Join(c.ReportsDir, "conformance-junit.xml")
		}
		if c.JSONReport == "" {
			c.JSONReport = filepath.Join(c.ReportsDir, "conformance.json")
		}
		if c.CoverageReport == "" {
			c.CoverageReport = filepath.Join(c.ReportsDir, "conformance-coverage")
		}
	}
	c.Target = strings.TrimRight(c.Target, "/")
	c.WebhookPublicURL = strings.TrimRight(c.WebhookPublicURL, "/")
	return c
}

// HasCredentials reports whether the configured credentials are complete.
// With an Auth mode other than AuthTokenRoute they are not used for the
// configured account, but the checks of the token route still need them.
func (c Config) HasCredentials() bool {
	return c.ClientID != "" && c.ClientSecret != "" && c.ClientCert != ""
}

// Validate reports every problem of c (after WithDefaults) in one error: a
// missing or non-HTTP Target, an unknown ControlPlane, partial credentials, a
// malformed WebhookListen or WebhookPublicURL, a RefundE2E that is not 32
// alphanumerics, a non-positive SettleTimeout and an unusable environment
// default.
func (c Config) Validate() error {
	c = c.WithDefaults()
	var errs []error
	if c.envErr != nil {
		errs = append(errs, c.envErr)
	}
	if c.Target == "" {
		errs = append(errs, errors.New("-target is required: the base URL of the PIX API under test"))
	} else if err := checkHTTPURL(c.Target); err != nil {
		errs = append(errs, fmt.Errorf("-target %q: %w", c.Target, err))
	}
	switch c.ControlPlane {
	case ControlPlaneAuto, ControlPlaneOn, ControlPlaneOff:
	default:
		errs = append(errs, fmt.Errorf("-control-plane %q: want auto, on or off", c.ControlPlane))
	}
	set := 0
	for _, v := range []string{c.ClientID, c.ClientSecret, c.ClientCert} {
		if v != "" {
			set++
		}
	}
	if set != 0 && set != 3 {
		errs = append(errs, errors.New("-client-id, -client-secret and -client-cert go together: give all three or none"))
	}
	if _, _, err := net.SplitHostPort(c.WebhookListen); err != nil {
		errs = append(errs, fmt.Errorf("-webhook-listen %q: %w", c.WebhookListen, err))
	}
	if c.WebhookPublicURL != "" {
		if err := checkHTTPURL(c.WebhookPublicURL); err != nil {
			errs = append(errs, fmt.Errorf("-webhook-public-url %q: %w", c.WebhookPublicURL, err))
		}
	}
	if c.RefundE2E != "" && !isAlnum32(c.RefundE2E) {
		errs = append(errs, fmt.Errorf("-refund-e2e %q: an endToEndId is exactly 32 alphanumeric characters", c.RefundE2E))
	}
	if c.SettleTimeout < 0 {
		errs = append(errs, fmt.Errorf("-settle-timeout %s: must be positive", c.SettleTimeout))
	}
	errs = append(errs, c.validateAuth()...)
	for _, re := range []struct{ flag, expr string }{{"-focus", c.Focus}, {"-skip", c.Skip}} {
		if _, err := regexp.Compile(re.expr); err != nil {
			errs = append(errs, fmt.Errorf("%s %q: %w", re.flag, re.expr, err))
		}
	}
	return errors.Join(errs...)
}

// isAlnum32 reports whether s is exactly 32 ASCII letters and digits.
func isAlnum32(s string) bool {
	if len(s) != 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if !('0' <= ch && ch <= '9' || 'a' <= ch && ch <= 'z' || 'A' <= ch && ch <= 'Z') {
			return false
		}
	}
	return true
}

func checkHTTPURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return errors.New("want an http:// or https:// URL")
	}
	if u.Host == "" {
		return errors.New("missing host")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return errors.New("a base URL takes no query or fragment")
	}
	return nil
}

// headerList is the flag.Value of the repeatable -header: each use appends
// one header; the first use replaces the headers taken from the
// environment (isDefault).
type headerList struct {
	p         *[]string
	isDefault bool
}

func (h *headerList) String() string {
	if h == nil || h.p == nil {
		return ""
	}
	return strings.Join(*h.p, "\n")
}

func (h *headerList) Set(v string) error {
	if _, _, err := parseHeader(v); err != nil {
		return err
	}
	if h.isDefault {
		*h.p, h.isDefault = nil, false
	}
	*h.p = append(*h.p, v)
	return nil
}
