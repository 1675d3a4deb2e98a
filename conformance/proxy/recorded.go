package proxy

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
	"github.com/pixsandbox/pixsandbox/conformance/proxy/judging"
)

// Recorded traffic (`pixsandbox validate`): the proxy's rules applied to
// exchanges read from a file instead of passing through. Two formats, told
// apart by their content:
//
//   - the simulator's request journal: the JSON answer of GET
//     /_sandbox/requests ({"enabled":…,"data":[…]}, newest first), a JSON
//     array of its entries, or the lines `pixsandbox requests --json` prints
//     (one entry per line, oldest first);
//   - a HAR 1.2 file (log.entries[], each with its request and response).
//
// A file is read twice. The first pass checks every entry and notes where
// it lies in the file and when it happened; a bad entry refuses the whole
// file before any exchange is judged. The second pass reads the entries
// again one at a time, in the order their answers ended (the journal's ids,
// HAR's startedDateTime + time), and judges each with contract.Judge and
// one state.Model, as Proxy.finish judges a live exchange.
//
// Memory: one entry at a time (the decoder holds at most its JSON text,
// MaxRecordedEntry, and what it read ahead) and an index of 56 bytes per
// entry (at most MaxRecordedEntries), besides the proxy's own bounds (the
// state model's windows, the findings kept).
// Input that cannot be read at an offset (a pipe) is first copied to a
// temporary file.

const (
	// MaxRecordedEntry bounds the JSON text of one entry of recorded
	// traffic (a HAR entry holding a large download is longer than its
	// body's 1 MiB that the rules judge at most).
	MaxRecordedEntry = 32 << 20
	// MaxRecordedEntries bounds the entries of one file: the request
	// journal's own largest capacity.
	MaxRecordedEntries = 1_000_000
)

// journalMask is what the simulator's request journal writes in place of a
// secret (simulator/httpapi/journalmask.go).
const journalMask = "***"

// maskedSeen is a finding's evidence of a value the journal masked.
var maskedSeen = strconv.Quote(journalMask)

// Format is a format of recorded traffic.
type Format string

const (
	// FormatJournal is the JSON answer of GET /_sandbox/requests, or a JSON
	// array of its entries.
	FormatJournal Format = "journal"
	// FormatJournalLines is one journal entry per line, as `pixsandbox
	// requests --json` prints them.
	FormatJournalLines Format = "journal-lines"
	// FormatHAR is a HAR 1.2 file.
	FormatHAR Format = "har"
)

// Describe names the format in a sentence.
func (f Format) Describe() string {
	switch f {
	case FormatJournal:
		return "a request journal export (GET /_sandbox/requests)"
	case FormatJournalLines:
		return "request journal entries, one per line (pixsandbox requests --json)"
	case FormatHAR:
		return "a HAR file"
	}
	return "unknown"
}

// InputError is recorded traffic that cannot be judged: the file, the entry
// (its position in the file, 1 for the first; 0 when the problem is not one
// entry's) and what is wrong.
type InputError struct {
	File  string
	Entry int
	// What names the entry (its method and URL), when it could be read.
	What string
	Err  error
}

func (e *InputError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Entry > 0 {
		fmt.Fprintf(&b, ": entry %d", e.Entry)
		if e.What != "" {
			b.WriteString(" (" + e.What + ")")
		}
	}
	if e.Err != nil {
		b.WriteString(": " + e.Err.Error())
	}
	return b.String()
}

func (e *InputError) Unwrap() error { return e.Err }

// RecordedExchange is one exchange read from recorded traffic, with what
// the recording could not show of it.
type RecordedExchange struct {
	contract.Exchange
	// Masked: secrets were replaced by "***" (a request journal): a finding
	// whose evidence is that value rests on the mask, not on what was sent.
	Masked bool
	// HeadersOmitted: the journal left some request headers out (over its
	// 8 KiB header budget): a header may be absent from the entry only.
	HeadersOmitted bool
}

