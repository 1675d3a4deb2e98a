package framework

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
	"github.com/pixsandbox/pixsandbox/conformance/framework/sandbox"
)

// SetupStepAuth is RunResult.SetupStep when the run stopped in its
// authentication gate: no way to act as an account was established.
const SetupStepAuth = "auth"

// authProbePath is the contract route the authentication gate reads with a
// configured bearer token, to learn whether the target accepts it.
const authProbePath = "/accounts/balances"

// SkipNeedsCredentials is the reason given when a check needs the configured
// account's client credentials (the token route's own checks, a token for a
// second request built from them) and the run authenticates another way.
const SkipNeedsCredentials = "the check needs client credentials for the token route (-client-id, -client-secret, -client-cert); this run authenticates with -auth "

// tokenCommandTimeout bounds one run of -token-command (wall time: an I/O deadline).
const tokenCommandTimeout = 30 * time.Second

// validateAuth reports the problems of the authentication settings of c
// (after WithDefaults).
func (c Config) validateAuth() []error {
	var errs []error
	switch c.Auth {
	case AuthTokenRoute, AuthNone:
	case AuthHeader:
		if len(c.Headers) == 0 {
			errs = append(errs, errors.New("-auth header needs at least one -header 'Name: value': the header the target authenticates with"))
		}
		if c.Token != "" || c.TokenCommand != "" {
			errs = append(errs, errors.New("-auth header sends the -header values as the credential: drop -token and -token-command"))
		}
	case AuthToken:
		if c.Token == "" {
			errs = append(errs, errors.New("-auth token needs -token"))
		}
	case AuthTokenCommand:
		if c.TokenCommand == "" {
			errs = append(errs, errors.New("-auth token-command needs -token-command"))
		}
	default:
		errs = append(errs, fmt.Errorf("-auth %q: want token-route, token, token-command, header or none", c.Auth))
	}
	for _, h := range c.Headers {
		if _, _, err := parseHeader(h); err != nil {
			errs = append(errs, err)
		}
	}
	if c.Token != "" && c.TokenCommand != "" {
		errs = append(errs, errors.New("-token and -token-command exclude each other: give one"))
	}
	if c.Auth == AuthNone && (c.Token != "" || c.TokenCommand != "") {
		errs = append(errs, errors.New("-auth none sends no token: drop -token and -token-command"))
	}
	if !strings.HasPrefix(c.TokenPath, "/") {
		errs = append(errs, fmt.Errorf("-token-path %q: a path starting with /", c.TokenPath))
	}
	if (c.TLSClientCert == "") != (c.TLSClientKey == "") {
		errs = append(errs, errors.New("-tls-client-cert and -tls-client-key go together: give both or neither"))
	}
	return errs
}

