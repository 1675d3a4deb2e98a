package framework

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"
	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
	"github.com/pixsandbox/pixsandbox/conformance/framework/codec"
	"github.com/pixsandbox/pixsandbox/conformance/framework/sandbox"
)

// TB is what Run needs from its caller: a *testing.T, or the runner of the
// pixsandbox conform command.
type TB interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	Fail()
}

var _ TB = (*testing.T)(nil)

// SuiteDescription is the Ginkgo suite description passed to RunSpecs.
const SuiteDescription = "PIX API conformance"

// requestTimeout bounds one HTTP request of the suite (wall time: an I/O deadline).
const requestTimeout = 60 * time.Second

// SkipNoControlPlane is the reason given when a spec labelled "sandbox" is
// skipped because the target has no control plane.
const SkipNoControlPlane = "target has no /_sandbox control plane; run with -ginkgo.label-filter='!sandbox'"

// AccountNamePrefix starts the holder's name of every sandbox account the
// suite creates, followed by an identifier of the run.
const AccountNamePrefix = "Conformance run "

// SkipClockMoves is the reason given when a check that moves the simulation
// clock (or resets the sandbox) is skipped on a target with a control plane
// because the run was not started with -allow-clock-moves.
const SkipClockMoves = "the check moves the target's simulation clock or resets it; run with -allow-clock-moves against a sandbox nobody else uses"

// NoCredentials is why a run with -auth token-route stops in its
// authentication gate when the target has no control plane to create
// accounts and no credentials were configured: no check could act as an
// account.
const NoCredentials = "-auth token-route needs -client-id, -client-secret and -client-cert on a target without a /_sandbox control plane, and none were given; " +
	"authenticate with --token TOKEN or --token-command CMD instead, or run with --auth none against a target that needs no authentication"

// suiteState is what BeforeSuite learns about the target; the only
// package-level state, written by Run and BeforeSuite before any spec runs and
// read-only afterwards.
type suiteState struct {
	started      bool
	ready        bool
	config       Config
	controlPlane bool
	clockMode    string
	// workspace is the id of the workspace the run created on the target
	// and runs every check in (empty when the target has none).
	workspace string
	client    *apiclient.Client
	sandbox   *sandbox.Client
	receiver  *Receiver
	certPEM   string
	// auth says how the run authenticates (Config.authSummary) and
	// tlsSubject whose client certificate it presents in TLS handshakes
	// ("" none): the report records both.
	auth, tlsSubject string
	// suiteVersion and targetVersion are the versions the report records
	// (SuiteVersion, targetVersion).
	suiteVersion, targetVersion string
	// setupFailure is why the run could not start (target unreachable,
	// configuration unusable, authentication refused), empty when
	// setupSuite succeeded; setupStep is the step that failed
	// (SetupStepAuth for the authentication gate, else empty).
	setupFailure, setupStep string
	// report is the run's report, captured by ReportAfterSuite.
	report *ginkgo.Report
	// planned are the checks the run selected, previewed before it started:
	// a run whose setup fails reports each of them not run.
	planned []types.SpecReport
}

var state suiteState