// hides reports whether f rests on what the recording could not show: a
// masked value (present, its content unknown) or a header the journal may
// have left out.
func (rx *RecordedExchange) hides(f contract.Finding) bool {
	if rx.Masked && f.Seen == maskedSeen {
		return true
	}
	if rx.HeadersOmitted {
		switch f.Rule {
		case "req.authorization-missing", "req.cert-header-missing", "req.idempotency-key-missing":
			return true
		}
	}
	return false
}

// Recording is recorded traffic read and checked: every entry is known to
// give an exchange, in the order they are judged.
type Recording struct {
	Name   string
	Format Format
	src    io.ReaderAt
	spans  []span
	close  func() error
}

// span is where an entry lies in the file and when it happened.
type span struct {
	start, end int64
	pos        int   // the entry's position in the file, from 1
	key        int64 // the journal's id, or the HAR answer's end in Unix ns
	// from and to are the exchange's start and end in Unix ns (0 when the
	// entry does not show them); alone: no other entry's overlaps them.
	from, to int64
	alone    bool
}

// Len is the number of entries.
func (rc *Recording) Len() int { return len(rc.spans) }

// Close releases the recording's temporary copy, if it made one.
func (rc *Recording) Close() error {
	if rc.close == nil {
		return nil
	}
	return rc.close()
}

// ReadRecording reads recorded traffic from r (named name in messages: the
// file's name) and checks every entry. An *InputError says which entry is
// wrong and why.
func ReadRecording(name string, r io.Reader) (*Recording, error) {
	src, size, closeFn, err := readerAt(r)
	if err != nil {
		return nil, &InputError{File: name, Err: err}
	}
	rc := &Recording{Name: name, src: src, close: closeFn}
	s := &scan{rc: rc, src: src, size: size, keyed: true}
	if err := s.run(); err != nil {
		_ = rc.Close()
		return nil, err
	}
	if s.keyed {
		sort.SliceStable(rc.spans, func(i, j int) bool { return rc.spans[i].key < rc.spans[j].key })
	}
	rc.markAlone()
	return rc, nil
}

// markAlone marks the entries whose exchange no other entry's overlaps
// (contract.Exchange.Alone): none when an entry does not show its times.
func (rc *Recording) markAlone() {
	order := make([]int, len(rc.spans))
	for i := range order {
		order[i] = i
		if rc.spans[i].from == 0 {
			return
		}
	}
	sort.Slice(order, func(a, b int) bool { return rc.spans[order[a]].from < rc.spans[order[b]].from })
	var latest int64 // the latest end of the entries started before
	for k, i := range order {
		sp := &rc.spans[i]
		next := k+1 < len(order) && rc.spans[order[k+1]].from <= sp.to
		sp.alone = (k == 0 || latest < sp.from) && !next
		latest = max(latest, sp.to)
	}
}

// readerAt returns r as something read at offsets, with its size: a
// regular file or an in-memory reader as it is, anything else (a pipe,
// standard input) copied to a temporary file first.
func readerAt(r io.Reader) (io.ReaderAt, int64, func() error, error) {
	if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			return f, st.Size(), nil, nil
		}
	} else if rs, ok := r.(interface {
		io.ReaderAt
		io.Seeker
	}); ok {
		size, err := rs.Seek(0, io.SeekEnd)
		if err != nil {
			return nil, 0, nil, err
		}
		return rs, size, nil, nil
	}
	tmp, err := os.CreateTemp("", "pixsandbox-validate-*")
	if err != nil {
		return nil, 0, nil, fmt.Errorf("a temporary copy of the input: %w", err)
	}
	closeFn := func() error { return errors.Join(tmp.Close(), os.Remove(tmp.Name())) }
	size, err := io.Copy(tmp, r)
	if err != nil {
		_ = closeFn()
		return nil, 0, nil, fmt.Errorf("reading the input: %w", err)
	}
	return tmp, size, closeFn, nil
}

