package conformance

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image/png"
	"net/http"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"github.com/onsi/gomega/types"

	"github.com/pixsandbox/pixsandbox/conformance/framework"
	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
)

// stringField returns the string at path of r's JSON body, failing the spec
// when it is absent or not a string.
func stringField(r *apiclient.Response, path string) string {
	ginkgo.GinkgoHelper()
	v, ok := r.Field(path)
	gomega.Expect(ok).To(gomega.BeTrue(), "%s is absent in %s", path, r)
	s, ok := v.(string)
	gomega.Expect(ok).To(gomega.BeTrue(), "%s is not a string in %s", path, r)
	return s
}

// centsField returns the money at path of r's JSON body in centavos, failing
// the spec when it is absent or not a JSON number with at most two decimals.
func centsField(r *apiclient.Response, path string) int64 {
	ginkgo.GinkgoHelper()
	v, ok := r.Field(path)
	gomega.Expect(ok).To(gomega.BeTrue(), "%s is absent in %s", path, r)
	_, isNum := v.(json.Number)
	gomega.Expect(isNum).To(gomega.BeTrue(), "%s is not a JSON number in %s", path, r)
	c, err := apiclient.Cents(v)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "%s in %s", path, r)
	return c
}

// brl renders centavos as decimal text ("1234.56"), so that money compared
// as integers reads naturally in failure messages.
func brl(cents int64) string { return apiclient.FormatCents(cents) }

// bacenBalance is one reading of GET /accounts/balances, in centavos.
type bacenBalance struct {
	available, blocked int64
}

// readBacenBalance reads GET /accounts/balances with token, requiring a 2xx
// answer with data[0].balanceAmount; a check that reads it needs the route.
func readBacenBalance(ctx context.Context, f *framework.Framework, token string) bacenBalance {
	ginkgo.GinkgoHelper()
	f.Needs(ctx, "GET /accounts/balances")
	r := f.Do(ctx, http.MethodGet, "/accounts/balances", token, nil, nil)
	gomega.Expect(r).To(framework.HaveSuccessStatus())
	return bacenBalance{
		available: centsField(r, "data[0].balanceAmount.available"),
		blocked:   centsField(r, "data[0].balanceAmount.blocked"),
	}
}

// clockIntoMinute sets the simulation clock 10.7 seconds into the next minute
// (a sub-second position, as a real clock has) for the rate-limit checks, and
// leaves it on a whole second afterwards.
func clockIntoMinute(ctx context.Context, f *framework.Framework) {
	ginkgo.GinkgoHelper()
	clk, err := f.Sandbox.Clock(ctx)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	_, err = f.Sandbox.SetClock(ctx, clk.Now.Truncate(time.Minute).Add(time.Minute+10*time.Second+700*time.Millisecond))
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	ginkgo.DeferCleanup(func(ctx context.Context) {
		c, err := f.Sandbox.Clock(ctx)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		_, err = f.Sandbox.SetClock(ctx, c.Now.Truncate(time.Second).Add(time.Second))
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
	})
}

// nonEmptyString matches a JSON string that is not empty.
func nonEmptyString() types.GomegaMatcher {
	return gomega.And(gomega.BeAssignableToTypeOf(""), gomega.Not(gomega.BeEmpty()))
}

// stringOrNull matches a JSON string or null.
func stringOrNull() types.GomegaMatcher {
	return gomega.Or(gomega.BeNil(), gomega.BeAssignableToTypeOf(""))
}

// expectBase64PNG checks that field holds standard base64 of a PNG image: the
// PNG signature, then an image of positive width and height.
func expectBase64PNG(b64, field string) {
	ginkgo.GinkgoHelper()
	img, err := base64.StdEncoding.DecodeString(b64)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "%s is standard base64", field)
	gomega.Expect(strings.HasPrefix(string(img), pngSignature)).To(gomega.BeTrue(), "%s starts with the PNG signature", field)
	cfg, err := png.DecodeConfig(bytes.NewReader(img))
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "%s decodes as a PNG", field)
	gomega.Expect(cfg.Width).To(gomega.BeNumerically(">", 0), "%s: PNG width", field)
	gomega.Expect(cfg.Height).To(gomega.BeNumerically(">", 0), "%s: PNG height", field)
}