// transport returns the HTTP transport of the suite's client: a clone of
// http.DefaultTransport with the client certificate and the extra
// authorities of c, when configured.
func (c Config) transport() (*http.Transport, error) {
	t := http.DefaultTransport.(*http.Transport).Clone()
	if c.TLSClientCert == "" && c.CACert == "" {
		return t, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if c.TLSClientCert != "" {
		pair, err := tls.LoadX509KeyPair(c.TLSClientCert, c.TLSClientKey)
		if err != nil {
			return nil, fmt.Errorf("-tls-client-cert %s / -tls-client-key %s: %w", c.TLSClientCert, c.TLSClientKey, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	if c.CACert != "" {
		pem, err := os.ReadFile(c.CACert)
		if err != nil {
			return nil, fmt.Errorf("-ca-cert: %w", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("-ca-cert %s: no PEM certificate in it", c.CACert)
		}
		cfg.RootCAs = pool
	}
	t.TLSClientConfig = cfg
	return t, nil
}

// parseHeader parses one -header value, "Name: value": the name is an HTTP
// token (RFC 9110 field name), the value has no line break; white space
// around either is dropped.
func parseHeader(line string) (name, value string, err error) {
	name, value, ok := strings.Cut(line, ":")
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	switch {
	case !ok:
		return "", "", fmt.Errorf("-header %q: want 'Name: value'", line)
	case name == "" || strings.IndexFunc(name, func(r rune) bool { return !isTokenChar(r) }) >= 0:
		return "", "", fmt.Errorf("-header %q: %q is not a valid header name (letters, digits and !#$%%&'*+-.^_`|~)", line, name)
	case strings.ContainsAny(value, "\r\n\x00"):
		return "", "", fmt.Errorf("-header %q: the value has a line break", line)
	}
	return name, value, nil
}

// isTokenChar reports whether r may appear in an HTTP token (RFC 9110
// section 5.6.2).
func isTokenChar(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", r)
}

// headers returns the -header values as an http.Header; Validate has
// checked them.
func (c Config) headers() http.Header {
	h := http.Header{}
	for _, line := range c.Headers {
		if name, value, err := parseHeader(line); err == nil {
			h.Add(name, value)
		}
	}
	return h
}

// headerNames returns the canonical names of the -header values, for the
// report (never their values).
func (c Config) headerNames() string {
	var names []string
	for name := range c.headers() {
		names = append(names, name)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// configuredToken returns the bearer token of the configured account for an
// Auth mode other than AuthTokenRoute: the static token, a fresh token from
// the command, apiclient.CredentialToken for AuthHeader (the client sends
// the -header values in its place), or "" for AuthNone.
func (c Config) configuredToken(ctx context.Context) (string, error) {
	switch c.Auth {
	case AuthToken:
		return c.Token, nil
	case AuthHeader:
		return apiclient.CredentialToken, nil
	case AuthNone:
		return "", nil
	case AuthTokenCommand:
		return runTokenCommand(ctx, c.TokenCommand)
	}
	return "", fmt.Errorf("-auth %s takes its token from the token route", c.Auth)
}

// runTokenCommand runs command with sh -c and returns the token it printed:
// its standard output without surrounding white space, which must be one
// non-empty line.
func runTokenCommand(ctx context.Context, command string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, tokenCommandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("-token-command %q: %w; stderr: %s", command, err, apiclient.Snippet(stderr.Bytes()))
	}
	tok := strings.TrimSpace(stdout.String())
	switch {
	case tok == "":
		return "", fmt.Errorf("-token-command %q printed no token", command)
	case strings.ContainsAny(tok, "\r\n"):
		return "", fmt.Errorf("-token-command %q printed several lines; want the token alone", command)
	}
	return strings.TrimPrefix(tok, "Bearer "), nil
}

// NewClientFor returns the Client of configuration c: its Target, its token
// path and its TLS settings (-tls-client-cert, -tls-client-key, -ca-cert),
// with requests timing out after timeout.
func NewClientFor(c Config, timeout time.Duration) (*apiclient.Client, error) {
	c = c.WithDefaults()
	t, err := c.transport()
	if err != nil {
		return nil, err
	}
	cl := apiclient.NewWithTransport(c.Target, timeout, t)
	cl.TokenPath = c.TokenPath
	if len(c.Headers) > 0 {
		if c.Auth == AuthHeader {
			cl.Credential = c.headers()
		} else {
			cl.Headers = c.headers()
		}
	}
	return cl, nil
}

// establishAuth is the run's authentication gate, passed once before any
// check runs. It establishes that the suite can act as an account:
//
//   - on a target with a control plane (controlPlane), it creates a probe
//     account there and requests a token for it from the token route;
//   - otherwise, with -auth token-route, it requests a token for the
//     configured credentials (and fails when none are configured);
//   - with -auth token, token-command or header, it takes the token (or the
//     credential headers) and reads
//     GET /accounts/balances with it: only 401 and 403 count as the token
//     refused (404 or 405 say the route is absent, not that the token is bad);
//   - with -auth none there is nothing to establish.
//
// The error says what was tried, what answered and which flags fit.
func (c Config) establishAuth(ctx context.Context, client *apiclient.Client, sb *sandbox.Client, controlPlane bool, certPEM string) error {
	if controlPlane {
		a, err := sb.CreateAccount(ctx, sandbox.AccountOptions{Balance: "1.00"})
		if err != nil {
			return fmt.Errorf("creating a probe account through the control plane: %v", err)
		}
		return c.requestGateToken(ctx, client, "for a fresh sandbox account", a.ClientID, a.ClientSecret, a.Certificate, true)
	}
	switch c.Auth {
	case AuthNone:
		return nil
	case AuthTokenRoute:
		if !c.HasCredentials() {
			return errors.New("" + NoCredentials)
		}
		return c.requestGateToken(ctx, client, "for -client-id "+c.ClientID, c.ClientID, c.ClientSecret, certPEM, false)
	}
	tok, err := c.configuredToken(ctx)
	if err != nil {
		return fmt.Errorf("-auth %s: %v", c.Auth, err)
	}
	tried := fmt.Sprintf("-auth %s: GET %s with the configured token", c.Auth, authProbePath)
	if c.Auth == AuthHeader {
		tried = fmt.Sprintf("-auth header: GET %s with the header %s", authProbePath, c.headerNames())
	}
	r, err := client.Do(ctx, http.MethodGet, authProbePath, tok, nil, nil)
	if err != nil {
		return fmt.Errorf("%s: %v%s", tried, err, c.transportHint(err))
	}
	if r.Status == http.StatusUnauthorized || r.Status == http.StatusForbidden {
		what := "the token"
		if c.Auth == AuthHeader {
			what = "the credential header"
		}
		return fmt.Errorf("%s answered %d %s: the target refused %s. %s",
			tried, r.Status, oneLine(apiclient.Snippet(r.Body), 200), what, c.authAlternatives())
	}
	return nil
}

// requestGateToken requests a token from the token route with the given
// credentials and reports, as the gate's error, anything but 201 with an
// access_token.
func (c Config) requestGateToken(ctx context.Context, client *apiclient.Client, whose, clientID, secret, certPEM string, controlPlane bool) error {
	mode := "-auth " + c.Auth
	if controlPlane {
		mode = "the control plane's accounts"
	}
	tried := fmt.Sprintf("%s: POST %s %s", mode, c.TokenPath, whose)
	h := apiclient.EncodeCertHeader(certPEM)
	r, err := client.Token(ctx, apiclient.TokenRequest{CertHeader: &h, Body: apiclient.TokenBody(clientID, secret)})
	if err != nil {
		return fmt.Errorf("%s: %v%s", tried, err, c.transportHint(err))
	}
	if tok, _ := r.Field("access_token"); r.Status == http.StatusCreated && tok != nil && tok != "" {
		return nil
	}
	answer := fmt.Sprintf("answered %d %s", r.Status, oneLine(apiclient.Snippet(r.Body), 200))
	var why string
	switch {
	case r.Status == http.StatusNotFound || r.Status == http.StatusMethodNotAllowed || r.Status == http.StatusNotImplemented:
		why = "the target has no token route at " + c.TokenPath + "; give its path with --token-path PATH"
	case r.Status == http.StatusCreated:
		why = "the token route issued no access_token"
	case controlPlane:
		why = "the token route refused an account its own control plane created"
	default:
		why = "the token route refused the credentials; check --client-id, --client-secret and --client-cert"
	}
	return fmt.Errorf("%s %s: %s. %s", tried, answer, why, c.authAlternatives())
}

// authAlternatives names the other ways to authenticate, for the gate's
// errors.
func (c Config) authAlternatives() string {
	s := "Other ways to authenticate: a bearer token with --token TOKEN or --token-command CMD, " +
		"a header of the target's own with --auth header --header 'Name: value', " +
		"or --auth none for a target that needs no authentication"
	if c.ControlPlane != ControlPlaneOff {
		s += " (with --control-plane off, so that the configured account is used)"
	}
	return s + "."
}

// transportHint explains a transport error that often means a missing
// client certificate: a TLS handshake failure or a connection reset on an
// https target when no -tls-client-cert was given. Otherwise it is empty.
func (c Config) transportHint(err error) string {
	if !strings.HasPrefix(c.Target, "https://") || c.TLSClientCert != "" || err == nil {
		return ""
	}
	msg := err.Error()
	if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) ||
		strings.Contains(msg, "remote error: tls") || strings.Contains(msg, "handshake") || strings.Contains(msg, "connection reset") {
		return " (a TLS handshake failure or a reset connection: the target may require a client certificate; give --tls-client-cert and --tls-client-key)"
	}
	return ""
}

// certSubject is the subject of the first certificate in the PEM file path,
// with its SHA-256 fingerprint, for the report; what it cannot read it says.
func certSubject(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return path + " (unreadable: " + err.Error() + ")"
	}
	block, _ := pem.Decode(b)
	if block == nil {
		return path + " (no PEM block)"
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return path + " (not a certificate: " + err.Error() + ")"
	}
	sum := sha256.Sum256(cert.Raw)
	return fmt.Sprintf("%s (SHA-256 %x)", cert.Subject, sum)
}