// Each calls fn with every exchange in the order they are judged: the
// order their answers ended (the journal's ids; a HAR answer's start plus
// its time), or the file's order when an entry does not show it.
func (rc *Recording) Each(fn func(*RecordedExchange) error) error {
	var buf []byte
	for _, sp := range rc.spans {
		n := int(sp.end - sp.start)
		if cap(buf) < n {
			buf = make([]byte, n)
		}
		buf = buf[:n]
		if _, err := rc.src.ReadAt(buf, sp.start); err != nil {
			return &InputError{File: rc.Name, Entry: sp.pos, Err: fmt.Errorf("reading it again: %w", err)}
		}
		rx, _, err := rc.exchange(buf, sp.pos)
		if err != nil {
			return err // the file changed since it was checked
		}
		rx.Alone = sp.alone
		if err := fn(rx); err != nil {
			return err
		}
	}
	return nil
}

// exchange turns the JSON text of entry pos into an exchange, and returns
// the entry's ordering key (0 when it has none).
func (rc *Recording) exchange(raw []byte, pos int) (*RecordedExchange, int64, error) {
	fail := func(what string, err error) (*RecordedExchange, int64, error) {
		return nil, 0, &InputError{File: rc.Name, Entry: pos, What: what, Err: err}
	}
	if len(raw) == 0 || raw[0] != '{' {
		return fail("", fmt.Errorf("not a JSON object but %s", leading(raw)))
	}
	if rc.Format == FormatHAR {
		var e harEntry
		if err := json.Unmarshal(raw, &e); err != nil {
			return fail("", fmt.Errorf("not a HAR entry: %w", err))
		}
		rx, key, err := e.exchange(uint64(pos))
		if err != nil {
			return fail(e.what(), err)
		}
		return rx, key, nil
	}
	var e journalEntry
	if err := json.Unmarshal(raw, &e); err != nil {
		return fail("", fmt.Errorf("not a request journal entry: %w", err))
	}
	rx, err := e.exchange(uint64(pos))
	if err != nil {
		return fail(e.what(), err)
	}
	return rx, e.ID, nil
}

// leading shows the start of a JSON text in a message.
func leading(raw []byte) string {
	if len(raw) > 20 {
		return strconv.Quote(string(raw[:20])) + "…"
	}
	return strconv.Quote(string(raw))
}

// Validation is a run of the proxy's rules over a recording: the proxy's
// summary, reports and counts, and the findings left out because they
// rested on what the recording masked or left out.
type Validation struct {
	*Proxy
	Hidden int
}

// ValidateRecording judges every exchange of rc in order with one state
// model, as the proxy judges live exchanges: the findings go to o.Log (one
// line each, Line) and into the returned proxy's store and reports. Only
// o.Log, o.MaxFindings, o.Bounds and o.QuietAccounts are read.
func ValidateRecording(rc *Recording, o Options) (*Validation, error) {
	// A proxy as New makes it, whose upstream is never dialled: the
	// exchanges come from the recording, and its reports name the file.
	p, err := New(Options{Upstream: "http://recording.invalid", Log: o.Log, MaxFindings: o.MaxFindings, Bounds: o.Bounds, QuietAccounts: o.QuietAccounts})
	if err != nil {
		return nil, err
	}
	p.upstream = &url.URL{Opaque: rc.Name} // standard input, or a reader of the caller's
	if st, err := os.Stat(rc.Name); err == nil && st.Mode().IsRegular() {
		if abs, err := filepath.Abs(rc.Name); err == nil {
			p.upstream = &url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
		}
	}
	v := &Validation{Proxy: p}
	err = rc.Each(func(rx *RecordedExchange) error {
		v.judge(rx)
		return nil
	})
	return v, err
}

// judge applies the request, response and state rules to one recorded
// exchange, as Proxy.finish does to a live one, leaving out the findings
// that rest on what the recording could not show.
func (v *Validation) judge(rx *RecordedExchange) {
	ex := &rx.Exchange
	v.stats.exchanges.Add(1)
	if rt, _ := ex.Route(); rt != nil {
		v.stats.contract.Add(1)
	} else {
		v.stats.other.Add(1)
	}
	for _, f := range v.judges.Judge(judging.Item{Ex: ex}) {
		if rx.hides(f) {
			v.Hidden++
			continue
		}
		v.record(f)
	}
}

