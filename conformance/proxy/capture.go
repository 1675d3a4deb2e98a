package proxy

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
)

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// copyBuffers lend the ReverseProxies their buffers for copying bodies
// (httputil.BufferPool): without them each answer allocates 32 KiB, six
// tenths of what the proxy allocated at 1,000 exchanges a second, and the
// collector ran seven times a second (docs/performance-log.md).
var copyBuffers bufferPool

type bufferPool struct{ p sync.Pool }

const copyBufferSize = 32 << 10 // httputil's own

func (b *bufferPool) Get() []byte {
	if buf, ok := b.p.Get().(*[]byte); ok {
		return *buf
	}
	return make([]byte, copyBufferSize)
}

func (b *bufferPool) Put(buf []byte) {
	if cap(buf) == copyBufferSize {
		buf = buf[:copyBufferSize]
		b.p.Put(&buf)
	}
}

// capture is the ReverseProxy's ModifyResponse: it records the answer's
// status and headers and wraps its body so that the bytes copied to the
// client are kept (up to BodyLimit, within the budget) for judging. The
// answer itself is not changed.
func (p *Proxy) capture(resp *http.Response) error {
	ex := exchangeOf(resp.Request)
	if ex == nil {
		return nil
	}
	if resp.StatusCode == http.StatusSwitchingProtocols {
		// An upgraded connection (its body is the connection itself, which
		// httputil needs as it is) is passed through and not judged.
		ex.switched = true
		return nil
	}
	ex.Status, ex.RespHeader, ex.RequestID = resp.StatusCode, resp.Header.Clone(), resp.Header.Get("X-Request-Id")
	c := &captureBody{rc: resp.Body, p: p, ex: ex}
	if resp.ContentLength > BodyLimit {
		c.reason = "the body is over 1 MiB"
	}
	ex.resp = c
	resp.Body = c
	return nil
}

// captureBody keeps a copy of the bytes read through it.
type captureBody struct {
	rc     io.ReadCloser
	p      *Proxy
	ex     *exchange
	buf    []byte
	reason string // why the body is not kept, once known
	eof    bool
}

// Read implements io.Reader.
func (c *captureBody) Read(b []byte) (int, error) {
	n, err := c.rc.Read(b)
	if n > 0 && c.reason == "" {
		switch {
		case len(c.buf)+n > BodyLimit:
			c.reason, c.buf = "the body is over 1 MiB", nil
		case !c.p.reserve(c.ex, int64(n)):
			c.reason, c.buf = "the proxy's capture budget is spent", nil
		default:
			c.buf = append(c.buf, b[:n]...)
		}
	}
	if err == io.EOF {
		c.eof = true
	}
	return n, err
}

// Close implements io.Closer.
func (c *captureBody) Close() error { return c.rc.Close() }

// finish gives the exchange the answer's body as the rules read it: the
// bytes kept, decoded from gzip when the upstream encoded them so. An answer
// whose copy broke off (the client or the upstream went away) is not judged
// (Status 0).
func (c *captureBody) finish(ex *contract.Exchange) {
	switch {
	case c.reason != "":
		ex.RespUnjudged = c.reason
		return
	case !c.eof:
		ex.Status = 0
		return
	}
	switch enc := strings.ToLower(strings.TrimSpace(ex.RespHeader.Get("Content-Encoding"))); enc {
	case "", "identity":
		ex.RespBody = c.buf
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(bytes.NewReader(c.buf))
		if err != nil {
			ex.RespUnjudged = "the gzip body does not decode: " + err.Error()
			return
		}
		b, err := io.ReadAll(io.LimitReader(zr, BodyLimit+1))
		switch {
		case err != nil:
			ex.RespUnjudged = "the gzip body does not decode: " + err.Error()
		case len(b) > BodyLimit:
			ex.RespUnjudged = "the body is over 1 MiB once decoded"
		default:
			ex.RespBody = b
		}
	default:
		ex.RespUnjudged = "Content-Encoding " + enc + " is not read by the proxy"
	}
}
