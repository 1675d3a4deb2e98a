package framework

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
)

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
	case AuthToken:
		if c.Token == "" {
			errs = append(errs, errors.New("-auth token needs -token"))
		}
	case AuthTokenCommand:
		if c.TokenCommand == "" {
			errs = append(errs, errors.New("-auth token-command needs -token-command"))
		}
	default:
		errs = append(errs, fmt.Errorf("-auth %q: want token-route, token, token-command or none", c.Auth))
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

// configuredToken returns the bearer token of the configured account for an
// Auth mode other than AuthTokenRoute: the static token, a fresh token from
// the command, or "" for AuthNone.
func (c Config) configuredToken(ctx context.Context) (string, error) {
	switch c.Auth {
	case AuthToken:
		return c.Token, nil
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
	return cl, nil
}