// body returns a recorded body, or why it is not judged: over BodyLimit, as
// the proxy would not judge it either.
func body(b []byte) ([]byte, string) {
	if len(b) > BodyLimit {
		return nil, "the body is over 1 MiB"
	}
	return b, ""
}

// instant parses an RFC 3339 time; zero when it is not one.
func instant(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil || t.Year() < 1900 || t.Year() > 2200 {
		return time.Time{}
	}
	return t
}

// millis is a duration in milliseconds, none when negative or absurd.
func millis(ms float64) time.Duration {
	if ms <= 0 || ms > 1e12 {
		return 0
	}
	return time.Duration(ms * float64(time.Millisecond))
}

// The request journal's entries (GET /_sandbox/requests, package
// sandboxapi): what each keeps of a request is masked and bounded.

type journalEntry struct {
	ID                    int64             `json:"id"`
	RequestID             string            `json:"requestId"`
	Time                  string            `json:"time"`
	Method                string            `json:"method"`
	Path                  string            `json:"path"`
	Query                 string            `json:"query"`
	Workspace             string            `json:"workspace"`
	AccountID             *int64            `json:"accountId"`
	Status                *int              `json:"status"`
	DurationMs            float64           `json:"durationMs"`
	RequestHeaders        map[string]string `json:"requestHeaders"`
	RequestBody           string            `json:"requestBody"`
	RequestBodyTruncated  bool              `json:"requestBodyTruncated"`
	ResponseContentType   string            `json:"responseContentType"`
	ResponseBody          string            `json:"responseBody"`
	ResponseBodyTruncated bool              `json:"responseBodyTruncated"`
}

// journalOmitted is the header by which an entry counts the request headers
// it left out.
const journalOmitted = "X-Journal-Omitted"

func (e *journalEntry) what() string {
	if e.Method == "" && e.Path == "" {
		return ""
	}
	return strings.TrimSpace(e.Method + " " + e.Path)
}

func (e *journalEntry) exchange(seq uint64) (*RecordedExchange, error) {
	switch {
	case e.Method == "":
		return nil, errors.New("no method")
	case !strings.HasPrefix(e.Path, "/"):
		return nil, fmt.Errorf("path %q does not start with /", e.Path)
	case e.Status == nil || *e.Status == 0:
		return nil, errors.New("no response: the entry has no status")
	case *e.Status < 100 || *e.Status > 999:
		return nil, fmt.Errorf("status %d is not an HTTP status", *e.Status)
	}
	rx := &RecordedExchange{Masked: true, Exchange: contract.Exchange{Seq: seq, RequestID: e.RequestID, Method: e.Method,
		Path: e.Path, RawQuery: e.Query, ReqHeader: http.Header{}, Status: *e.Status, RespHeader: http.Header{}}}
	for k, v := range e.RequestHeaders {
		if http.CanonicalHeaderKey(k) == journalOmitted {
			rx.HeadersOmitted = true
			continue
		}
		rx.ReqHeader.Add(k, v)
	}
	e.standInToken(rx.ReqHeader)
	if e.ResponseContentType != "" {
		rx.RespHeader.Set("Content-Type", e.ResponseContentType)
	}
	if e.RequestID != "" {
		rx.RespHeader.Set("X-Request-Id", e.RequestID)
	}
	rx.ReqBody, rx.ReqUnjudged = body([]byte(e.RequestBody))
	switch n, _ := strconv.ParseInt(rx.ReqHeader.Get("Content-Length"), 10, 64); {
	case e.RequestBodyTruncated:
		rx.ReqBody, rx.ReqUnjudged = nil, "the journal keeps the first 16 KiB of a body and cut this one"
	case e.RequestBody == "" && n > 0:
		rx.ReqUnjudged = fmt.Sprintf("the journal holds none of the body's %d bytes: the server answered without reading it", n)
	case e.RequestBody == "" && rx.HeadersOmitted:
		rx.ReqUnjudged = "the journal holds no body and left headers out: whether the request had one is unknown"
	}
	rx.RespBody, rx.RespUnjudged = body([]byte(e.ResponseBody))
	if e.ResponseBodyTruncated {
		rx.RespBody, rx.RespUnjudged = nil, "the journal keeps the first 16 KiB of a body and cut this one"
	}
	rx.Start = instant(e.Time)
	if !rx.Start.IsZero() {
		rx.End = rx.Start.Add(millis(e.DurationMs))
	}
	return rx, nil
}