// Run runs the conformance specs registered in this process (those of package
// conformance, once imported) against c.Target, reporting to t. It validates
// c, registers the suite's BeforeSuite (probe the target, detect the control
// plane, load the configured certificate, start the webhook receiver) and
// calls ginkgo.RunSpecs. Ginkgo allows one RunSpecs per process, so Run may be
// called once; Ginkgo's own flags (-ginkgo.label-filter, -ginkgo.junit-report,
// …) are read from the command line that go test parsed.
//
// After the run it prints the counts (RunResult.Summary) and reports whether
// the run passed: it fails t, and returns false, when a check failed, when no
// check ran (unless c.AllowEmpty), when an item of the specification's tables
// is absent on the target, or when the run could not start.
func Run(t TB, c Config) bool {
	t.Helper()
	c = c.WithDefaults()
	if err := c.Validate(); err != nil {
		t.Fatalf("conformance configuration: %v", err)
	}
	if state.started {
		t.Fatal("framework.Run called twice: Ginkgo runs one suite per process")
	}
	state.started = true
	state.config = c
	ginkgo.BeforeSuite(setupSuite)
	ginkgo.AfterSuite(checkInvariants)
	ginkgo.ReportAfterSuite("coverage of the specification's tables", reportCoverage)
	gomega.RegisterFailHandler(ginkgo.Fail)
	suiteConfig, reporterConfig := suiteConfiguration(c)
	planned, err := selectedChecks(suiteConfig.LabelFilter, suiteConfig.FocusStrings, suiteConfig.SkipStrings)
	if err != nil {
		t.Fatalf("conformance configuration: %v", err)
	}
	state.planned = planned
	if c.JUnitReport != "" && reporterConfig.JUnitReport == "" {
		state.config.JUnitReport = c.JUnitReport
	} else {
		state.config.JUnitReport = reporterConfig.JUnitReport
	}
	// The suite writes its own JUnit report (classnames per resource).
	reporterConfig.JUnitReport = ""
	passed := ginkgo.RunSpecs(t, SuiteDescription, suiteConfig, reporterConfig)
	res := state.result()
	fmt.Fprint(os.Stdout, "\n"+res.Summary())
	if probs := res.problems(c); len(probs) > 0 {
		for _, p := range probs {
			fmt.Fprintf(os.Stdout, "  the run fails: %s\n", p)
		}
		t.Fail()
		return false
	}
	return passed
}

// suiteConfiguration returns Ginkgo's configuration from the command line,
// with the settings of c (label filter, focus, skip, verbosity, colour) in
// place of Ginkgo's own flags.
func suiteConfiguration(c Config) (types.SuiteConfig, types.ReporterConfig) {
	suiteConfig, reporterConfig := ginkgo.GinkgoConfiguration()
	if c.LabelFilter != "" {
		suiteConfig.LabelFilter = c.LabelFilter
	}
	if c.Focus != "" {
		suiteConfig.FocusStrings = append(suiteConfig.FocusStrings, c.Focus)
	}
	if c.Skip != "" {
		suiteConfig.SkipStrings = append(suiteConfig.SkipStrings, c.Skip)
	}
	if c.Verbose {
		reporterConfig.Verbose = true
	}
	if c.NoColor {
		reporterConfig.NoColor = true
	}
	// Every check in its own shuffled place, so that a verdict that depends
	// on what an earlier check left behind shows (issue: a refusal that
	// another refusal satisfies first). The seed is printed and recorded.
	suiteConfig.RandomizeAllSpecs = true
	if c.Seed != 0 {
		suiteConfig.RandomSeed = c.Seed
	}
	return suiteConfig, reporterConfig
}

