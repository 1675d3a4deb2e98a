package conformance

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/pixsandbox/pixsandbox/conformance/framework"
	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
	"github.com/pixsandbox/pixsandbox/conformance/framework/codec"
	"github.com/pixsandbox/pixsandbox/conformance/framework/sandbox"
)

// validitySlack is how far before and after the target's now a generated
// certificate is valid: wide, so that a target whose clock differs from the
// suite's (a sandbox with a virtual clock reached with -control-plane=off)
// still sees it as valid and only the fault under test remains.
const validitySlack = 3 * 365 * 24 * time.Hour

// garbageCert is a header value that no decoding turns into a certificate.
const garbageCert = "this-is-not-a-certificate"

var _ = ginkgo.Describe("POST /api/auth/token", framework.Res("auth"), framework.FamilyStd, func() {
	f := framework.New("auth")

	// tokenError sends req and checks the documented status and code (the
	// token endpoint's error shape is checked on its own, by
	// errors/token-shape).
	tokenError := func(ctx ginkgo.SpecContext, req apiclient.TokenRequest, status int, code string) *apiclient.Response {
		ginkgo.GinkgoHelper()
		r := f.RequestToken(ctx, req)
		gomega.Expect(r).To(framework.HaveStatus(status))
		gomega.Expect(r).To(framework.HaveErrorCode(code))
		return r
	}

	// withCert returns the spec's valid token request carrying another
	// certificate header.
	withCert := func(header string) apiclient.TokenRequest {
		req := f.TokenRequest()
		req.CertHeader = &header
		return req
	}

	// plusCert returns a certificate whose base64 contains '+': the spec's own
	// when it has one, else a freshly generated one (a certificate that cannot
	// be parsed fails before registration is looked at).
	plusCert := func(ctx ginkgo.SpecContext) string {
		ginkgo.GinkgoHelper()
		if codec.CertBase64HasPlus(f.Identity.CertPEM) {
			return f.Identity.CertPEM
		}
		now := f.Now(ctx)
		c, err := codec.SelfSignedCertWithPlus(now.Add(-validitySlack), now.Add(validitySlack))
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		return c
	}

	/*
		Check: auth/issue
		Spec: "Endpoints > POST /api/auth/token"; "Resources > Access token"
		Description: A request with a registered, linked certificate in X-SSL-Client-Cert and the
		account's clientId and clientSecret MUST be answered 201 with token_type "Bearer" and
		expires_in 1800.
	*/
	framework.SpecIt("issues a token for a valid request with 201, token_type Bearer and expires_in 1800", func(ctx ginkgo.SpecContext) {
		r := f.RequestToken(ctx, f.TokenRequest())
		gomega.Expect(r).To(framework.HaveStatus(http.StatusCreated))
		gomega.Expect(r).To(framework.HaveJSONField("token_type", "Bearer"))
		gomega.Expect(r).To(framework.HaveJSONNumber("expires_in"))
		gomega.Expect(r).To(framework.HaveJSONField("expires_in", 1800))
		gomega.Expect(r).To(framework.HaveJSONField("access_token", nonEmptyString()))
	})

	/*
		Check: auth/token-is-jwt
		Spec: "Resources > Access token" (access_token is a JWT); "Authentication", rule 2 (valid 1800 seconds)
		Description: access_token MUST be a compact JWT: three base64url parts, a header whose alg is
		not "none", and a payload with exp; when the payload has iat, exp - iat MUST be 1800.
	*/
	framework.SpecIt("issues access_token as a signed JWT with exp, 1800 s after iat", func(ctx ginkgo.SpecContext) {
		jwt, err := codec.ParseJWT(f.Token(ctx))
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		alg, _ := jwt.Header["alg"].(string)
		gomega.Expect(alg).NotTo(gomega.BeEmpty(), "JWT header alg")
		gomega.Expect(strings.EqualFold(alg, "none")).To(gomega.BeFalse(), "JWT header alg is %q", alg)
		exp, ok := jwt.Payload["exp"].(json.Number)
		gomega.Expect(ok).To(gomega.BeTrue(), "JWT payload exp is %v, want a number", jwt.Payload["exp"])
		expS, err := exp.Int64()
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "exp")
		if iatV, has := jwt.Payload["iat"]; has {
			iat, ok := iatV.(json.Number)
			gomega.Expect(ok).To(gomega.BeTrue(), "JWT payload iat is %v, want a number", iatV)
			iatS, err := iat.Int64()
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), "iat")
			gomega.Expect(expS-iatS).To(gomega.Equal(int64(1800)), "exp - iat")
		}
	})

	/*
		Check: auth/token-authorizes
		Spec: "Endpoints" (protected routes take Authorization: Bearer <ACCESS_TOKEN>); "Authentication", rule 1
		Description: A freshly issued token MUST be accepted by GET /accounts/balances (2xx).
	*/
	framework.SpecIt("issues a token that GET /accounts/balances accepts", func(ctx ginkgo.SpecContext) {
		f.Needs(ctx, "GET /accounts/balances")
		r := f.Do(ctx, http.MethodGet, "/accounts/balances", f.Token(ctx), nil, nil)
		gomega.Expect(r).To(framework.HaveSuccessStatus())
	})

	/*
		Check: auth/header-missing
		Spec: "Errors > Token endpoint codes", PUB_CERT_HEADER_MISSING
		Description: A token request without X-SSL-Client-Cert MUST be answered 400 with code
		PUB_CERT_HEADER_MISSING.
	*/
	framework.SpecIt("rejects a request without X-SSL-Client-Cert with 400 PUB_CERT_HEADER_MISSING", func(ctx ginkgo.SpecContext) {
		req := f.TokenRequest()
		req.CertHeader = nil
		tokenError(ctx, req, http.StatusBadRequest, "PUB_CERT_HEADER_MISSING")
	})

	/*
		Check: auth/malformed-pem-garbage
		Spec: "Errors > Token endpoint codes", PUB_CERT_MALFORMED_PEM
		Description: A token request whose X-SSL-Client-Cert is not a PEM certificate MUST be answered
		400 with code PUB_CERT_MALFORMED_PEM.
	*/
	framework.SpecIt("rejects a header that is not a PEM certificate with 400 PUB_CERT_MALFORMED_PEM", func(ctx ginkgo.SpecContext) {
		tokenError(ctx, withCert(garbageCert), http.StatusBadRequest, "PUB_CERT_MALFORMED_PEM")
	})

	/*
		Check: auth/malformed-pem-plus-as-space
		Spec: "Authentication", rule 3 (a literal + must be sent as %2B, not %20); "Errors > Token endpoint codes", PUB_CERT_MALFORMED_PEM
		Description: A certificate whose base64 '+' characters are sent as %20 MUST be answered 400
		with code PUB_CERT_MALFORMED_PEM.
	*/
	framework.SpecIt("rejects a certificate with '+' encoded as %20 with 400 PUB_CERT_MALFORMED_PEM", func(ctx ginkgo.SpecContext) {
		tokenError(ctx, withCert(apiclient.BadPlusAsSpace(plusCert(ctx))), http.StatusBadRequest, "PUB_CERT_MALFORMED_PEM")
	})

	/*
		Check: auth/malformed-pem-raw-plus
		Spec: "Authentication", rule 3 (a literal + must be encoded as %2B); "Errors > Token endpoint codes", PUB_CERT_MALFORMED_PEM
		Description: A certificate whose base64 '+' characters are left unencoded (and so URL-decode
		to spaces) MUST be answered 400 with code PUB_CERT_MALFORMED_PEM.
	*/
	framework.SpecIt("rejects a certificate with '+' left unencoded with 400 PUB_CERT_MALFORMED_PEM", func(ctx ginkgo.SpecContext) {
		tokenError(ctx, withCert(apiclient.RawPlus(plusCert(ctx))), http.StatusBadRequest, "PUB_CERT_MALFORMED_PEM")
	})

	/*
		Check: auth/body-invalid
		Spec: "Endpoints > POST /api/auth/token" (clientId string UUID v4 required, clientSecret string required); "Errors > Token endpoint codes", PUB_REQUEST_BODY_INVALID
		Description: A token request with a valid certificate whose body violates the schema (a
		missing field, a wrong type, a clientId that is not a UUID v4, a body that is not JSON) MUST
		be answered 400 with code PUB_REQUEST_BODY_INVALID, with
		details.violations present ("Errors > Shapes", item 1).
	*/
	ginkgo.DescribeTable("rejects a body that violates the schema with 400 PUB_REQUEST_BODY_INVALID",
		func(ctx ginkgo.SpecContext, body func(id framework.Identity) string) {
			req := f.TokenRequest()
			req.Body = []byte(body(f.Identity))
			r := tokenError(ctx, req, http.StatusBadRequest, "PUB_REQUEST_BODY_INVALID")
			gomega.Expect(r).To(framework.HaveJSONField("details", gomega.HaveKey("violations")), "details holds violations for body errors")
		},
		ginkgo.Entry("without clientSecret", framework.Spec, func(id framework.Identity) string {
			return `{"clientId":` + quote(id.ClientID) + `}`
		}),
		ginkgo.Entry("without clientId", framework.Spec, func(id framework.Identity) string {
			return `{"clientSecret":` + quote(id.ClientSecret) + `}`
		}),
		ginkgo.Entry("with a clientId that is not a UUID", framework.Spec, func(id framework.Identity) string {
			return `{"clientId":"not-a-uuid","clientSecret":` + quote(id.ClientSecret) + `}`
		}),
		ginkgo.Entry("with a clientId that is a UUID v1", framework.Spec, func(id framework.Identity) string {
			return `{"clientId":"6ba7b810-9dad-11d1-80b4-00c04fd430c8","clientSecret":` + quote(id.ClientSecret) + `}`
		}),
		ginkgo.Entry("with a body that is not JSON", framework.Spec, func(framework.Identity) string {
			return `clientId=x&clientSecret=y`
		}),
		ginkgo.Entry("with a numeric clientId", framework.Spec, func(id framework.Identity) string {
			return `{"clientId":123,"clientSecret":` + quote(id.ClientSecret) + `}`
		}),
	)

	/*
		Check: auth/body-violations-shape
		Gap G-13: structure of details.violations is "not shown" (docs/spec-gaps.md); the sandbox lists [{field, message}]
		Description: A token request without clientSecret MUST be answered with details.violations
		as an array of objects with string field and message, one of them naming clientSecret.
	*/
	framework.SandboxChoiceIt("lists body violations as objects with field and message", func(ctx ginkgo.SpecContext) {
		req := f.TokenRequest()
		req.Body = []byte(`{"clientId":` + quote(f.Identity.ClientID) + `}`)
		r := tokenError(ctx, req, http.StatusBadRequest, "PUB_REQUEST_BODY_INVALID")
		gomega.Expect(r).To(framework.HaveJSONField("details.violations", gomega.And(
			gomega.Not(gomega.BeEmpty()),
			gomega.HaveEach(gomega.And(
				gomega.HaveKeyWithValue("field", gomega.BeAssignableToTypeOf("")),
				gomega.HaveKeyWithValue("message", gomega.BeAssignableToTypeOf("")),
			)),
			gomega.ContainElement(gomega.HaveKeyWithValue("field", gomega.ContainSubstring("clientSecret"))),
		)))
	})

	/*
		Check: auth/cert-not-registered
		Spec: "Authentication", rule 4 (its SHA-256 fingerprint is registered); "Errors > Token endpoint codes", PUB_CERT_NOT_REGISTERED
		Description: A well-formed, currently valid certificate that was never registered, sent with
		valid credentials, MUST be answered 401 with code PUB_CERT_NOT_REGISTERED.
	*/
	framework.SpecIt("rejects an unregistered certificate with 401 PUB_CERT_NOT_REGISTERED", func(ctx ginkgo.SpecContext) {
		now := f.Now(ctx)
		c, _, err := codec.SelfSignedCert(now.Add(-validitySlack), now.Add(validitySlack))
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		tokenError(ctx, withCert(apiclient.EncodeCertHeader(c)), http.StatusUnauthorized, "PUB_CERT_NOT_REGISTERED")
	})

	/*
		Check: auth/invalid-credentials
		Spec: "Authentication", rule 5 (unknown clientId and wrong clientSecret give the same error); "Errors > Token endpoint codes", PUB_INVALID_CREDENTIALS
		Description: With a registered, linked certificate, a wrong clientSecret and an unknown
		(random UUID v4) clientId MUST each be answered 401 with code PUB_INVALID_CREDENTIALS, and the two answers MUST have the same status, code and message.
	*/
	framework.SpecIt("answers a wrong secret and an unknown clientId alike with 401 PUB_INVALID_CREDENTIALS", func(ctx ginkgo.SpecContext) {
		wrongSecret := f.TokenRequest()
		wrongSecret.Body = apiclient.TokenBody(f.Identity.ClientID, f.UniqueID("wrong-secret-"))
		a := tokenError(ctx, wrongSecret, http.StatusUnauthorized, "PUB_INVALID_CREDENTIALS")

		unknownClient := f.TokenRequest()
		unknownClient.Body = apiclient.TokenBody(framework.UUIDv4(), f.Identity.ClientSecret)
		b := tokenError(ctx, unknownClient, http.StatusUnauthorized, "PUB_INVALID_CREDENTIALS")

		gomega.Expect(b.Status).To(gomega.Equal(a.Status), "status")
		gomega.Expect(stringField(b, "code")).To(gomega.Equal(stringField(a, "code")), "code")
		gomega.Expect(stringField(b, "message")).To(gomega.Equal(stringField(a, "message")), "message")
	})

	/*
		Check: auth/cert-expired
		Spec: "Authentication", rule 4 (notAfter not passed); "Errors > Token endpoint codes", PUB_CERT_EXPIRED
		Sandbox: POST /_sandbox/accounts/{id}/certificates with past validity
		Description: A certificate registered and linked to the account whose notAfter has passed on
		the simulation clock MUST be answered 401 with code PUB_CERT_EXPIRED.
	*/
	framework.SandboxIt("rejects an expired certificate with 401 PUB_CERT_EXPIRED", func(ctx ginkgo.SpecContext) {
		clk, err := f.Sandbox.Clock(ctx)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		c, err := f.Sandbox.AddCertificate(ctx, f.Identity.ID, sandbox.CertificateOptions{
			NotBefore: clk.Now.Add(-48 * time.Hour),
			NotAfter:  clk.Now.Add(-24 * time.Hour),
		})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		tokenError(ctx, withCert(apiclient.EncodeCertHeader(c.Certificate)), http.StatusUnauthorized, "PUB_CERT_EXPIRED")
	})

	/*
		Check: auth/cert-not-yet-valid
		Spec: "Authentication", rule 4 (notBefore not in the future); "Errors > Token endpoint codes", PUB_CERT_NOT_YET_VALID
		Sandbox: POST /_sandbox/accounts/{id}/certificates with future validity
		Description: A certificate registered and linked to the account whose notBefore is in the
		future of the simulation clock MUST be answered 401 with code PUB_CERT_NOT_YET_VALID.
	*/
	framework.SandboxIt("rejects a certificate not yet valid with 401 PUB_CERT_NOT_YET_VALID", func(ctx ginkgo.SpecContext) {
		clk, err := f.Sandbox.Clock(ctx)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		c, err := f.Sandbox.AddCertificate(ctx, f.Identity.ID, sandbox.CertificateOptions{
			NotBefore: clk.Now.Add(24 * time.Hour),
			NotAfter:  clk.Now.Add(48 * time.Hour),
		})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		tokenError(ctx, withCert(apiclient.EncodeCertHeader(c.Certificate)), http.StatusUnauthorized, "PUB_CERT_NOT_YET_VALID")
	})

	/*
		Check: auth/cert-revoked
		Spec: "Errors > Token endpoint codes", PUB_CERT_NOT_REGISTERED ("revoked certificates currently use this code"); "Versioning"
		Sandbox: POST /_sandbox/accounts/{id}/certificates {"revoked":true}
		Description: A revoked certificate of the account MUST be answered 401 with code
		PUB_CERT_NOT_REGISTERED.
	*/
	framework.SandboxIt("rejects a revoked certificate with 401 PUB_CERT_NOT_REGISTERED", func(ctx ginkgo.SpecContext) {
		c, err := f.Sandbox.AddCertificate(ctx, f.Identity.ID, sandbox.CertificateOptions{Revoked: true})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		tokenError(ctx, withCert(apiclient.EncodeCertHeader(c.Certificate)), http.StatusUnauthorized, "PUB_CERT_NOT_REGISTERED")
	})

	/*
		Check: auth/cert-not-linked
		Spec: "Authentication", rule 4 (an unlinked certificate is rejected even when valid); "Errors > Token endpoint codes", PUB_CERT_NOT_AUTHORIZED_FOR_ACCOUNT
		Sandbox: a second account from POST /_sandbox/accounts
		Description: A valid, registered certificate of another account, sent with this account's
		credentials, MUST be answered 403 with code PUB_CERT_NOT_AUTHORIZED_FOR_ACCOUNT.
	*/
	framework.SandboxIt("rejects another account's certificate with 403 PUB_CERT_NOT_AUTHORIZED_FOR_ACCOUNT", func(ctx ginkgo.SpecContext) {
		other, err := f.Sandbox.CreateAccount(ctx, sandbox.AccountOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		tokenError(ctx, withCert(apiclient.EncodeCertHeader(other.Certificate)), http.StatusForbidden, "PUB_CERT_NOT_AUTHORIZED_FOR_ACCOUNT")
	})

	/*
		Check: auth/upstream-unavailable
		Spec: "Errors > Token endpoint codes", PUB_AUTH_UPSTREAM_UNAVAILABLE
		Sandbox: X-Sandbox-Scenario: PUB_AUTH_UPSTREAM_UNAVAILABLE
		Description: A valid token request carrying the scenario MUST be answered 503 with code
		PUB_AUTH_UPSTREAM_UNAVAILABLE.
	*/
	framework.SandboxIt("answers the upstream-unavailable scenario with 503 PUB_AUTH_UPSTREAM_UNAVAILABLE", func(ctx ginkgo.SpecContext) {
		req := f.TokenRequest()
		req.Scenario = "PUB_AUTH_UPSTREAM_UNAVAILABLE"
		tokenError(ctx, req, http.StatusServiceUnavailable, "PUB_AUTH_UPSTREAM_UNAVAILABLE")
	})

	/*
		Check: auth/upstream-error
		Spec: "Errors > Token endpoint codes", PUB_AUTH_UPSTREAM_ERROR
		Sandbox: X-Sandbox-Scenario: PUB_AUTH_UPSTREAM_ERROR
		Description: A valid token request carrying the scenario MUST be answered 502 with code
		PUB_AUTH_UPSTREAM_ERROR.
	*/
	framework.SandboxIt("answers the upstream-error scenario with 502 PUB_AUTH_UPSTREAM_ERROR", func(ctx ginkgo.SpecContext) {
		req := f.TokenRequest()
		req.Scenario = "PUB_AUTH_UPSTREAM_ERROR"
		tokenError(ctx, req, http.StatusBadGateway, "PUB_AUTH_UPSTREAM_ERROR")
	})

	/*
		Check: auth/unknown-scenario
		Sandbox: X-Sandbox-Scenario with a value the sandbox does not know
		Description: A valid token request carrying an unknown scenario MUST be answered 400 with
		code SANDBOX_UNKNOWN_SCENARIO, so that a typo never passes silently.
	*/
	framework.SandboxIt("rejects an unknown X-Sandbox-Scenario with 400 SANDBOX_UNKNOWN_SCENARIO", func(ctx ginkgo.SpecContext) {
		req := f.TokenRequest()
		req.Scenario = "NO_SUCH_SCENARIO_" + strings.ToUpper(f.UniqueID(""))
		tokenError(ctx, req, http.StatusBadRequest, "SANDBOX_UNKNOWN_SCENARIO")
	})

	/*
		Check: auth/token-simulation-time
		Spec: "Authentication", rule 2 (valid 1800 seconds)
		Sandbox: GET /_sandbox/clock
		Description: The token's iat MUST be the simulation clock's time of issue (to the second) and
		its exp MUST be iat + 1800, so that the simulation clock, not wall time, governs expiry.
	*/
	framework.SandboxIt("stamps iat and exp on the simulation clock", func(ctx ginkgo.SpecContext) {
		before, err := f.Sandbox.Clock(ctx)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		jwt, err := codec.ParseJWT(f.Token(ctx))
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		after, err := f.Sandbox.Clock(ctx)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		iat, ok := jwt.Payload["iat"].(json.Number)
		gomega.Expect(ok).To(gomega.BeTrue(), "JWT payload iat is %v, want a number", jwt.Payload["iat"])
		iatS, err := iat.Int64()
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(iatS).To(gomega.BeNumerically(">=", before.Now.Unix()), "iat against the simulation clock before issue (%s)", before.Now)
		gomega.Expect(iatS).To(gomega.BeNumerically("<=", after.Now.Unix()), "iat against the simulation clock after issue (%s)", after.Now)
		exp, ok := jwt.Payload["exp"].(json.Number)
		gomega.Expect(ok).To(gomega.BeTrue(), "JWT payload exp is %v, want a number", jwt.Payload["exp"])
		expS, err := exp.Int64()
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(expS-iatS).To(gomega.Equal(int64(1800)), "exp - iat")
	})

	/*
		Check: auth/token-lifetime
		Spec: "Authentication", rules 2 and 6 (valid 1800 seconds; 401 when expired); "Limits", token lifetime
		Sandbox: POST /_sandbox/clock/advance
		Description: A token MUST still be accepted by GET /accounts/balances 1799 seconds after issue
		on the simulation clock, and MUST be answered 401 exactly 1800 seconds after issue (its exp:
		valid for 1800 seconds means not at the 1800th) and 1801 seconds after issue.
	*/
	framework.SandboxIt("honours the 1800 s lifetime on the simulation clock, to the second", ginkgo.Serial, func(ctx ginkgo.SpecContext) {
		tok := f.Token(ctx)
		f.Needs(ctx, "GET /accounts/balances")
		_, err := f.Sandbox.Advance(ctx, 1799)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		r := f.Do(ctx, http.MethodGet, "/accounts/balances", tok, nil, nil)
		gomega.Expect(r).To(framework.HaveSuccessStatus(), "1799 s after issue")

		for _, at := range []string{"1800 s after issue, its exp", "1801 s after issue"} {
			_, err = f.Sandbox.Advance(ctx, 1)
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			r = f.Do(ctx, http.MethodGet, "/accounts/balances", tok, nil, nil)
			gomega.Expect(r).To(framework.HaveStatus(http.StatusUnauthorized), at)
		}
	})
})

// quote returns s as a JSON string literal.
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