// standInToken gives a masked bearer token ("Bearer ***") the identity the
// journal recorded instead: its workspace and account. The state model
// keys idempotency keys, externalIds, cobs and refunds by the token's
// account; a masked token would make every account one. The stand-in is
// no JWT, so the token rule (its iat) cannot judge it.
func (e *journalEntry) standInToken(h http.Header) {
	scheme, tok, ok := strings.Cut(h.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || tok != journalMask || e.AccountID == nil {
		return
	}
	h.Set("Authorization", scheme+" "+journalMask+"journal-account:"+e.Workspace+"/"+strconv.FormatInt(*e.AccountID, 10))
}

// HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/): the fields the
// rules read. Bodies may be base64 ("encoding": "base64", on content and,
// as some tools write it, on postData).

type harEntry struct {
	StartedDateTime string       `json:"startedDateTime"`
	Time            float64      `json:"time"`
	Request         *harRequest  `json:"request"`
	Response        *harResponse `json:"response"`
}

type harNameValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type harRequest struct {
	Method   string         `json:"method"`
	URL      string         `json:"url"`
	Headers  []harNameValue `json:"headers"`
	PostData *harPostData   `json:"postData"`
}

type harPostData struct {
	MimeType string         `json:"mimeType"`
	Text     *string        `json:"text"`
	Encoding string         `json:"encoding"`
	Params   []harNameValue `json:"params"`
}

type harResponse struct {
	Status   int            `json:"status"`
	Headers  []harNameValue `json:"headers"`
	Content  *harContent    `json:"content"`
	BodySize int64          `json:"bodySize"`
}

type harContent struct {
	Size     int64   `json:"size"`
	MimeType string  `json:"mimeType"`
	Text     *string `json:"text"`
	Encoding string  `json:"encoding"`
}

func (e *harEntry) what() string {
	if e.Request == nil || (e.Request.Method == "" && e.Request.URL == "") {
		return ""
	}
	return strings.TrimSpace(e.Request.Method + " " + e.Request.URL)
}

func (e *harEntry) exchange(seq uint64) (*RecordedExchange, int64, error) {
	switch {
	case e.Request == nil:
		return nil, 0, errors.New("no request")
	case e.Request.Method == "":
		return nil, 0, errors.New("no request.method")
	case e.Response == nil:
		return nil, 0, errors.New("no response")
	case e.Response.Status == 0:
		return nil, 0, errors.New("no response: response.status is 0 (the request got no answer)")
	case e.Response.Status < 100 || e.Response.Status > 999:
		return nil, 0, fmt.Errorf("response.status %d is not an HTTP status", e.Response.Status)
	}
	u, err := url.Parse(e.Request.URL)
	if err != nil || e.Request.URL == "" {
		return nil, 0, fmt.Errorf("request.url %q is not a URL", e.Request.URL)
	}
	rx := &RecordedExchange{Exchange: contract.Exchange{Seq: seq, Method: e.Request.Method, Path: u.Path, RawQuery: u.RawQuery,
		ReqHeader: harHeader(e.Request.Headers), Status: e.Response.Status, RespHeader: harHeader(e.Response.Headers)}}
	if rx.Path == "" {
		rx.Path = "/"
	}
	rx.RequestID = rx.RespHeader.Get("X-Request-Id")
	if err := e.requestBody(rx); err != nil {
		return nil, 0, err
	}
	if err := e.responseBody(rx); err != nil {
		return nil, 0, err
	}
	var key int64
	if rx.Start = instant(e.StartedDateTime); !rx.Start.IsZero() {
		rx.End = rx.Start.Add(millis(e.Time))
		key = rx.End.UnixNano()
	}
	return rx, key, nil
}

// harHeader makes an http.Header of HAR's list; HTTP/2 pseudo-headers
// (":authority") are left out.
func harHeader(list []harNameValue) http.Header {
	h := make(http.Header, len(list))
	for _, nv := range list {
		if nv.Name != "" && !strings.HasPrefix(nv.Name, ":") {
			h.Add(nv.Name, nv.Value)
		}
	}
	return h
}

// requestBody sets the request's body from postData: its text (base64 when
// its encoding says so), else its params form-encoded.
func (e *harEntry) requestBody(rx *RecordedExchange) error {
	pd := e.Request.PostData
	if pd == nil {
		return nil
	}
	if len(e.Request.Headers) == 0 && pd.MimeType != "" {
		rx.ReqHeader.Set("Content-Type", pd.MimeType) // a tool that records no headers
	}
	if pd.Text == nil {
		if len(pd.Params) == 0 {
			return nil
		}
		form := make([]string, len(pd.Params))
		for i, p := range pd.Params {
			form[i] = url.QueryEscape(p.Name) + "=" + url.QueryEscape(p.Value)
		}
		rx.ReqBody, rx.ReqUnjudged = body([]byte(strings.Join(form, "&")))
		return nil
	}
	b, reason, err := harText(*pd.Text, pd.Encoding)
	if err != nil {
		return fmt.Errorf("request.postData.text: %w", err)
	}
	rx.ReqBody, rx.ReqUnjudged = b, reason
	return nil
}

// responseBody sets the answer's body from content: its text (base64 when
// its encoding says so). A HAR without the text of a non-empty body leaves
// the body unjudged.
func (e *harEntry) responseBody(rx *RecordedExchange) error {
	c := e.Response.Content
	if c == nil {
		c = &harContent{Size: e.Response.BodySize}
	}
	if len(e.Response.Headers) == 0 && c.MimeType != "" {
		rx.RespHeader.Set("Content-Type", c.MimeType) // a tool that records no headers
	}
	if c.Text == nil {
		if c.Size > 0 || e.Response.BodySize > 0 {
			rx.RespUnjudged = "the HAR file does not hold the answer's body (no response.content.text)"
		}
		return nil
	}
	b, reason, err := harText(*c.Text, c.Encoding)
	if err != nil {
		return fmt.Errorf("response.content.text: %w", err)
	}
	rx.RespBody, rx.RespUnjudged = b, reason
	return nil
}

// harText decodes a HAR body's text: as it is, or base64. A body over
// BodyLimit is not judged (and not decoded).
func harText(text, encoding string) ([]byte, string, error) {
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "":
		b, reason := body([]byte(text))
		return b, reason, nil
	case "base64":
		if base64.StdEncoding.DecodedLen(len(text)) > BodyLimit+3 {
			return nil, "the body is over 1 MiB", nil
		}
		clean := strings.Map(func(r rune) rune {
			if r == '\n' || r == '\r' || r == ' ' || r == '\t' {
				return -1
			}
			return r
		}, text)
		b, err := base64.StdEncoding.DecodeString(clean)
		if err != nil {
			if b, err = base64.RawStdEncoding.DecodeString(clean); err != nil {
				return nil, "", fmt.Errorf("not base64 (its encoding says base64): %w", err)
			}
		}
		b, reason := body(b)
		return b, reason, nil
	}
	return nil, "", fmt.Errorf("encoding %q: only base64 (or none) is read", encoding)
}

