package framework

import (
	"context"
	"crypto/tls"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
	"github.com/pixsandbox/pixsandbox/conformance/framework/codec"
	"github.com/pixsandbox/pixsandbox/conformance/framework/sandbox"
)

func mustRE(s string) *regexp.Regexp { return regexp.MustCompile(s) }

func TestConfig_AuthDefaults(t *testing.T) {
	for _, tt := range []struct {
		c    Config
		want string
	}{
		{Config{}, AuthTokenRoute},
		{Config{Token: "t"}, AuthToken},
		{Config{TokenCommand: "echo t"}, AuthTokenCommand},
		{Config{Auth: AuthNone}, AuthNone},
	} {
		if got := tt.c.WithDefaults(); got.Auth != tt.want || got.TokenPath != apiclient.TokenPath {
			t.Errorf("WithDefaults(%+v): auth %q, token path %q; want %q, %q", tt.c, got.Auth, got.TokenPath, tt.want, apiclient.TokenPath)
		}
	}
}

func TestConfig_ValidateAuth(t *testing.T) {
	for _, tt := range []struct {
		c       Config
		wantErr string
	}{
		{Config{Target: "http://x", Token: "t"}, ""},
		{Config{Target: "http://x", Auth: AuthNone}, ""},
		{Config{Target: "http://x", TokenPath: "/oauth/token"}, ""},
		{Config{Target: "http://x", TLSClientCert: "c", TLSClientKey: "k", CACert: "ca"}, ""},
		{Config{Target: "http://x", Auth: "basic"}, `-auth "basic"`},
		{Config{Target: "http://x", Auth: AuthToken}, "-auth token needs -token"},
		{Config{Target: "http://x", Auth: AuthTokenCommand}, "needs -token-command"},
		{Config{Target: "http://x", Token: "a", TokenCommand: "b"}, "exclude each other"},
		{Config{Target: "http://x", Auth: AuthNone, Token: "a"}, "-auth none sends no token"},
		{Config{Target: "http://x", TokenPath: "oauth/token"}, "-token-path"},
		{Config{Target: "http://x", TLSClientKey: "k"}, "go together"},
		{Config{Target: "http://x", Focus: "("}, "-focus"},
	} {
		err := tt.c.Validate()
		if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("Validate(%+v) = %v, want %q", tt.c, err, tt.wantErr)
		}
	}
}

func TestConfig_ReportsDir(t *testing.T) {
	c := Config{ReportsDir: "out", JUnitReport: "mine.xml"}.WithDefaults()
	if c.JUnitReport != "mine.xml" || c.JSONReport != "out/conformance.json" || c.CoverageReport != "out/conformance-coverage" {
		t.Fatalf("WithDefaults = junit %q, json %q, coverage %q", c.JUnitReport, c.JSONReport, c.CoverageReport)
	}
}

