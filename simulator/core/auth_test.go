package core_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/pixsandbox/pixsandbox/fixtures"
	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
)

// certHeader URL-encodes a PEM the way the spec asks (RFC 3986: + as %2B).
func certHeader(pemBytes []byte) string { return pix.EncodeCertHeader(pemBytes) }

func mustRead(tb testing.TB, env *simulatortest.Env, name string) []byte {
	tb.Helper()
	b, err := env.Fixtures.ReadFile(name)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func selfSigned(tb testing.TB, notBefore, notAfter time.Time) []byte {
	tb.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "stranger"}, NotBefore: notBefore, NotAfter: notAfter}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		tb.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func TestSimulator_IssueToken(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{})
	ctx := context.Background()
	a1, a2 := env.Fixtures.Accounts[0], env.Fixtures.Accounts[1]
	cert1 := mustRead(t, env, a1.Certificate)
	cert2 := mustRead(t, env, a2.Certificate)
	good := func() pix.TokenRequest {
		return pix.TokenRequest{HasCertHeader: true, CertHeader: certHeader(cert1), ClientID: a1.ClientID, ClientSecret: a1.ClientSecret}
	}
	upstreamErr, _ := scenarios.Lookup("PUB_AUTH_UPSTREAM_ERROR")
	upstreamDown, _ := scenarios.Lookup("PUB_AUTH_UPSTREAM_UNAVAILABLE")
	rawPlus := strings.ReplaceAll(certHeader(cert1), "%2B", "+")
	plusAsSpace := strings.ReplaceAll(certHeader(cert1), "%2B", "%20")
	if rawPlus == certHeader(cert1) {
		t.Fatal("fixture account-1.pem must contain a + in its base64")
	}

	tests := []struct {
		name string
		req  func() pix.TokenRequest
		sc   scenarios.Scenario
		want *pix.Error
	}{
		{name: "OK", req: good},
		{name: "form-style encoding (space as +) is accepted", req: func() pix.TokenRequest {
			r := good()
			r.CertHeader = url.QueryEscape(string(cert1))
			return r
		}},
		{name: "ErrPubCertHeaderMissing", req: func() pix.TokenRequest { r := good(); r.HasCertHeader, r.CertHeader = false, ""; return r },
			want: &pix.Error{Kind: pix.KindInvalid, Code: pix.CodePubCertHeaderMissing}},
		{name: "ErrPubCertMalformedPEM/garbage", req: func() pix.TokenRequest { r := good(); r.CertHeader = "not-a-pem"; return r },
			want: &pix.Error{Kind: pix.KindInvalid, Code: pix.CodePubCertMalformedPEM}},
		{name: "ErrPubCertMalformedPEM/plus sent as %20", req: func() pix.TokenRequest { r := good(); r.CertHeader = plusAsSpace; return r },
			want: &pix.Error{Kind: pix.KindInvalid, Code: pix.CodePubCertMalformedPEM}},
		{name: "ErrPubCertMalformedPEM/raw plus", req: func() pix.TokenRequest { r := good(); r.CertHeader = rawPlus; return r },
			want: &pix.Error{Kind: pix.KindInvalid, Code: pix.CodePubCertMalformedPEM}},
		{name: "ErrPubCertMalformedPEM/malformed.pem", req: func() pix.TokenRequest {
			r := good()
			r.CertHeader = certHeader(mustRead(t, env, "certs/malformed.pem"))
			return r
		}, want: &pix.Error{Kind: pix.KindInvalid, Code: pix.CodePubCertMalformedPEM}},
		{name: "ErrPubCertMalformedPEM/private key", req: func() pix.TokenRequest {
			r := good()
			r.CertHeader = certHeader(mustRead(t, env, a1.Key))
			return r
		}, want: &pix.Error{Kind: pix.KindInvalid, Code: pix.CodePubCertMalformedPEM}},
		{name: "ErrPubRequestBodyInvalid/clientId not UUID", req: func() pix.TokenRequest { r := good(); r.ClientID = "abc"; return r },
			want: &pix.Error{Kind: pix.KindInvalid, Code: pix.CodePubRequestBodyInvalid}},
		{name: "ErrPubRequestBodyInvalid/clientId UUID v1", req: func() pix.TokenRequest { r := good(); r.ClientID = "6ba7b810-9dad-11d1-80b4-00c04fd430c8"; return r },
			want: &pix.Error{Kind: pix.KindInvalid, Code: pix.CodePubRequestBodyInvalid}},
		{name: "ErrPubRequestBodyInvalid/missing secret", req: func() pix.TokenRequest { r := good(); r.ClientSecret = ""; return r },
			want: &pix.Error{Kind: pix.KindInvalid, Code: pix.CodePubRequestBodyInvalid}},
		{name: "ErrPubRequestBodyInvalid/decoder violation", req: func() pix.TokenRequest {
			r := good()
			r.BodyViolations = []pix.Violation{{Field: "body", Message: "is not valid JSON"}}
			return r
		}, want: &pix.Error{Kind: pix.KindInvalid, Code: pix.CodePubRequestBodyInvalid}},
		{name: "ErrPubAuthUpstreamUnavailable", req: good, sc: upstreamDown, want: &pix.Error{Kind: pix.KindUnavailable, Code: pix.CodePubAuthUpstreamUnavailable}},
		{name: "ErrPubAuthUpstreamError", req: good, sc: upstreamErr, want: &pix.Error{Kind: pix.KindUpstream, Code: pix.CodePubAuthUpstreamError}},
		{name: "ErrPubCertNotYetValid", req: func() pix.TokenRequest {
			r := good()
			r.CertHeader = certHeader(mustRead(t, env, "certs/not-yet-valid.pem"))
			return r
		},
			want: &pix.Error{Kind: pix.KindUnauthorized, Code: pix.CodePubCertNotYetValid}},
		{name: "ErrPubCertExpired", req: func() pix.TokenRequest {
			r := good()
			r.CertHeader = certHeader(mustRead(t, env, "certs/expired.pem"))
			return r
		},
			want: &pix.Error{Kind: pix.KindUnauthorized, Code: pix.CodePubCertExpired}},
		{name: "ErrPubCertNotRegistered/unregistered", req: func() pix.TokenRequest {
			r := good()
			r.CertHeader = certHeader(mustRead(t, env, "certs/unregistered.pem"))
			return r
		},
			want: &pix.Error{Kind: pix.KindUnauthorized, Code: pix.CodePubCertNotRegistered}},
		{name: "ErrPubCertNotRegistered/revoked", req: func() pix.TokenRequest {
			r := good()
			r.CertHeader = certHeader(mustRead(t, env, "certs/revoked.pem"))
			return r
		},
			want: &pix.Error{Kind: pix.KindUnauthorized, Code: pix.CodePubCertNotRegistered}},
		{name: "ErrPubInvalidCredentials/wrong secret", req: func() pix.TokenRequest { r := good(); r.ClientSecret = "wrong"; return r },
			want: &pix.Error{Kind: pix.KindUnauthorized, Code: pix.CodePubInvalidCredentials, Message: "invalid clientId or clientSecret"}},
		{name: "ErrPubInvalidCredentials/unknown clientId", req: func() pix.TokenRequest { r := good(); r.ClientID = "0b6a3a4e-8d0c-4f7e-9a51-2f1f3c5d7e90"; return r },
			want: &pix.Error{Kind: pix.KindUnauthorized, Code: pix.CodePubInvalidCredentials, Message: "invalid clientId or clientSecret"}},
		{name: "ErrPubCertNotAuthorizedForAccount", req: func() pix.TokenRequest { r := good(); r.CertHeader = certHeader(cert2); return r },
			want: &pix.Error{Kind: pix.KindForbidden, Code: pix.CodePubCertNotAuthorizedForAccount}},

		// Gap G-01: the order of the checks. Each case has two faults and must
		// report the earlier one.
		{name: "order/header before body", req: func() pix.TokenRequest { r := good(); r.HasCertHeader = false; r.ClientID = "x"; return r },
			want: &pix.Error{Kind: pix.KindInvalid, Code: pix.CodePubCertHeaderMissing}},
		{name: "order/PEM before body", req: func() pix.TokenRequest { r := good(); r.CertHeader = "x"; r.ClientID = "x"; return r },
			want: &pix.Error{Kind: pix.KindInvalid, Code: pix.CodePubCertMalformedPEM}},
		{name: "order/body before scenario", req: func() pix.TokenRequest { r := good(); r.ClientSecret = ""; return r }, sc: upstreamDown,
			want: &pix.Error{Kind: pix.KindInvalid, Code: pix.CodePubRequestBodyInvalid}},
		{name: "order/scenario before dates", req: func() pix.TokenRequest {
			r := good()
			r.CertHeader = certHeader(mustRead(t, env, "certs/expired.pem"))
			return r
		}, sc: upstreamErr,
			want: &pix.Error{Kind: pix.KindUpstream, Code: pix.CodePubAuthUpstreamError}},
		{name: "order/dates before registration", req: func() pix.TokenRequest {
			r := good()
			r.CertHeader = certHeader(selfSigned(t, time.Date(2010, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2011, 1, 1, 0, 0, 0, 0, time.UTC)))
			return r
		}, want: &pix.Error{Kind: pix.KindUnauthorized, Code: pix.CodePubCertExpired}},
		{name: "order/registration before credentials", req: func() pix.TokenRequest {
			r := good()
			r.CertHeader = certHeader(mustRead(t, env, "certs/unregistered.pem"))
			r.ClientSecret = "wrong"
			return r
		}, want: &pix.Error{Kind: pix.KindUnauthorized, Code: pix.CodePubCertNotRegistered}},
		{name: "order/credentials before linkage", req: func() pix.TokenRequest {
			r := good()
			r.CertHeader = certHeader(cert2)
			r.ClientSecret = "wrong"
			return r
		},
			want: &pix.Error{Kind: pix.KindUnauthorized, Code: pix.CodePubInvalidCredentials}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok, err := env.Sim.IssueToken(ctx, tt.req(), tt.sc)
			if tt.want != nil {
				if !pix.Match(tt.want, err) {
					t.Fatalf("IssueToken error = %#v, want %s", err, tt.want.Code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tok.TokenType != "Bearer" || tok.ExpiresIn != 1800 || tok.ExpiresAt.Sub(tok.IssuedAt) != 1800*time.Second {
				t.Fatalf("token = %+v", tok)
			}
			id, err := env.Sim.Authenticate(ctx, tok.AccessToken)
			if err != nil || id != pix.AccountID(a1.ID) {
				t.Fatalf("Authenticate = %v, %v", id, err)
			}
		})
	}
}

func TestSimulator_Authenticate(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{})
	ctx := context.Background()
	a1 := env.Fixtures.Accounts[0]
	tok, err := env.Sim.IssueToken(ctx, pix.TokenRequest{HasCertHeader: true, CertHeader: certHeader(mustRead(t, env, a1.Certificate)),
		ClientID: a1.ClientID, ClientSecret: a1.ClientSecret}, scenarios.None)
	if err != nil {
		t.Fatal(err)
	}
	unauthorized := &pix.Error{Kind: pix.KindUnauthorized, Code: pix.CodeUnauthorized}

	// Forged tokens: same claims, another key; alg none; garbage.
	parts := strings.Split(tok.AccessToken, ".")
	var claims jwt.MapClaims
	if _, _, err := jwt.NewParser().ParseUnverified(tok.AccessToken, &claims); err != nil {
		t.Fatal(err)
	}
	otherKey, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte("another key"))
	none, _ := jwt.NewWithClaims(jwt.SigningMethodNone, claims).SignedString(jwt.UnsafeAllowNoneSignatureType)
	for name, bad := range map[string]string{
		"empty": "", "garbage": "abc", "other key": otherKey, "alg none": none,
		"tampered payload": parts[0] + "." + strings.TrimRight(parts[1], "A") + "B." + parts[2],
	} {
		if _, err := env.Sim.Authenticate(ctx, bad); !pix.Match(unauthorized, err) {
			t.Errorf("%s: Authenticate error = %v, want 401", name, err)
		}
	}

	// Expiry on the simulation clock: valid until iat+1800, not at or after it.
	if _, err := env.Sim.AdvanceClock(ctx, 1799*time.Second, pix.ClockWaitWebhooks); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Sim.Authenticate(ctx, tok.AccessToken); err != nil {
		t.Fatalf("after 1799 s: %v", err)
	}
	// The token is now among the verified ones: the same window applies to it.
	if _, err := env.Sim.AdvanceClock(ctx, time.Second, pix.ClockWaitWebhooks); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Sim.Authenticate(ctx, tok.AccessToken); !pix.Match(&pix.Error{Kind: pix.KindUnauthorized, Message: "token expired"}, err) {
		t.Fatalf("at 1800 s: err = %v, want token expired", err)
	}
	// A forged token is never taken from the verified ones.
	if _, err := env.Sim.Authenticate(ctx, otherKey); !pix.Match(unauthorized, err) {
		t.Fatalf("other key after the cache filled: %v", err)
	}
}