// scan is the first pass over a file: it tells the format, checks every
// entry and notes where each lies.
type scan struct {
	rc    *Recording
	src   io.ReaderAt
	size  int64
	in    *boundedReader
	dec   *json.Decoder
	keyed bool // every entry has an ordering key so far
}

// errEntryTooLarge is the bounded reader's refusal.
var errEntryTooLarge = fmt.Errorf("over %d MiB of JSON text (entries are read one at a time, each at most that long)", MaxRecordedEntry>>20)

// boundedReader fails a read past limit: the decoder never holds more than
// one value of MaxRecordedEntry bytes.
type boundedReader struct {
	r     io.Reader
	read  int64
	limit int64
}

func (b *boundedReader) Read(p []byte) (int, error) {
	room := b.limit - b.read
	if room <= 0 {
		return 0, errEntryTooLarge
	}
	if int64(len(p)) > room {
		p = p[:room]
	}
	n, err := b.r.Read(p)
	b.read += int64(n)
	return n, err
}

// reset starts reading the file from its beginning.
func (s *scan) reset() {
	s.in = &boundedReader{r: io.NewSectionReader(s.src, 0, s.size)}
	s.dec = json.NewDecoder(s.in)
}

// bound lets the decoder read one more value of at most MaxRecordedEntry.
func (s *scan) bound() { s.in.limit = s.dec.InputOffset() + MaxRecordedEntry }