// setupSuite probes the target, detects the control plane, loads the
// configured certificate, establishes authentication once (the gate: see
// Config.establishAuth) and starts the webhook receiver. Any failure stops
// the run before a check runs, with one error.
func setupSuite(ctx ginkgo.SpecContext) {
	c := state.config
	client, err := NewClientFor(c, requestTimeout)
	if err != nil {
		setupFail("%v", err)
	}
	ginkgo.DeferCleanup(client.CloseIdleConnections)
	sb := sandbox.New(client, c.AdminToken)
	sb.AccountName = AccountNamePrefix + (&Framework{}).UniqueID("")[:8]

	// Probe: any HTTP answer from the base URL shows the target is up (the
	// health route is sandbox-only, so it is not used here).
	probe, err := client.Do(ctx, http.MethodGet, "/", "", nil, nil)
	if err != nil {
		setupFail("target %s does not answer HTTP: %v%s", c.Target, err, c.transportHint(err))
	}
	ginkgo.AddReportEntry("target", fmt.Sprintf("%s (GET / answered %d)", c.Target, probe.Status))
	state.suiteVersion = SuiteVersion()
	state.targetVersion = targetVersion(ctx, client, probe)
	ginkgo.AddReportEntry("versions", fmt.Sprintf("suite %s; target %s", state.suiteVersion, orUnknown(state.targetVersion)))
	fmt.Fprintf(os.Stdout, "Suite %s; target %s.\n", state.suiteVersion, orUnknown(state.targetVersion))
	seed := ginkgo.GinkgoRandomSeed()
	ginkgo.AddReportEntry("order", fmt.Sprintf("every check shuffled with seed %d", seed))
	fmt.Fprintf(os.Stdout, "The checks run in an order shuffled with seed %d (--seed %d repeats it).\n", seed, seed)

	note := ""
	if c.ControlPlane != ControlPlaneOff {
		r, err := sb.Do(ctx, http.MethodGet, "/_sandbox/clock", nil)
		if err != nil {
			setupFail("target %s: GET /_sandbox/clock: %v", c.Target, err)
		}
		mode, _ := r.Field("mode")
		m, isStr := mode.(string)
		state.controlPlane = r.Status == http.StatusOK && isStr && m != ""
		state.clockMode = m
		if !state.controlPlane {
			note = fmt.Sprintf("; GET /_sandbox/clock answered %d", r.Status)
			if r.Status == http.StatusUnauthorized || r.Status == http.StatusForbidden {
				note += " (does the control plane need -admin-token?)"
			}
		}
		if c.ControlPlane == ControlPlaneOn && !state.controlPlane {
			setupFail("-control-plane=on but GET /_sandbox/clock did not answer 200 with a mode: %s", r)
		}
	}
	if state.controlPlane && !c.NoWorkspace {
		openWorkspace(ctx, client, sb)
	}
	ginkgo.AddReportEntry("control plane", fmt.Sprintf("%v (-control-plane=%s, clock mode %q%s)", state.controlPlane, c.ControlPlane, state.clockMode, note))
	if state.controlPlane && !c.AllowClockMoves && state.workspace == "" {
		sb.DenyClockMoves = SkipClockMoves
		fmt.Fprintf(os.Stdout, "The target has a control plane: the checks that move its clock or reset it are skipped (%s).\n", SkipClockMoves)
	}
	state.auth = c.authSummary(state.controlPlane)
	ginkgo.AddReportEntry("authentication", state.auth)
	if c.TLSClientCert != "" {
		state.tlsSubject = certSubject(c.TLSClientCert)
		ginkgo.AddReportEntry("TLS client certificate", state.tlsSubject)
	}

	if c.ClientCert != "" {
		b, err := os.ReadFile(c.ClientCert)
		if err != nil {
			setupFail("-client-cert: %v", err)
		}
		if _, err := codec.ParseCertPEM(string(b)); err != nil {
			setupFail("-client-cert %s: %v", c.ClientCert, err)
		}
		state.certPEM = string(b)
	}

	if err := c.establishAuth(ctx, client, sb, state.controlPlane, state.certPEM); err != nil {
		state.setupStep = SetupStepAuth
		setupFail("%s setup failed: %v", SetupStepAuth, err)
	}

	rcv, err := StartReceiver(c.WebhookListen, c.WebhookPublicURL)
	if err != nil {
		setupFail("starting the webhook receiver on -webhook-listen %s: %v", c.WebhookListen, err)
	}
	ginkgo.DeferCleanup(rcv.Close)
	ginkgo.AddReportEntry("webhook receiver", rcv.BaseURL())

	state.client = client
	state.sandbox = sb
	state.receiver = rcv
	state.ready = true
}