func TestSimulator_CreateAccount(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{})
	ctx := context.Background()
	acct, err := env.Sim.CreateAccount(ctx, pix.NewAccount{Balance: 123456})
	if err != nil {
		t.Fatal(err)
	}
	if acct.Account.ID < 1000 || !pix.IsUUIDv4(acct.ClientID) || len(acct.ClientSecret) < 32 || !pix.ValidCPF(acct.Account.Document) {
		t.Fatalf("created account = %+v", acct)
	}
	req := pix.TokenRequest{HasCertHeader: true, CertHeader: certHeader(acct.Certificate.CertificatePEM), ClientID: acct.ClientID, ClientSecret: acct.ClientSecret}
	tok, err := env.Sim.IssueToken(ctx, req, scenarios.None)
	if err != nil {
		t.Fatal(err)
	}
	if tok.AccountID != acct.Account.ID {
		t.Fatalf("token account = %d, want %d", tok.AccountID, acct.Account.ID)
	}
	b, err := env.Sim.AccountBalance(ctx, acct.Account.ID)
	if err != nil || b.Available != 123456 || b.Blocked != 0 {
		t.Fatalf("balance = %+v, %v", b, err)
	}

	// Certificates with chosen dates and revocation, registered to the account.
	now := env.Sim.Clock().Now()
	for _, tc := range []struct {
		name string
		in   pix.NewCertificate
		want pix.Code
	}{
		{name: "expired", in: pix.NewCertificate{NotBefore: now.Add(-48 * time.Hour), NotAfter: now.Add(-time.Hour)}, want: pix.CodePubCertExpired},
		{name: "not yet valid", in: pix.NewCertificate{NotBefore: now.Add(time.Hour), NotAfter: now.Add(48 * time.Hour)}, want: pix.CodePubCertNotYetValid},
		{name: "revoked", in: pix.NewCertificate{Revoked: true}, want: pix.CodePubCertNotRegistered},
		{name: "second valid certificate", in: pix.NewCertificate{}},
	} {
		c, err := env.Sim.AddCertificate(ctx, acct.Account.ID, tc.in)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		r := req
		r.CertHeader = certHeader(c.CertificatePEM)
		_, err = env.Sim.IssueToken(ctx, r, scenarios.None)
		if pix.ErrorCode(err) != tc.want {
			t.Errorf("%s: IssueToken code = %q, want %q (err %v)", tc.name, pix.ErrorCode(err), tc.want, err)
		}
	}
	if _, err := env.Sim.AddCertificate(ctx, 999999, pix.NewCertificate{}); !pix.Match(&pix.Error{Kind: pix.KindNotFound}, err) {
		t.Fatalf("unknown account: err = %v", err)
	}
	if _, err := env.Sim.CreateAccount(ctx, pix.NewAccount{Document: "12345678900"}); !pix.Match(&pix.Error{Kind: pix.KindInvalid}, err) {
		t.Fatalf("bad document: err = %v", err)
	}

	rep, err := env.Sim.CheckInvariants(ctx)
	if err != nil || len(rep.Violations) > 0 {
		t.Fatalf("invariants: %+v, %v", rep, err)
	}
	var fixtureTotal pix.Cents
	for _, a := range env.Fixtures.Accounts {
		c, _ := pix.ParseDecimal2(a.Balance)
		fixtureTotal += c
	}
	if rep.Inside != fixtureTotal+123456 || rep.World != -rep.Inside {
		t.Fatalf("inside = %s, world = %s; want %s", rep.Inside, rep.World, fixtureTotal+123456)
	}
}