func (s *scan) token() (json.Token, error) {
	s.bound()
	return s.dec.Token()
}

// fail is an error about entry n (0: the file as a whole).
func (s *scan) fail(n int, err error) error {
	return &InputError{File: s.rc.Name, Entry: n, Err: describe(err)}
}

// neither says the file is in neither format.
func (s *scan) neither(why string) error {
	return s.fail(0, errors.New("neither a request journal export (the JSON of GET /_sandbox/requests, or the lines of "+
		"pixsandbox requests --json) nor a HAR 1.2 file (log.entries): "+why))
}

// describe says what a decoding error means for the file.
func describe(err error) error {
	var se *json.SyntaxError
	switch {
	case errors.Is(err, errEntryTooLarge):
		return errEntryTooLarge
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return errors.New("the file ends inside it: truncated JSON")
	case errors.As(err, &se):
		return fmt.Errorf("not JSON at byte %d: %v", se.Offset, err)
	}
	return err
}

// run reads the file's first value and, by its shape, its entries.
func (s *scan) run() error {
	s.reset()
	tok, err := s.token()
	switch {
	case errors.Is(err, io.EOF):
		return s.fail(0, errors.New("the file is empty"))
	case err != nil:
		return s.neither(describe(err).Error())
	}
	switch tok {
	case json.Delim('['):
		s.rc.Format = FormatJournal
		if err := s.entries(); err != nil {
			return err
		}
		return s.end()
	case json.Delim('{'):
		return s.object()
	}
	return s.neither(fmt.Sprintf("it is the JSON value %v, not an object or a list", tok))
}

// object reads a top-level object: a journal answer ("data"), a HAR file
// ("log"), or the first of journal entries one per line.
func (s *scan) object() error {
	var method, path bool
	var enabled *bool
	for s.dec.More() {
		k, err := s.key()
		if err != nil {
			return err
		}
		switch k {
		case "log", "data":
			if s.rc.Format != "" {
				return s.neither(`it has both "log" and "data", or one of them twice`)
			}
			err = s.container(k)
		case "enabled":
			enabled = new(bool)
			s.bound()
			if err = s.dec.Decode(enabled); err != nil {
				err = s.fail(0, fmt.Errorf(`"enabled": %w`, describe(err)))
			}
		default:
			method, path = method || k == "method", path || k == "path"
			err = s.skip(k)
		}
		if err != nil {
			return err
		}
	}
	if err := s.close('}', "the top-level object"); err != nil {
		return err
	}
	switch {
	case s.rc.Format == "" && method && path:
		return s.lines()
	case s.rc.Format == "":
		return s.neither(`the top-level object has no "data" (a journal export), no "log" (a HAR file), and is not a journal entry (method, path)`)
	case enabled != nil && !*enabled && len(s.rc.spans) == 0:
		return s.fail(0, errors.New(`the journal export says "enabled": false: the simulator kept no request journal (serve --journal-size 0)`))
	}
	return s.end()
}

