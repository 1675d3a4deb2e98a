package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"

	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/clock"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

const (
	metaSigningKey = "auth/signing-key"
	tokenIssuer    = "pixsandbox"
	timeFormat     = time.RFC3339
)

// Service issues and verifies access tokens on the simulation clock. It
// remembers verified tokens and decoded certificate headers (tokenCache,
// certCache); Forget drops the tokens when the accounts they name go.
type Service struct {
	store      storage.Store
	clock      clock.Clock
	signingKey []byte
	workspace  string // the ws claim of its tokens ("" in the default workspace)
	tokens     tokenCache
	certs      certCache
}

// Open returns the Service over store, with the signing key kept in the
// store (created on the first start, so tokens survive a restart). The
// tokens of a workspace other than the default carry its id in the claim
// "ws" (TokenWorkspace), so a server of many workspaces knows which one
// verifies a token without a header; each workspace has its own key.
func Open(ctx context.Context, store storage.Store, c clock.Clock, workspace string) (*Service, error) {
	var key []byte
	err := store.Update(ctx, func(tx storage.Tx) (err error) {
		key, err = SigningKey(tx)
		return err
	})
	if err != nil {
		return nil, err
	}
	return New(store, c, key, workspace), nil
}

// New returns the Service over store with the signing key key (SigningKey,
// read in a transaction of the caller's).
func New(store storage.Store, c clock.Clock, key []byte, workspace string) *Service {
	return &Service{store: store, clock: c, signingKey: key, workspace: workspace}
}

// TokenWorkspace returns the workspace a token names in its "ws" claim,
// without verifying it ("" for the default workspace, or for anything that
// is not a JWT): the workspace's own Service verifies it.
func TokenWorkspace(token string) string {
	var claims tokenClaims
	if _, _, err := jwt.NewParser().ParseUnverified(token, &claims); err != nil {
		return ""
	}
	return claims.Workspace
}

// Forget forgets every verified token (after a reset dropped the accounts).
func (a *Service) Forget() { a.tokens.reset() }

// KeepSigningKey writes the signing key into tx again (after a reset dropped
// it), so tokens already issued stay valid.
func (a *Service) KeepSigningKey(tx storage.MetaTx) error {
	return tx.PutMeta(metaSigningKey, a.signingKey)
}

// tokenClaims are the claims of an access token.
type tokenClaims struct {
	ClientID  string `json:"client_id"`
	Workspace string `json:"ws,omitempty"`
	jwt.RegisteredClaims
}

// SigningKey returns the HMAC key that signs access tokens, creating it in tx
// on the first start. It lives in the data dir, so tokens survive a restart.
func SigningKey(tx storage.MetaTx) ([]byte, error) {
	var key []byte
	ok, err := tx.Meta(metaSigningKey, &key)
	if err != nil || ok {
		return key, err
	}
	key = make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	return key, tx.PutMeta(metaSigningKey, key)
}

// IssueToken checks a token request and issues an access token.
//
// Spec "Authentication" lists the checks but not their order (rule 7: not shown).
// Gap G-01 (docs/spec-gaps.md) fixes it here, cheapest and most local first, so a
// request with several faults reports the first in this list:
//
//  1. X-SSL-Client-Cert present            PUB_CERT_HEADER_MISSING            400
//  2. the header decodes to a certificate  PUB_CERT_MALFORMED_PEM             400
//  3. body schema (clientId UUID v4, …)    PUB_REQUEST_BODY_INVALID           400
//  4. X-Sandbox-Scenario upstream faults   PUB_AUTH_UPSTREAM_UNAVAILABLE/ERROR 503/502
//  5. notBefore not in the future          PUB_CERT_NOT_YET_VALID             401
//  6. notAfter not passed                  PUB_CERT_EXPIRED                   401
//  7. fingerprint registered, not revoked  PUB_CERT_NOT_REGISTERED            401
//  8. clientId known and secret right      PUB_INVALID_CREDENTIALS            401
//  9. certificate linked to that account   PUB_CERT_NOT_AUTHORIZED_FOR_ACCOUNT 403
//
// Validity dates are read against the simulation clock. Unknown clientId and wrong
// secret give the same error and take the same work (rule 5).
func (a *Service) IssueToken(ctx context.Context, req pix.TokenRequest, sc scenarios.Scenario) (pix.Token, error) {
	now := a.clock.Now()
	if !req.HasCertHeader {
		return pix.Token{}, pix.Errorf(pix.KindInvalid, pix.CodePubCertHeaderMissing, "header X-SSL-Client-Cert is required").
			WithHint("Send the client certificate as URL-encoded PEM in the X-SSL-Client-Cert header.")
	}
	dc, err := a.certs.decode(req.CertHeader)
	if err != nil {
		return pix.Token{}, err
	}
	cert := dc.cert
	if vs := append(req.BodyViolations, req.Validate()...); len(vs) > 0 {
		return pix.Token{}, pix.Invalid(pix.CodePubRequestBodyInvalid, vs...).
			WithHint(`Send {"clientId": "<UUID v4>", "clientSecret": "<secret>"} as application/json.`)
	}
	if err := sc.RejectAtRequest(scenarios.OpAuthToken); err != nil {
		return pix.Token{}, err
	}
	if now.Before(cert.NotBefore) {
		return pix.Token{}, pix.Errorf(pix.KindUnauthorized, pix.CodePubCertNotYetValid,
			"client certificate is not valid before %s", cert.NotBefore.UTC().Format(timeFormat)).
			WithHint("Use a certificate whose notBefore has passed.")
	}
	if now.After(cert.NotAfter) {
		return pix.Token{}, pix.Errorf(pix.KindUnauthorized, pix.CodePubCertExpired,
			"client certificate expired at %s", cert.NotAfter.UTC().Format(timeFormat)).
			WithHint("Renew the certificate and register the new one.")
	}
	fp := dc.fingerprint
	secretHash := sha256.Sum256([]byte(req.ClientSecret))
	var accountID pix.AccountID
	err = a.store.View(ctx, func(tx storage.Tx) error {
		reg, err := tx.Certificate(fp)
		if errors.Is(err, storage.ErrNotFound) || (err == nil && reg.Revoked) {
			return pix.Errorf(pix.KindUnauthorized, pix.CodePubCertNotRegistered,
				"client certificate with SHA-256 fingerprint %s is not registered", fp).
				WithHint("Register the certificate for the account before requesting tokens.")
		}
		if err != nil {
			return err
		}
		cred, err := tx.Credential(req.ClientID)
		stored := unknownSecretHash
		if err == nil {
			stored = cred.SecretHash
		} else if !errors.Is(err, storage.ErrNotFound) {
			return err
		}
		// Constant-time and the same work whether or not the clientId exists.
		if subtle.ConstantTimeCompare(secretHash[:], stored[:]) != 1 || err != nil {
			return pix.Errorf(pix.KindUnauthorized, pix.CodePubInvalidCredentials, "invalid clientId or clientSecret").
				WithHint("Check the clientId and clientSecret issued for the account.")
		}
		if reg.AccountID != cred.AccountID {
			return pix.Errorf(pix.KindForbidden, pix.CodePubCertNotAuthorizedForAccount,
				"client certificate is not linked to the account of this clientId").
				WithHint("Use the certificate registered for this clientId's account.")
		}
		accountID = cred.AccountID
		return nil
	})
	if err != nil {
		return pix.Token{}, err
	}
	return a.Sign(accountID, req.ClientID, now)
}