func TestSimulator_ClockMoves(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{})
	ctx := context.Background()
	if got := env.Sim.ClockNow(); !got.Now.Equal(fixtures.Epoch) || got.Mode != "virtual" {
		t.Fatalf("clock = %+v, want virtual at the epoch", got)
	}
	j, err := env.Sim.ScheduleMarker(ctx, 10*time.Second, "ten")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := env.Sim.AdvanceClock(ctx, 9*time.Second, pix.ClockWaitWebhooks)
	if err != nil || rep.JobsRun != 0 {
		t.Fatalf("advance 9 s = %+v, %v", rep, err)
	}
	if got, _ := env.Sim.Job(ctx, j.ID); got.Status != pix.JobScheduled || got.Note != "ten" {
		t.Fatalf("after 9 s job = %+v", got)
	}
	rep, err = env.Sim.AdvanceClock(ctx, time.Second, pix.ClockWaitWebhooks)
	if err != nil || rep.JobsRun != 1 {
		t.Fatalf("advance 1 s = %+v, %v", rep, err)
	}
	got, _ := env.Sim.Job(ctx, j.ID)
	if got.Status != pix.JobDone || !got.RanAt.Equal(fixtures.Epoch.Add(10*time.Second)) {
		t.Fatalf("after 10 s job = %+v", got)
	}
	if _, err := env.Sim.SetClock(ctx, fixtures.Epoch, pix.ClockWaitWebhooks); !pix.Match(&pix.Error{Kind: pix.KindInvalid}, err) {
		t.Fatalf("backwards SetClock err = %v", err)
	}
	target := fixtures.Epoch.Add(72 * time.Hour)
	if rep, err := env.Sim.SetClock(ctx, target, pix.ClockWaitWebhooks); err != nil || !rep.Now.Equal(target) {
		t.Fatalf("SetClock = %+v, %v", rep, err)
	}
	if _, err := env.Sim.AdvanceClock(ctx, -time.Second, pix.ClockWaitWebhooks); !pix.Match(&pix.Error{Kind: pix.KindInvalid}, err) {
		t.Fatalf("negative advance err = %v", err)
	}
	if _, err := env.Sim.Job(ctx, "nope"); !pix.Match(&pix.Error{Kind: pix.KindNotFound}, err) {
		t.Fatalf("unknown job err = %v", err)
	}
}

// The clock never moves past pix.MaxClockTime, whichever caller asks: a time
// that far could not be stored.
func TestSimulator_ClockLimit(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{})
	ctx := context.Background()
	if _, err := env.Sim.SetClock(ctx, pix.MaxClockTime.Add(time.Second), pix.ClockWaitWebhooks); !pix.Match(&pix.Error{Kind: pix.KindInvalid}, err) {
		t.Fatalf("SetClock past the limit: %v", err)
	}
	if _, err := env.Sim.SetClock(ctx, pix.MaxClockTime, pix.ClockWaitWebhooks); err != nil {
		t.Fatalf("SetClock to the limit: %v", err)
	}
	if _, err := env.Sim.AdvanceClock(ctx, time.Second, pix.ClockWaitWebhooks); !pix.Match(&pix.Error{Kind: pix.KindInvalid}, err) {
		t.Fatalf("AdvanceClock past the limit: %v", err)
	}
}
