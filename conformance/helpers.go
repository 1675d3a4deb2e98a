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
)

// stringField returns the string at path of r's JSON body, failing the spec
// when it is absent or not a string.
func stringField(r *framework.Response, path string) string {
	ginkgo.GinkgoHelper()
	v, ok := r.Field(path)
	gomega.Expect(ok).To(gomega.BeTrue(), "%s is absent in %s", path, r)
	s, ok := v.(string)
	gomega.Expect(ok).To(gomega.BeTrue(), "%s is not a string in %s", path, r)
	return s
}

// centsField returns the money at path of r's JSON body in centavos, failing
// the spec when it is absent or not a JSON number with at most two decimals.
func centsField(r *framework.Response, path string) int64 {
	ginkgo.GinkgoHelper()
	v, ok := r.Field(path)
	gomega.Expect(ok).To(gomega.BeTrue(), "%s is absent in %s", path, r)
	_, isNum := v.(json.Number)
	gomega.Expect(isNum).To(gomega.BeTrue(), "%s is not a JSON number in %s", path, r)
	c, err := framework.Cents(v)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "%s in %s", path, r)
	return c
}

// brl renders centavos as decimal text ("1234.56"), so that money compared
// as integers reads naturally in failure messages.
func brl(cents int64) string { return framework.FormatCents(cents) }

// bacenBalance is one reading of GET /accounts/balances, in centavos.
type bacenBalance struct {
	available, blocked int64
}

// readBacenBalance reads GET /accounts/balances with token, requiring a 2xx
// answer with data[0].balanceAmount.
func readBacenBalance(ctx context.Context, f *framework.Framework, token string) bacenBalance {
	ginkgo.GinkgoHelper()
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