// openWorkspace creates a workspace of the run's own on a target whose
// control plane offers them (POST /_sandbox/workspaces answers 201), and
// points the control-plane client and every public request at it: every
// check then runs there, those that move the clock or reset included, and
// nobody else's world changes. The workspace is deleted when the run ends
// (kept with -keep-workspace). A target without workspaces (404, 405) runs
// as before.
func openWorkspace(ctx ginkgo.SpecContext, client *apiclient.Client, sb *sandbox.Client) {
	c := state.config
	r, err := sb.Do(ctx, http.MethodPost, "/_sandbox/workspaces", map[string]any{
		"name": "pixsandbox-conform-" + (&Framework{}).UniqueID("")[:8], "accounts": "fixtures", "ttl": "6h"})
	if err != nil {
		setupFail("target %s: POST /_sandbox/workspaces: %v", c.Target, err)
	}
	switch r.Status {
	case http.StatusCreated:
	case http.StatusNotFound, http.StatusMethodNotAllowed:
		return // no workspaces: the checks run in the target's one world
	default:
		setupFail("target %s: creating the run's workspace: %s", c.Target, r)
	}
	id, _ := r.Field("id")
	ws, ok := id.(string)
	if !ok || ws == "" {
		setupFail("target %s: POST /_sandbox/workspaces answered 201 without an id: %s", c.Target, r)
	}
	state.workspace = ws
	sb.Workspace = ws
	if client.Headers == nil {
		client.Headers = http.Header{}
	}
	client.Headers.Set(apiclient.HeaderWorkspace, ws)
	if cr, err := sb.Do(ctx, http.MethodGet, "/_sandbox/clock", nil); err == nil {
		if mode, ok := cr.Field("mode"); ok {
			state.clockMode, _ = mode.(string)
		}
	}
	ginkgo.AddReportEntry("workspace", ws)
	fmt.Fprintf(os.Stdout, "Running every check in workspace %s of the target (its own clock and accounts).\n", ws)
	ginkgo.DeferCleanup(func(ctx context.Context) {
		if c.KeepWorkspace {
			fmt.Fprintf(os.Stdout, "Kept workspace %s (-keep-workspace): its control routes are under /_sandbox/workspaces/%s/.\n", ws, ws)
			return
		}
		r, err := sb.Do(ctx, http.MethodDelete, "/_sandbox/workspaces/"+ws, nil)
		if err != nil || r.Status != http.StatusOK {
			fmt.Fprintf(os.Stdout, "Could not delete workspace %s: %v %v\n", ws, err, r)
		}
	})
}

// InWorkspace reports whether the run has a workspace of its own on the
// target, where moving the clock or resetting touches nobody else.
func InWorkspace() bool { return state.workspace != "" }

// Identity is who a spec acts as: an account's credentials and a certificate
// registered and linked to it.
type Identity struct {
	// ID is the account id when known (sandbox accounts), else empty.
	ID string
	// ClientID is the clientId (UUID v4).
	ClientID string
	// ClientSecret is the clientSecret.
	ClientSecret string
	// CertPEM is the client certificate as PEM text.
	CertPEM string
	// KeyPEM is the certificate's private key as PEM text, when known.
	KeyPEM string
}

// options configure a Framework.
type options struct {
	balance    string
	noIdentity bool
}

// Option configures New.
type Option func(*options)

// WithBalance sets the opening balance, as decimal text, of the account
// created for each spec on a target with a control plane. The default is
// "1000.00". It has no effect on other targets, whose account is configured.
func WithBalance(decimal string) Option {
	return func(o *options) { o.balance = decimal }
}

// WithoutIdentity makes the framework give specs no identity: no account is
// created and no credentials are required. For specs of the control plane.
func WithoutIdentity() Option {
	return func(o *options) { o.noIdentity = true }
}

// Framework is the per-Describe handle of the suite. New registers a
// BeforeEach that, for every spec of the container, skips the spec when it
// needs a capability the target lacks, gives it an identity and a webhook
// inbox, and resets the cached token. Fields are valid inside specs only.
type Framework struct {
	// Name names the framework's area, e.g. "auth".
	Name string
	// Config is the suite's configuration.
	Config Config
	// Client talks to the target's public API.
	Client *apiclient.Client
	// Sandbox talks to the target's control plane; use it only in specs
	// labelled "sandbox".
	Sandbox *sandbox.Client
	// ControlPlane reports whether the target has the /_sandbox control plane.
	ControlPlane bool
	// ClockMode is the control plane's clock mode ("real" or "virtual"), or
	// empty.
	ClockMode string
	// Identity is the spec's identity (empty with WithoutIdentity).
	Identity Identity
	// Account is the sandbox account created for the spec, or nil.
	Account *sandbox.Account
	// Webhooks is the spec's own inbox on the webhook receiver.
	Webhooks *Inbox

	opts  options
	token string
}