// Wire patterns, destinations and helpers shared by the specs of several resources.

// Wire patterns.
const (
	// uuidPattern is a UUID in its canonical hyphenated form.
	uuidPattern = `^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`
	// endToEndPattern is a Central Bank end-to-end id: E, the payer's ISPB (8
	// digits), yyyyMMddHHmm (12 digits) and 11 alphanumerics.
	endToEndPattern = `^E[0-9]{8}\d{12}[A-Za-z0-9]{11}$`
)

// Plausible destinations.
const (
	// otherCPF is a CPF with valid check digits, the holder document of the
	// DICT keys the suite registers on a sandbox.
	otherCPF = "52998224725"
	// badCheckDigitsCPF is sampleCPF with wrong check digits.
	badCheckDigitsCPF = "12345678900"
	// holderName is the name the suite gives recipients.
	holderName = "Fulano de Tal"
)

// skipNoDictKey is the reason given when a check needs a transfer the target
// accepts and no destination key is known.
const skipNoDictKey = "no destination key in the target's DICT: give -dict-key (PIXSANDBOX_CONFORMANCE_DICT_KEY), or run against a target with the /_sandbox control plane"

// webhook event types of the registration API ("Events > Registration event types").
const (
	eventCashIn  = "cash_in"
	eventCashOut = "cash_out"
)

// encodeJSON encodes v without HTML escaping; json.Number values are written
// as JSON numbers.
func encodeJSON(v any) []byte {
	ginkgo.GinkgoHelper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	gomega.Expect(enc.Encode(v)).To(gomega.Succeed())
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// freshEmailKey returns an email key no one has used.
func freshEmailKey(f *framework.Framework) string {
	return f.UniqueID("conformance-") + "@example.com"
}

// messageText returns the error body's message as one string: the string
// itself, or the strings of an array joined by " | ".
func messageText(r *apiclient.Response) string {
	ginkgo.GinkgoHelper()
	v, ok := r.Field("message")
	gomega.Expect(ok).To(gomega.BeTrue(), "message is absent in %s", r)
	switch m := v.(type) {
	case string:
		return m
	case []any:
		parts := make([]string, 0, len(m))
		for _, e := range m {
			s, _ := e.(string)
			parts = append(parts, s)
		}
		return strings.Join(parts, " | ")
	}
	ginkgo.Fail("message is neither a string nor an array in " + r.String())
	return ""
}

// expectUTC checks that s is an ISO 8601 date-time in UTC (Z or a zero offset).
func expectUTC(s, what string) {
	ginkgo.GinkgoHelper()
	gomega.Expect(s).To(framework.BeISO8601(), what)
	gomega.Expect(strings.HasSuffix(s, "Z") || strings.HasSuffix(s, "+00:00") || strings.HasSuffix(s, "+0000")).
		To(gomega.BeTrue(), "%s %q is not in UTC", what, s)
}

// expectBalance checks a balance reading against the expected one.
func expectBalance(got, want framework.Balance, when string) {
	ginkgo.GinkgoHelper()
	gomega.Expect(brl(got.Available)).To(gomega.Equal(brl(want.Available)), "available %s (was %s)", when, brl(got.Available))
	gomega.Expect(brl(got.Blocked)).To(gomega.Equal(brl(want.Blocked)), "blocked %s (was %s)", when, brl(got.Blocked))
}

// withScenario returns h with X-Sandbox-Scenario added when scenario is set.
func withScenario(h http.Header, scenario string) http.Header {
	if h == nil {
		h = http.Header{}
	}
	if scenario != "" {
		h.Set(apiclient.HeaderScenario, scenario)
	}
	return h
}
