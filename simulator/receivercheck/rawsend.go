package receivercheck

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

// What sendRaw needs beside webhook.Dispatcher.Post for the deliveries the
// dispatcher cannot sign itself (it always signs the body it sends, with v1
// only): the headers Send sets.

// rawHeaders returns the headers of a delivery of o made by sendRaw: the
// custom headers, Content-Type, User-Agent, the Standard Webhooks headers and
// X-Pixsandbox-Simulation-Time, as the dispatcher sets them, with
// webhook-signature made as o's tampering says.
func (c *checker) rawHeaders(o outgoing, body []byte) (http.Header, error) {
	h := make(http.Header)
	for _, x := range c.cfg.Headers {
		h.Add(x.Key, x.Value)
	}
	ua := c.dp.UserAgent
	if ua == "" {
		ua = webhook.DefaultUserAgent
	}
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", ua)
	h.Set(headerID, o.webhookID)
	h.Set(headerTimestamp, strconv.FormatInt(o.signedAt.Unix(), 10))
	h.Set(webhook.SimulationTimeHeader, o.signedAt.UTC().Format(pix.TimeLayout))
	signed := body
	if o.tamper.signedBody != nil {
		signed = o.tamper.signedBody
	}
	sig, err := hmacSignature(c.cfg.Secret, o.webhookID, o.signedAt, signed)
	if err != nil {
		return h, err
	}
	versions := o.tamper.versions
	if versions == nil {
		versions = []string{"v1"}
	}
	parts := make([]string, len(versions))
	for i, v := range versions {
		parts[i] = v + "," + sig
	}
	h.Set(headerSignature, strings.Join(parts, " "))
	return h, nil
}