// New returns the framework of a Describe container and registers its
// BeforeEach there. Call it at the top of the container body.
func New(name string, opts ...Option) *Framework {
	f := &Framework{Name: name, opts: options{balance: "1000.00"}}
	for _, o := range opts {
		o(&f.opts)
	}
	ginkgo.BeforeEach(f.beforeEach, ginkgo.Offset(1))
	return f
}

func (f *Framework) beforeEach(ctx ginkgo.SpecContext) {
	if !state.ready {
		ginkgo.Fail("framework.New used in a suite not started by framework.Run")
	}
	f.Config = state.config
	f.Client = state.client
	f.Sandbox = state.sandbox
	f.ControlPlane = state.controlPlane
	f.ClockMode = state.clockMode
	f.Identity = Identity{}
	f.Account = nil
	f.token = ""

	spec := ginkgo.CurrentSpecReport()
	if slices.Contains(spec.Labels(), LabelSandbox) && !state.controlPlane {
		ginkgo.Skip(SkipNoControlPlane)
	}
	if spec.IsSerial && state.controlPlane && !state.config.AllowClockMoves && state.workspace == "" {
		ginkgo.Skip(SkipClockMoves)
	}

	f.Webhooks = state.receiver.NewInbox()
	ginkgo.DeferCleanup(f.Webhooks.Forget)

	if !f.opts.noIdentity {
		f.giveIdentity(ctx)
	}
	f.requireRoute(ctx)
}

// giveIdentity gives the spec its identity: a fresh sandbox account on a
// target with a control plane, otherwise the configured account (whose
// credentials, with -auth token-route, the authentication gate of
// setupSuite has required).
func (f *Framework) giveIdentity(ctx ginkgo.SpecContext) {
	if state.controlPlane {
		a, err := f.Sandbox.CreateAccount(ctx, sandbox.AccountOptions{Balance: f.opts.balance})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "creating the spec's sandbox account")
		f.Account = a
		f.Identity = Identity{
			ID:           a.ID.String(),
			ClientID:     a.ClientID,
			ClientSecret: a.ClientSecret,
			CertPEM:      a.Certificate,
			KeyPEM:       a.PrivateKey,
		}
		return
	}
	f.Identity = Identity{
		ClientID:     state.config.ClientID,
		ClientSecret: state.config.ClientSecret,
		CertPEM:      state.certPEM,
	}
}

// TokenRequest returns a valid token request for the spec's identity: its
// certificate encoded with EncodeCertHeader and its credentials as the body.
// Negative checks change one part of it.
// A check that needs client credentials the run does not have (-auth token,
// token-command or none without -client-id, -client-secret and -client-cert)
// is skipped with SkipNeedsCredentials.
func (f *Framework) TokenRequest() apiclient.TokenRequest {
	if f.Identity.ClientID == "" || f.Identity.CertPEM == "" {
		ginkgo.Skip(SkipNeedsCredentials + state.config.Auth)
	}
	h := apiclient.EncodeCertHeader(f.Identity.CertPEM)
	return apiclient.TokenRequest{CertHeader: &h, Body: apiclient.TokenBody(f.Identity.ClientID, f.Identity.ClientSecret)}
}

// Token returns an access token for the spec's identity, requesting it on
// first use and caching it for the rest of the spec. It fails the spec unless
// the token endpoint answers 201 with an access_token.
//
// For the configured account of a target without a control plane, the token
// comes from the run's authentication mode: the token route (the default),
// -token, a fresh run of -token-command, apiclient.CredentialToken with
// -auth header (the client sends the -header values in its place), or none
// at all (-auth none, "").
func (f *Framework) Token(ctx context.Context) string {
	if f.token != "" {
		return f.token
	}
	if f.Account == nil && !f.opts.noIdentity && state.config.Auth != AuthTokenRoute {
		tok, err := state.config.configuredToken(ctx)
		if err != nil {
			ginkgo.Fail(err.Error(), 1)
		}
		f.token = tok
		return tok
	}
	r, err := f.Client.Token(ctx, f.TokenRequest())
	gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred())
	gomega.ExpectWithOffset(1, r).To(HaveStatus(http.StatusCreated), "requesting the spec's token")
	tok, _ := r.Field("access_token")
	s, _ := tok.(string)
	gomega.ExpectWithOffset(1, s).NotTo(gomega.BeEmpty(), "access_token of %s", r)
	f.token = s
	return s
}

