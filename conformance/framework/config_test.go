package framework

import (
	"context"
	"flag"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
)

func TestRegisterFlags_EnvDefaultsAndFlags(t *testing.T) {
	// Clear what the caller's environment may hold (make test sets
	// JUNIT_REPORT and COVERAGE_REPORT).
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, EnvPrefix) {
			t.Setenv(k, "")
			os.Unsetenv(k)
		}
	}
	t.Setenv("PIXSANDBOX_CONFORMANCE_JUNIT_REPORT", "/tmp/report.xml")
	t.Setenv("PIXSANDBOX_CONFORMANCE_TARGET", "http://env.example:8080")
	t.Setenv("PIXSANDBOX_CONFORMANCE_CLIENT_ID", "env-id")
	t.Setenv("PIXSANDBOX_CONFORMANCE_CONTROL_PLANE", "off")
	t.Setenv("PIXSANDBOX_CONFORMANCE_SETTLE_TIMEOUT", "7s")
	t.Setenv("PIXSANDBOX_CONFORMANCE_ADMIN_TOKEN", "adm")
	t.Setenv("PIXSANDBOX_CONFORMANCE_DICT_KEY", "dest@example.com")
	t.Setenv("PIXSANDBOX_CONFORMANCE_PIX_KEY", "own@example.com")
	t.Setenv("PIXSANDBOX_CONFORMANCE_REFUND_E2E", "E12345678202603021200abcdefghijk")
	t.Setenv("PIXSANDBOX_CONFORMANCE_REFUND_TRANSACTION_ID", "4242")
	t.Setenv("PIXSANDBOX_CONFORMANCE_RESEND_TRANSACTION", "4343")
	t.Setenv("PIXSANDBOX_CONFORMANCE_LABELS", "spec && !sandbox")
	t.Setenv("PIXSANDBOX_CONFORMANCE_COVERAGE_REPORT", "/tmp/coverage")
	t.Setenv("PIXSANDBOX_CONFORMANCE_ALLOW_RESET", "true")

	var c Config
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	RegisterFlags(fs, &c)
	if err := fs.Parse([]string{"-client-id=flag-id", "-webhook-public-url=https://hooks.example"}); err != nil {
		t.Fatal(err)
	}
	want := Config{
		Target:              "http://env.example:8080",
		ClientID:            "flag-id",
		ControlPlane:        "off",
		AdminToken:          "adm",
		WebhookListen:       "127.0.0.1:0",
		WebhookPublicURL:    "https://hooks.example",
		SettleTimeout:       7 * time.Second,
		JUnitReport:         "/tmp/report.xml",
		DictKey:             "dest@example.com",
		PixKey:              "own@example.com",
		RefundE2E:           "E12345678202603021200abcdefghijk",
		RefundTransactionID: "4242",
		ResendTransaction:   "4343",
		LabelFilter:         "spec && !sandbox",
		CoverageReport:      "/tmp/coverage",
		AllowReset:          true,
	}
	if diff := cmp.Diff(want, c, cmp.AllowUnexported(Config{})); diff != "" {
		t.Fatalf("config (-want +got):\n%s", diff)
	}
	for _, name := range []string{"target", "client-id", "client-secret", "client-cert", "control-plane", "admin-token", "webhook-listen", "webhook-public-url", "settle-timeout", "junit-report", "dict-key", "pix-key", "refund-e2e", "refund-transaction-id", "resend-transaction", "labels", "coverage-report", "allow-reset", "json", "auth", "token", "token-command", "token-path", "header", "tls-client-cert", "tls-client-key", "ca-cert", "focus", "skip", "reports-dir", "allow-empty", "allow-clock-moves", "seed"} {
		if fs.Lookup(name) == nil {
			t.Errorf("flag -%s not registered", name)
		}
	}
}

func TestRegisterFlags_BadEnvDurationIsReportedByValidate(t *testing.T) {
	t.Setenv("PIXSANDBOX_CONFORMANCE_SETTLE_TIMEOUT", "soon")
	c := Config{Target: "http://x"}
	RegisterFlags(flag.NewFlagSet("t", flag.ContinueOnError), &c)
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "SETTLE_TIMEOUT") {
		t.Fatalf("Validate = %v, want the bad SETTLE_TIMEOUT reported", err)
	}
}

func TestConfig_WithDefaults(t *testing.T) {
	c := Config{Target: "http://x/", WebhookPublicURL: "https://h/"}.WithDefaults()
	if c.ControlPlane != "auto" || c.WebhookListen != "127.0.0.1:0" || c.SettleTimeout != 30*time.Second || c.Target != "http://x" || c.WebhookPublicURL != "https://h" {
		t.Fatalf("WithDefaults = %+v", c)
	}
}

