package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/pixsandbox/pixsandbox/conformance/framework"
)

// Helpers shared by the PIX-out specs (POST /dict/pix and POST /api/pix/cash-out).

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
func messageText(r *framework.Response) string {
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

// moneyField returns the money at path of a webhook body in centavos; the
// value may be a JSON number or a string, as the payload tables say.
func moneyField(d framework.Delivery, path string) int64 {
	ginkgo.GinkgoHelper()
	v, ok := d.Field(path)
	gomega.Expect(ok).To(gomega.BeTrue(), "%s is absent in %s", path, d)
	c, err := framework.Cents(v)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "%s in %s", path, d)
	return c
}

// registerTarget registers inbox as the account's webhook target for
// eventType, signed with secret when it is not empty.
func registerTarget(ctx context.Context, f *framework.Framework, accountID, eventType string, inbox *framework.Inbox, secret string) {
	ginkgo.GinkgoHelper()
	_, err := f.Sandbox.RegisterWebhookTarget(ctx, framework.WebhookTargetOptions{
		AccountID: accountID, URL: inbox.URL(), EventType: eventType, Secret: secret,
	})
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "registering %s as the %s target of account %s", inbox.URL(), eventType, accountID)
}

// matching returns the inbox's deliveries whose JSON body has want at path.
func matching(inbox *framework.Inbox, path, want string) []framework.Delivery {
	var out []framework.Delivery
	for _, d := range inbox.Deliveries() {
		if v, ok := d.Field(path); ok && v == want {
			out = append(out, d)
		}
	}
	return out
}

// awaitWebhook waits for a delivery to inbox whose body has want at path and
// returns the latest such delivery. With settle, it first lets a PIX out
// settle (Framework.AwaitSettlement: the spec must be ginkgo.Serial);
// otherwise it only polls.
func awaitWebhook(ctx context.Context, f *framework.Framework, inbox *framework.Inbox, settle bool, path, want string) framework.Delivery {
	ginkgo.GinkgoHelper()
	var got framework.Delivery
	check := func(g gomega.Gomega) {
		ds := matching(inbox, path, want)
		g.Expect(ds).NotTo(gomega.BeEmpty(), "no webhook with %s = %q yet; the inbox holds %d deliveries", path, want, inbox.Count())
		got = ds[len(ds)-1]
	}
	if settle {
		f.AwaitSettlement(ctx, check)
	} else {
		f.Eventually(ctx, check)
	}
	return got
}

// awaitWebhookAfter is awaitWebhook after advancing a sandbox's clock by
// advance (polling elsewhere).
func awaitWebhookAfter(ctx context.Context, f *framework.Framework, inbox *framework.Inbox, advance time.Duration, path, want string) framework.Delivery {
	ginkgo.GinkgoHelper()
	var got framework.Delivery
	f.AwaitSettled(ctx, advance, func(g gomega.Gomega) {
		ds := matching(inbox, path, want)
		g.Expect(ds).NotTo(gomega.BeEmpty(), "no webhook with %s = %q yet; the inbox holds %d deliveries", path, want, inbox.Count())
		got = ds[len(ds)-1]
	})
	return got
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
		h.Set(framework.HeaderScenario, scenario)
	}
	return h
}