// ForgetToken drops the spec's cached token, so the next request takes a new
// one: a check that moves the clock past the token's lifetime calls it.
func (f *Framework) ForgetToken() { f.token = "" }

// IdentityOf returns the identity of a sandbox account, to act as another
// account than the spec's own.
func IdentityOf(a *sandbox.Account) Identity {
	return Identity{ID: a.ID.String(), ClientID: a.ClientID, ClientSecret: a.ClientSecret, CertPEM: a.Certificate, KeyPEM: a.PrivateKey}
}

// TokenFor requests an access token for id, failing the spec unless the token
// endpoint answers 201 with an access_token. It does not cache.
func (f *Framework) TokenFor(ctx context.Context, id Identity) string {
	h := apiclient.EncodeCertHeader(id.CertPEM)
	r, err := f.Client.Token(ctx, apiclient.TokenRequest{CertHeader: &h, Body: apiclient.TokenBody(id.ClientID, id.ClientSecret)})
	gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred())
	gomega.ExpectWithOffset(1, r).To(HaveStatus(http.StatusCreated), "requesting a token for client %s", id.ClientID)
	tok, _ := r.Field("access_token")
	s, _ := tok.(string)
	gomega.ExpectWithOffset(1, s).NotTo(gomega.BeEmpty(), "access_token of %s", r)
	return s
}

// Balance is one reading of GET /accounts/balances, in centavos.
type Balance struct {
	// Available is data[0].balanceAmount.available.
	Available int64
	// Blocked is data[0].balanceAmount.blocked.
	Blocked int64
}

// String renders the balance for failure messages.
func (b Balance) String() string {
	return "available " + apiclient.FormatCents(b.Available) + ", blocked " + apiclient.FormatCents(b.Blocked)
}

// BalanceOf reads GET /accounts/balances with token, failing the spec unless
// it answers 2xx with JSON numbers data[0].balanceAmount.available and
// blocked of at most two decimals. A check that reads it needs the route:
// on a target without it the check is absent (Needs).
func (f *Framework) BalanceOf(ctx context.Context, token string) Balance {
	f.Needs(ctx, "GET /accounts/balances")
	r := f.Do(ctx, http.MethodGet, "/accounts/balances", token, nil, nil)
	gomega.ExpectWithOffset(1, r).To(HaveSuccessStatus())
	cents := func(path string) int64 {
		v, ok := r.Field(path)
		gomega.ExpectWithOffset(2, ok).To(gomega.BeTrue(), "%s is absent in %s", path, r)
		_, isNum := v.(json.Number)
		gomega.ExpectWithOffset(2, isNum).To(gomega.BeTrue(), "%s is not a JSON number in %s", path, r)
		c, err := apiclient.Cents(v)
		gomega.ExpectWithOffset(2, err).NotTo(gomega.HaveOccurred(), "%s in %s", path, r)
		return c
	}
	return Balance{Available: cents("data[0].balanceAmount.available"), Blocked: cents("data[0].balanceAmount.blocked")}
}

// Balance reads the spec's account balance from GET /accounts/balances, in
// centavos (see BalanceOf).
func (f *Framework) Balance(ctx context.Context) Balance {
	return f.BalanceOf(ctx, f.Token(ctx))
}

// Do sends a request to the target (see Client.Do) and fails the spec on a
// transport error.
func (f *Framework) Do(ctx context.Context, method, path, token string, body []byte, headers http.Header) *apiclient.Response {
	r, err := f.Client.Do(ctx, method, path, token, body, headers)
	gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred())
	return r
}

// RequestToken sends req to the token endpoint and fails the spec on a
// transport error.
func (f *Framework) RequestToken(ctx context.Context, req apiclient.TokenRequest) *apiclient.Response {
	r, err := f.Client.Token(ctx, req)
	gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred())
	return r
}

// UniqueID returns prefix followed by 20 random lowercase hex characters, an
// identifier (externalId, idempotency suffix, …) no other spec or run uses.
// There is no separator, so the result is alphanumeric when prefix is.
func (f *Framework) UniqueID(prefix string) string {
	var b [10]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return prefix + hex.EncodeToString(b[:])
}

