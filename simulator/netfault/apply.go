package netfault

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"time"
)

// Applying a fault. A fault that ends without an answer reports false: the
// caller records the request, then closes the connection without writing
// anything (panic(http.ErrAbortHandler), which net/http answers by closing
// the connection silently). Every wait here is wall time (the network's, not
// the simulation's) and ends when the client goes away (the request's
// context) or the server shuts down (stop).

// Answer applies an in-place fault (f.InPlace) to r instead of its route:
// Status writes the gateway's page to w; Timeout waits for the client to
// give up, or the server to stop, and reports false; ResetBefore reports
// false at once.
func Answer(f Fault, w http.ResponseWriter, r *http.Request, stop <-chan struct{}) bool {
	switch f.Kind {
	case Status:
		writePage(w, f)
		return true
	case Timeout:
		detach(w, r)
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}
	return false
}

// GatewayName is the server a gateway's error page names.
const GatewayName = "pixsandbox-gateway"

// writePage writes the error page a reverse proxy in front of the API sends
// when its upstream fails: nginx's HTML page by default, {"message": ...}
// (as API gateways write it) with body=json.
func writePage(w http.ResponseWriter, f Fault) {
	text := http.StatusText(f.Code)
	if text == "" {
		text = "Error"
	}
	title := strconv.Itoa(f.Code) + " " + text
	var body, ctype string
	if f.JSON {
		body, ctype = `{"message":"`+text+`"}`+"\n", "application/json"
	} else {
		body = "<html>\r\n<head><title>" + title + "</title></head>\r\n<body>\r\n<center><h1>" + title +
			"</h1></center>\r\n<hr><center>" + GatewayName + "</center>\r\n</body>\r\n</html>\r\n"
		ctype = "text/html"
	}
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Server", GatewayName)
	w.WriteHeader(f.Code)
	_, _ = io.WriteString(w, body)
}

// Held keeps a route's answer (its status and body; its headers go straight
// to the real writer's) for a fault that acts on it: the route writes to the
// Held, Release then sends the answer late, slowly, or not at all.
type Held struct {
	w      http.ResponseWriter
	status int
	body   bytes.Buffer
}

// Hold returns a Held that keeps what is written to it for w.
func Hold(w http.ResponseWriter) *Held { return &Held{w: w} }

// Writer is the real writer the answer is held for.
func (h *Held) Writer() http.ResponseWriter { return h.w }

// Header is the real writer's header map.
func (h *Held) Header() http.Header { return h.w.Header() }

// WriteHeader keeps the status.
func (h *Held) WriteHeader(code int) {
	if h.status == 0 {
		h.status = code
	}
}

// Write keeps the body.
func (h *Held) Write(b []byte) (int, error) {
	if h.status == 0 {
		h.status = http.StatusOK
	}
	return h.body.Write(b)
}

// Release applies f (ResetAfter, Delay or Trickle) to the answer held for r:
// ResetAfter reports false at once; Delay sends it after f.Delay (at once
// when the server stops; false when the client goes away first); Trickle
// sends its headers, then its body f.Rate bytes a second (the rest at once
// when the server stops; false when the client goes away).
func (h *Held) Release(f Fault, r *http.Request, stop <-chan struct{}) bool {
	switch f.Kind {
	case Delay:
		detach(h.w, r)
		t := time.NewTimer(f.Delay) // wall time: a network's delay
		defer t.Stop()
		select {
		case <-r.Context().Done():
			return false
		case <-t.C:
		case <-stop:
		}
		h.send(h.body.Bytes())
		return true
	case Trickle:
		detach(h.w, r)
		return h.trickle(f.Rate, r, stop)
	}
	return false
}

// send writes the status, a Content-Length and the first part of the body.
func (h *Held) send(part []byte) {
	h.w.Header().Set("Content-Length", strconv.Itoa(h.body.Len()))
	h.w.WriteHeader(max(h.status, http.StatusOK))
	_, _ = h.w.Write(part)
}

// trickle sends the body rate bytes a second, in pieces of a tenth of that
// (at least a byte), each flushed.
func (h *Held) trickle(rate int, r *http.Request, stop <-chan struct{}) bool {
	body := h.body.Bytes()
	piece := max(rate/10, 1)
	every := time.Duration(piece) * time.Second / time.Duration(rate)
	rc := http.NewResponseController(h.w)
	n := min(piece, len(body))
	h.send(body[:n])
	_ = rc.Flush()
	t := time.NewTicker(every) // wall time: the pace of the bytes on the wire
	defer t.Stop()
	for n < len(body) {
		select {
		case <-r.Context().Done():
			return false
		case <-stop:
			_, _ = h.w.Write(body[n:])
			return true
		case <-t.C:
		}
		m := min(n+piece, len(body))
		if _, err := h.w.Write(body[n:m]); err != nil {
			return false
		}
		_ = rc.Flush()
		n = m
	}
	return true
}

// detach readies a request to be held (Gap G-66, docs/spec-gaps.md): its body is read to the end, so that
// net/http watches the connection and ends the request's context when the
// client goes away, and the server's read and write deadlines are lifted
// for it (a hold may outlast them; the client's own timeout is the one that
// counts).
func detach(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
}