// container reads the value of "data" (a journal export's entries) or
// "log" (a HAR file's).
func (s *scan) container(k string) error {
	if k == "data" {
		if err := s.expect('[', `"data"`); err != nil {
			return err
		}
		s.rc.Format = FormatJournal
		return s.entries()
	}
	if err := s.expect('{', `"log"`); err != nil {
		return err
	}
	for s.dec.More() {
		k, err := s.key()
		if err != nil {
			return err
		}
		if k != "entries" || s.rc.Format != "" {
			if err := s.skip("log." + k); err != nil {
				return err
			}
			continue
		}
		if err := s.expect('[', `"log.entries"`); err != nil {
			return err
		}
		s.rc.Format = FormatHAR
		if err := s.entries(); err != nil {
			return err
		}
	}
	if err := s.close('}', `"log"`); err != nil {
		return err
	}
	if s.rc.Format != FormatHAR {
		return s.neither(`"log" has no "entries"`)
	}
	return nil
}

// key reads an object's next member name.
func (s *scan) key() (string, error) {
	tok, err := s.token()
	if err != nil {
		return "", s.fail(0, err)
	}
	k, _ := tok.(string)
	return k, nil
}

// skip reads past a member's value.
func (s *scan) skip(name string) error {
	s.bound()
	var raw json.RawMessage
	if err := s.dec.Decode(&raw); err != nil {
		return s.fail(0, fmt.Errorf("%s: %w", name, describe(err)))
	}
	return nil
}

// expect reads the opening delimiter of what's value.
func (s *scan) expect(d json.Delim, what string) error {
	tok, err := s.token()
	if err != nil {
		return s.fail(0, fmt.Errorf("%s: %w", what, describe(err)))
	}
	if tok != d {
		kind := "a list"
		if d == '{' {
			kind = "an object"
		}
		return s.neither(fmt.Sprintf("%s is %v, not %s", what, tok, kind))
	}
	return nil
}

// close reads the closing delimiter of what.
func (s *scan) close(d json.Delim, what string) error {
	tok, err := s.token()
	if err != nil {
		return s.fail(0, fmt.Errorf("after %d entries, before %s closes: %w", len(s.rc.spans), what, describe(err)))
	}
	if tok != d {
		return s.fail(0, fmt.Errorf("%s: %v where %v closes it", what, tok, d))
	}
	return nil
}

// end checks that nothing but space follows the file's value.
func (s *scan) end() error {
	tok, err := s.token()
	switch {
	case errors.Is(err, io.EOF):
		return nil
	case err != nil:
		return s.fail(0, fmt.Errorf("after the entries: %w", describe(err)))
	}
	return s.fail(0, fmt.Errorf("after the entries: more JSON (%v)", tok))
}

// entries reads the entries of a list up to its closing bracket.
func (s *scan) entries() error {
	for s.dec.More() {
		if err := s.entry(); err != nil {
			return err
		}
	}
	return s.close(']', "the list of entries")
}

// lines reads journal entries one per line (any JSON values one after the
// other) from the file's beginning.
func (s *scan) lines() error {
	s.rc.Format = FormatJournalLines
	s.reset()
	for {
		s.bound()
		if !s.dec.More() {
			return s.end()
		}
		if err := s.entry(); err != nil {
			return err
		}
	}
}

// entry reads the next entry, checks it and notes where it lies.
func (s *scan) entry() error {
	n := len(s.rc.spans) + 1
	if n > MaxRecordedEntries {
		return s.fail(n, fmt.Errorf("more than %d entries: split the file", MaxRecordedEntries))
	}
	s.bound()
	var raw json.RawMessage
	if err := s.dec.Decode(&raw); err != nil {
		return s.fail(n, err)
	}
	end := s.dec.InputOffset()
	rx, key, err := s.rc.exchange(raw, n)
	if err != nil {
		return err
	}
	if key <= 0 {
		s.keyed = false
	}
	sp := span{start: end - int64(len(raw)), end: end, pos: n, key: key}
	if !rx.Start.IsZero() {
		sp.from, sp.to = rx.Start.UnixNano(), rx.End.UnixNano()
	}
	s.rc.spans = append(s.rc.spans, sp)
	return nil
}