// UUIDv4 returns a random RFC 4122 version 4 UUID.
func UUIDv4() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// AwaitSettled lets asynchronous work finish, then runs check until it
// passes. On a target with a control plane it first advances the simulation
// clock by advance (the caller's spec must then be ginkgo.Serial); on any
// target it then polls check for up to the configured SettleTimeout.
func (f *Framework) AwaitSettled(ctx context.Context, advance time.Duration, check func(g gomega.Gomega)) {
	if f.ControlPlane && advance > 0 {
		_, err := f.Sandbox.Advance(ctx, int64((advance+time.Second-1)/time.Second))
		gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred(), "advancing the simulation clock")
	}
	gomega.EventuallyWithOffset(1, ctx, check).
		WithTimeout(f.Config.SettleTimeout).
		WithPolling(pollInterval(f.Config.SettleTimeout)).
		Should(gomega.Succeed())
}

// SettlementWindow is how far AwaitSettlement moves a sandbox's simulation
// clock: the sandbox settles PIX out 2 seconds after acceptance.
const SettlementWindow = 2 * time.Second

// AwaitSettlement lets a PIX out settle, then runs check until it passes: on a
// target with a control plane it advances the simulation clock by
// SettlementWindow (the caller's spec must then be ginkgo.Serial); on any
// target it then polls check for up to the configured SettleTimeout.
func (f *Framework) AwaitSettlement(ctx context.Context, check func(g gomega.Gomega)) {
	if f.ControlPlane {
		_, err := f.Sandbox.Advance(ctx, int64(SettlementWindow/time.Second))
		gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred(), "advancing the simulation clock")
	}
	gomega.EventuallyWithOffset(1, ctx, check).
		WithTimeout(f.Config.SettleTimeout).
		WithPolling(pollInterval(f.Config.SettleTimeout)).
		Should(gomega.Succeed())
}

// Eventually polls check until it passes, for up to the configured
// SettleTimeout, without touching the clock.
func (f *Framework) Eventually(ctx context.Context, check func(g gomega.Gomega)) {
	gomega.EventuallyWithOffset(1, ctx, check).
		WithTimeout(f.Config.SettleTimeout).
		WithPolling(pollInterval(f.Config.SettleTimeout)).
		Should(gomega.Succeed())
}

// Now returns the target's notion of the current time: the simulation clock
// when the target has a control plane, the wall clock otherwise. Use it for
// data whose validity the target judges, such as certificate dates.
func (f *Framework) Now(ctx context.Context) time.Time {
	if f.ControlPlane {
		c, err := f.Sandbox.Clock(ctx)
		gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred(), "reading the simulation clock")
		return c.Now
	}
	return time.Now() // wall time: the real service's clock
}

// pollInterval spreads about a hundred polls over timeout, between 10 ms and 1 s.
func pollInterval(timeout time.Duration) time.Duration {
	return min(max(timeout/100, 10*time.Millisecond), time.Second)
}

// checkInvariants asks a sandbox target, after every spec has run, to check its
// ledger against the transaction history (GET /_sandbox/invariants): money
// conserved, no pocket below zero, balances equal to their history, refunds
// never above their PIX. Any violation fails the suite.
func checkInvariants(ctx ginkgo.SpecContext) {
	if !state.ready || !state.controlPlane {
		return
	}
	r, err := state.sandbox.Do(ctx, http.MethodGet, "/_sandbox/invariants", nil)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "GET /_sandbox/invariants")
	gomega.Expect(r.Status).To(gomega.Equal(http.StatusOK), "GET /_sandbox/invariants: %s", r)
	ok, _ := r.Field("ok")
	violations, _ := r.Field("violations")
	accounts, _ := r.Field("accounts")
	txs, _ := r.Field("transactions")
	ginkgo.AddReportEntry("invariants", fmt.Sprintf("ok=%v over %v accounts and %v transactions", ok, accounts, txs))
	gomega.Expect(ok).To(gomega.Equal(true), "the target's invariants are violated after the run: %v", violations)
}