// unknownSecretHash is compared against when the clientId does not exist, so that
// path does the same work as a wrong secret.
var unknownSecretHash = sha256.Sum256([]byte("pixsandbox: no such client"))

// Sign issues an access token for account id and clientID at now.
func (a *Service) Sign(id pix.AccountID, clientID string, now time.Time) (pix.Token, error) {
	iat := now.Truncate(1e9) // JWT NumericDate has whole seconds
	exp := iat.Add(pix.TokenLifetime)
	claims := tokenClaims{
		ClientID: strings.ToLower(clientID), Workspace: a.workspace,
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    tokenIssuer,
			Subject:   strconv.FormatInt(int64(id), 10),
			ID:        uuid.NewString(),
			IssuedAt:  jwt.NewNumericDate(iat),
			ExpiresAt: jwt.NewNumericDate(exp),
		},
	}
	signed, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(a.signingKey)
	if err != nil {
		return pix.Token{}, err
	}
	return pix.Token{AccessToken: signed, TokenType: "Bearer", ExpiresIn: int(pix.TokenLifetime.Seconds()),
		IssuedAt: iat, ExpiresAt: exp, AccountID: id}, nil
}

// expiryLeeway is how long past its exp a token is still accepted: none. A
// value so that a build with the faults tag can bend it (faults.go).
var expiryLeeway time.Duration

// Authenticate verifies a bearer token and returns its account. The algorithm is
// pinned to HS256, expiry is required and read on the simulation clock with no
// leeway, and the account must still exist. Every failure is KindUnauthorized
// (spec "Authentication", rule 6).
func (a *Service) Authenticate(ctx context.Context, token string) (pix.AccountID, error) {
	unauthorized := func(msg string) error {
		return pix.Errorf(pix.KindUnauthorized, pix.CodeUnauthorized, "%s", msg)
	}
	if token == "" {
		return 0, unauthorized("missing bearer token")
	}
	if v, ok := a.tokens.get(token); ok {
		// The same time rules as the full check below: iat <= now < exp.
		switch now := a.clock.Now(); {
		case !now.Before(v.exp.Add(expiryLeeway)):
			return 0, unauthorized("token expired")
		case !now.Before(v.iat):
			return v.account, nil
		}
	}
	gen := a.tokens.generation()
	var claims tokenClaims
	_, err := jwt.ParseWithClaims(token, &claims, func(*jwt.Token) (any, error) { return a.signingKey, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithIssuer(tokenIssuer),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithLeeway(expiryLeeway),
		jwt.WithTimeFunc(a.clock.Now),
	)
	switch {
	case errors.Is(err, jwt.ErrTokenExpired):
		return 0, unauthorized("token expired")
	case err != nil, claims.Workspace != a.workspace:
		return 0, unauthorized("invalid token")
	}
	n, err := strconv.ParseInt(claims.Subject, 10, 64)
	if err != nil {
		return 0, unauthorized("invalid token")
	}
	id := pix.AccountID(n)
	err = a.store.View(ctx, func(tx storage.Tx) error {
		_, err := tx.Account(id)
		return err
	})
	if errors.Is(err, storage.ErrNotFound) {
		return 0, unauthorized("the token's account no longer exists")
	}
	if err == nil && claims.IssuedAt != nil && claims.ExpiresAt != nil {
		a.tokens.putIf(gen, token, verifiedToken{account: id, iat: claims.IssuedAt.Time, exp: claims.ExpiresAt.Time})
	}
	return id, err
}