func TestConfig_Validate(t *testing.T) {
	tests := []struct {
		name    string
		c       Config
		wantErr []string
	}{
		{name: "minimal", c: Config{Target: "http://127.0.0.1:8080"}},
		{name: "full", c: Config{Target: "https://pix.example.test/base", ClientID: "id", ClientSecret: "s", ClientCert: "c.pem",
			ControlPlane: "off", WebhookListen: "0.0.0.0:9000", WebhookPublicURL: "https://hooks.example", SettleTimeout: time.Minute,
			RefundE2E: "E12345678202603021200abcdefghijk", RefundTransactionID: "4242"}},
		{name: "no target", c: Config{}, wantErr: []string{"-target is required"}},
		{name: "bad scheme", c: Config{Target: "ftp://x"}, wantErr: []string{"http:// or https://"}},
		{name: "no host", c: Config{Target: "http://"}, wantErr: []string{"missing host"}},
		{name: "query", c: Config{Target: "http://x/?a=1"}, wantErr: []string{"no query"}},
		{name: "control plane", c: Config{Target: "http://x", ControlPlane: "maybe"}, wantErr: []string{"auto, on or off"}},
		{name: "partial credentials", c: Config{Target: "http://x", ClientID: "id"}, wantErr: []string{"go together"}},
		{name: "listen", c: Config{Target: "http://x", WebhookListen: "nope"}, wantErr: []string{"-webhook-listen"}},
		{name: "public url", c: Config{Target: "http://x", WebhookPublicURL: "hooks.example"}, wantErr: []string{"-webhook-public-url"}},
		{name: "refund e2e of 31", c: Config{Target: "http://x", RefundE2E: "E12345678202603021200abcdefghij"}, wantErr: []string{"-refund-e2e"}},
		{name: "refund e2e with a hyphen", c: Config{Target: "http://x", RefundE2E: "E12345678202603021200abcdefghi-k"}, wantErr: []string{"-refund-e2e"}},
		{name: "negative timeout", c: Config{Target: "http://x", SettleTimeout: -time.Second}, wantErr: []string{"must be positive"}},
		{name: "several problems at once", c: Config{ControlPlane: "x", ClientSecret: "s"}, wantErr: []string{"-target", "-control-plane", "go together"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.c.Validate()
			if len(tt.wantErr) == 0 {
				if err != nil {
					t.Fatalf("Validate = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate = nil, want errors %q", tt.wantErr)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Validate = %q, want it to mention %q", err, w)
				}
			}
		})
	}
}

func TestConfig_HasCredentials(t *testing.T) {
	if (Config{ClientID: "a", ClientSecret: "b"}).HasCredentials() {
		t.Error("HasCredentials without a certificate")
	}
	if !(Config{ClientID: "a", ClientSecret: "b", ClientCert: "c"}).HasCredentials() {
		t.Error("HasCredentials with all three = false")
	}
}

// -header is repeatable, its environment variable holds one header per
// line, and the first -header replaces the environment's.
func TestRegisterFlags_Header(t *testing.T) {
	t.Setenv("PIXSANDBOX_CONFORMANCE_HEADER", "X-Env: a\n\nX-Env-Two: b\n")
	var c Config
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	RegisterFlags(fs, &c)
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.Headers, "|"); got != "X-Env: a|X-Env-Two: b" {
		t.Fatalf("headers from the environment = %q", got)
	}
	var d Config
	fs = flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	RegisterFlags(fs, &d)
	if err := fs.Parse([]string{"-header", "mocked-token: v1", "-header", "X-Two:v2"}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(d.Headers, "|"); got != "mocked-token: v1|X-Two:v2" {
		t.Fatalf("headers from the flags = %q", got)
	}
	if err := fs.Parse([]string{"-header", "no colon"}); err == nil {
		t.Fatal("-header without a colon accepted")
	}
}

func TestConfig_ValidateHeaders(t *testing.T) {
	for _, tt := range []struct {
		name    string
		c       Config
		wantErr string
	}{
		{"extra header", Config{Target: "http://x", Token: "t", Headers: []string{"X-Api-Key: k"}}, ""},
		{"header auth", Config{Target: "http://x", Auth: AuthHeader, Headers: []string{"mocked-token: v"}}, ""},
		{"header auth without header", Config{Target: "http://x", Auth: AuthHeader}, "-auth header needs at least one -header"},
		{"header auth with token", Config{Target: "http://x", Auth: AuthHeader, Token: "t", Headers: []string{"A: b"}}, "drop -token"},
		{"no colon", Config{Target: "http://x", Headers: []string{"mocked-token v"}}, "want 'Name: value'"},
		{"bad name", Config{Target: "http://x", Headers: []string{"mocked token: v"}}, "not a valid header name"},
		{"empty name", Config{Target: "http://x", Headers: []string{": v"}}, "not a valid header name"},
		{"line break", Config{Target: "http://x", Headers: []string{"A: b\r\nEvil: c"}}, "line break"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.c.Validate()
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("Validate = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

// With -auth header the client carries the headers as the credential of
// the configured account, whose token is apiclient.CredentialToken, and the
// report names the headers but never their values; otherwise they go on
// every request.
func TestConfig_HeaderAuth(t *testing.T) {
	c := Config{Target: "http://x", Auth: AuthHeader, Headers: []string{"mocked-token: s3cret"}}.WithDefaults()
	cl, err := NewClientFor(c, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if cl.Credential.Get("Mocked-Token") != "s3cret" || len(cl.Headers) != 0 {
		t.Errorf("client credential %v, headers %v", cl.Credential, cl.Headers)
	}
	if tok, err := c.configuredToken(context.Background()); err != nil || tok != apiclient.CredentialToken {
		t.Errorf("configuredToken = %q, %v", tok, err)
	}
	if s := c.authSummary(false); !strings.Contains(s, "Mocked-Token") || strings.Contains(s, "s3cret") {
		t.Errorf("authSummary = %q: want the header's name, never its value", s)
	}
	c = Config{Target: "http://x", Token: "t", Headers: []string{"X-Api-Key: k"}}.WithDefaults()
	if cl, _ := NewClientFor(c, time.Second); cl.Headers.Get("X-Api-Key") != "k" || len(cl.Credential) != 0 {
		t.Errorf("client headers %v, credential %v", cl.Headers, cl.Credential)
	}
	if s := c.authSummary(false); !strings.Contains(s, "X-Api-Key") || strings.Contains(s, ": k") {
		t.Errorf("authSummary = %q", s)
	}
}
