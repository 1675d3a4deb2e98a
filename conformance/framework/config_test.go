package framework

import (
	"flag"
	"os"
	"strings"
	"testing"
	"time"
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
	if c != want {
		t.Fatalf("config = %+v\nwant     %+v", c, want)
	}
	for _, name := range []string{"target", "client-id", "client-secret", "client-cert", "control-plane", "admin-token", "webhook-listen", "webhook-public-url", "settle-timeout", "junit-report", "dict-key", "pix-key", "refund-e2e", "refund-transaction-id", "resend-transaction", "labels", "coverage-report", "allow-reset", "json", "auth", "token", "token-command", "token-path", "tls-client-cert", "tls-client-key", "ca-cert", "focus", "skip", "reports-dir", "allow-empty", "allow-clock-moves"} {
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
