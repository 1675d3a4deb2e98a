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
	if r, err := noCert.Do(context.Background(), http.MethodGet, "/", "", nil, nil); err == nil {
		t.Fatalf("GET without a client certificate = %v, want a handshake failure", r)
	}
}