func TestConfiguredToken(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		c       Config
		want    string
		wantErr string
	}{
		{Config{Auth: AuthToken, Token: "static"}, "static", ""},
		{Config{Auth: AuthNone}, "", ""},
		{Config{Auth: AuthTokenCommand, TokenCommand: "printf 'Bearer abc.def\\n'"}, "abc.def", ""},
		{Config{Auth: AuthTokenCommand, TokenCommand: "echo oops >&2; exit 3"}, "", "oops"},
		{Config{Auth: AuthTokenCommand, TokenCommand: "true"}, "", "printed no token"},
		{Config{Auth: AuthTokenCommand, TokenCommand: "printf 'a\\nb\\n'"}, "", "several lines"},
		{Config{Auth: AuthTokenRoute}, "", "token route"},
	} {
		got, err := tt.c.configuredToken(ctx)
		if got != tt.want || tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("configuredToken(%+v) = %q, %v; want %q, %q", tt.c, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestConfig_TransportRejectsBadFiles(t *testing.T) {
	if _, err := (Config{TLSClientCert: "/nonexistent.pem", TLSClientKey: "/nonexistent.key"}).transport(); err == nil || !strings.Contains(err.Error(), "-tls-client-cert") {
		t.Fatalf("transport with a missing certificate = %v", err)
	}
	if _, err := (Config{CACert: "/nonexistent.pem"}).transport(); err == nil || !strings.Contains(err.Error(), "-ca-cert") {
		t.Fatalf("transport with a missing CA = %v", err)
	}
}

// The suite's client presents -tls-client-cert to a target that requires a
// client certificate and trusts the target's server certificate through
// -ca-cert; without the client certificate the handshake fails.
func TestNewClientFor_MutualTLS(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(r.TLS.PeerCertificates) == 0 {
			http.Error(w, "no client certificate", http.StatusForbidden)
			return
		}
		fmt.Fprintf(w, `{"cn":%q}`, r.TLS.PeerCertificates[0].Subject.CommonName)
	}))
	srv.TLS = &tls.Config{ClientAuth: tls.RequireAnyClientCert}
	srv.StartTLS()
	defer srv.Close()

	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ca := write("ca.pem", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})))
	certPEM, keyPEM, err := codec.SelfSignedCert(time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	cert, key := write("client.pem", certPEM), write("client.key", keyPEM)

	c, err := NewClientFor(Config{Target: srv.URL, TLSClientCert: cert, TLSClientKey: key, CACert: ca}, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Do(context.Background(), http.MethodGet, "/", "", nil, nil)
	if err != nil || r.Status != http.StatusOK {
		t.Fatalf("GET with the client certificate = %v, %v", r, err)
	}
	noCert, err := NewClientFor(Config{Target: srv.URL, CACert: ca}, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	r, err = noCert.Do(context.Background(), http.MethodGet, "/", "", nil, nil)
	if err == nil {
		t.Fatalf("GET without a client certificate = %v, want a handshake failure", r)
	}
	if hint := (Config{Target: srv.URL, CACert: ca}).transportHint(err); !strings.Contains(hint, "--tls-client-cert") {
		t.Errorf("transportHint(%v) = %q, want it to name --tls-client-cert", err, hint)
	}
	if hint := (Config{Target: srv.URL, TLSClientCert: cert, TLSClientKey: key}).transportHint(err); hint != "" {
		t.Errorf("transportHint with a client certificate given = %q, want none", hint)
	}
}

// gateTarget is a target for the authentication gate: tokenStatus answers
// the token route at /api/auth/token (0: the route is absent, 404),
// balanceStatus answers GET /accounts/balances, and POST /_sandbox/accounts
// creates an account.
type gateTarget struct {
	tokenStatus, balanceStatus int
	requests                   []string
}

func (g *gateTarget) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.requests = append(g.requests, r.Method+" "+r.URL.Path)
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/_sandbox/accounts":
		w.WriteHeader(http.StatusCreated)
		fmt.Fprint(w, `{"id":1,"clientId":"c","clientSecret":"s","certificate":"PEM"}`)
	case r.Method == http.MethodPost && r.URL.Path == apiclient.TokenPath && g.tokenStatus != 0:
		w.WriteHeader(g.tokenStatus)
		if g.tokenStatus == http.StatusCreated {
			fmt.Fprint(w, `{"access_token":"tok","token_type":"Bearer","expires_in":1800}`)
		} else {
			fmt.Fprint(w, `{"code":"PUB_INVALID_CREDENTIALS"}`)
		}
	case r.Method == http.MethodGet && r.URL.Path == "/accounts/balances" && g.balanceStatus != 0:
		w.WriteHeader(g.balanceStatus)
		fmt.Fprint(w, `{"message":"answer"}`)
	default:
		http.Error(w, `{"message":"Cannot `+r.Method+` `+r.URL.Path+`"}`, http.StatusNotFound)
	}
}

// The authentication gate passes when the suite can act as an account and
// otherwise says what it tried, what answered and which flags fit.
func TestConfig_EstablishAuth(t *testing.T) {
	creds := Config{ClientID: "11111111-1111-4111-8111-111111111111", ClientSecret: "s", ClientCert: "cert.pem"}
	with := func(c Config, f func(*Config)) Config { f(&c); return c }
	for _, tt := range []struct {
		name         string
		c            Config
		controlPlane bool
		target       gateTarget
		wantErr      []string
		wantRequests int
	}{
		{name: "token route issues", c: creds, target: gateTarget{tokenStatus: 201}, wantRequests: 1},
		{name: "token route absent", c: creds, target: gateTarget{},
			wantErr: []string{"-auth token-route: POST /api/auth/token", "answered 404", "Cannot POST", "--token-path", "--token TOKEN", "--token-command", "--auth none", "--header"}},
		{name: "token route refuses", c: creds, target: gateTarget{tokenStatus: 401},
			wantErr: []string{"answered 401", "PUB_INVALID_CREDENTIALS", "refused the credentials", "--client-secret", "--auth none"}},
		{name: "other token path absent", c: with(creds, func(c *Config) { c.TokenPath = "/oauth/token" }), target: gateTarget{tokenStatus: 201},
			wantErr: []string{"POST /oauth/token", "no token route at /oauth/token"}},
		{name: "no credentials", c: Config{}, target: gateTarget{tokenStatus: 201},
			wantErr: []string{"--auth none", "--token TOKEN", "--token-command CMD"}},
		{name: "control plane account", c: Config{}, controlPlane: true, target: gateTarget{tokenStatus: 201}, wantRequests: 2},
		{name: "control plane without token route", c: Config{}, controlPlane: true, target: gateTarget{},
			wantErr: []string{"the control plane's accounts: POST /api/auth/token for a fresh sandbox account", "answered 404", "--control-plane off"}},
		{name: "token accepted", c: Config{Token: "t"}, target: gateTarget{balanceStatus: 200}, wantRequests: 1},
		{name: "token, route absent", c: Config{Token: "t"}, target: gateTarget{}, wantRequests: 1},
		{name: "token, method not allowed", c: Config{Token: "t"}, target: gateTarget{balanceStatus: 405}, wantRequests: 1},
		{name: "token refused", c: Config{Token: "t"}, target: gateTarget{balanceStatus: 401},
			wantErr: []string{"-auth token: GET /accounts/balances with the configured token answered 401", "refused the token", "--token-command", "--auth none"}},
		{name: "token-command forbidden", c: Config{TokenCommand: "echo t"}, target: gateTarget{balanceStatus: 403},
			wantErr: []string{"-auth token-command", "answered 403"}},
		{name: "token-command fails", c: Config{TokenCommand: "exit 4"}, target: gateTarget{balanceStatus: 200},
			wantErr: []string{"-auth token-command", "-token-command"}},
		{name: "none", c: Config{Auth: AuthNone}, target: gateTarget{}},
		{name: "header refused", c: Config{Auth: AuthHeader, Headers: []string{"mocked-token: v"}}, target: gateTarget{balanceStatus: 401},
			wantErr: []string{"-auth header: GET /accounts/balances with the header Mocked-Token answered 401", "refused the credential header"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(&tt.target)
			defer srv.Close()
			c := tt.c
			c.Target = srv.URL
			c.ControlPlane = ControlPlaneOff
			if tt.controlPlane {
				c.ControlPlane = ControlPlaneAuto
			}
			c = c.WithDefaults()
			client, err := NewClientFor(c, 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			err = c.establishAuth(context.Background(), client, sandbox.New(client, ""), tt.controlPlane, "PEM")
			if len(tt.wantErr) == 0 {
				if err != nil {
					t.Fatalf("establishAuth = %v, want nil", err)
				}
				if len(tt.target.requests) != tt.wantRequests {
					t.Errorf("requests %q, want %d", tt.target.requests, tt.wantRequests)
				}
				return
			}
			if err == nil {
				t.Fatalf("establishAuth = nil, want an error with %q", tt.wantErr)
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("establishAuth = %q, want %q in it", err, want)
				}
			}
		})
	}
}

// TestCertSubject: the report names the client certificate by its subject
// and fingerprint, and says what it cannot read.
func TestCertSubject(t *testing.T) {
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	defer srv.Close()
	dir := t.TempDir()
	good := filepath.Join(dir, "cert.pem")
	if err := os.WriteFile(good, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := certSubject(good); !strings.Contains(got, "O=Acme Co") || !strings.Contains(got, "SHA-256 ") {
		t.Errorf("certSubject = %q, want the subject and the fingerprint", got)
	}
	bad := filepath.Join(dir, "bad.pem")
	if err := os.WriteFile(bad, []byte("not pem"), 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{bad: "no PEM block", filepath.Join(dir, "missing.pem"): "unreadable"} {
		if got := certSubject(path); !strings.Contains(got, want) {
			t.Errorf("certSubject(%s) = %q, want %q", path, got, want)
		}
	}
}
