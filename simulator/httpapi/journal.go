package httpapi

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/mux"

	"github.com/pixsandbox/pixsandbox/simulator/netfault"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// The request journal: the last N requests the server answered, in memory,
// with their bodies and secrets masked (GET/DELETE /_sandbox/requests,
// package sandboxapi). The wrapper records every routed request except the
// journal's own routes; the console's static files are not routed through it.

// maxJournalSize bounds the journal's capacity (and limit when it is off).
const maxJournalSize = 1_000_000

// journalBodyLimit is how much of a request or response body an entry keeps.
const journalBodyLimit = 16 << 10

// DefaultJournalBytes is the journal's default byte budget: the entries'
// text (headers, bodies, path and query) together; the oldest entries go
// first when a new one would pass it.
const DefaultJournalBytes = 16 << 20

// journalEntryOverhead is what an entry costs beyond its text.
const journalEntryOverhead = 512

// journalMask replaces a secret.
const journalMask = "***"

// journalRefKeys are the JSON keys whose values name a transaction: an entry
// lists them (and its path variables) in Refs, so the requests that touched a
// transaction can be found.
var journalRefKeys = map[string]bool{
	"transactionId": true, "endToEndId": true, "externalId": true, "txid": true, "txId": true,
	"providerTransactionId": true, "originalTransactionId": true, "rtrId": true,
}

// JournalEntry is one request the server answered.
type JournalEntry struct {
	ID        int64 // 1, 2, … in arrival order; restarts after DELETE only with the process
	RequestID string
	At        time.Time // simulation time the request arrived
	Method    string
	Path      string
	Query     string
	Route     string // the route template, "(unmatched)" when none
	Workspace string // the workspace it acted on ("" the default)
	Account   int64  // the authenticated account, or the account a control-plane path names; 0 none
	Status    int
	Duration  time.Duration // wall time to answer

	RequestHeaders                  map[string]string // masked
	RequestBody, ResponseBody       string            // masked, cut at journalBodyLimit
	RequestTruncated, RespTruncated bool
	ResponseContentType             string
	Refs                            []string
	// NearMiss, for a request no route matched, names the routes it came
	// closest to and what differs (nearmiss.go); recorded whatever the
	// answer (a 401 before the 404 included).
	NearMiss []NearMiss
	// Fault is the network fault applied to the request (Gap G-65; netfault's form,
	// "reset-after"), "" for none; FaultRule the rule's id, 0 when the
	// X-Sandbox-Fault header asked for it. With reset-after, Status and
	// ResponseBody are the answer the route made and the client never got.
	Fault     string
	FaultRule int64

	// What the request left: headers, path and query are copied, bounded
	// and masked when the request is recorded; the bodies are masked then
	// too (a scan, no decode) and kept as bytes. The refs are read only
	// when the journal is read (materialize), so serving a request costs no
	// JSON decode of its bodies.
	rawReq, rawRes []byte
	vars           map[string]string
	materialized   bool
	size           int // bytes counted against the journal's budget
}

// materialize masks the bodies and collects the refs, once.
func (e *JournalEntry) materialize() {
	if e.materialized {
		return
	}
	refs := map[string]bool{}
	for k, v := range e.vars {
		if k != "asset" && v != "" {
			refs[v] = true
		}
	}
	e.RequestBody = bodyRefs(e.rawReq, refs)
	e.ResponseBody = bodyRefs(e.rawRes, refs)
	for ref := range refs {
		e.Refs = append(e.Refs, ref)
	}
	sort.Strings(e.Refs)
	e.rawReq, e.rawRes, e.vars, e.materialized = nil, nil, nil, true
}

// Journal is the request journal: the last entries, at most cap of them and
// at most budget bytes of their text. The wrapper records into it; the
// control plane reads it (Query) and clears it. A nil *Journal is a journal
// that is off.
type Journal struct {
	mu     sync.Mutex
	cap    int
	budget int
	ring   []JournalEntry // a circular buffer, grown up to cap
	start  int            // index of the oldest entry
	n      int            // entries held
	bytes  int            // their sizes together
	seq    int64
}

// newJournal makes a journal of capacity entries and budget bytes (0: the
// default budget); nil when capacity is 0.
func newJournal(capacity, budget int) *Journal {
	if capacity <= 0 {
		return nil
	}
	if budget <= 0 {
		budget = DefaultJournalBytes
	}
	return &Journal{cap: min(capacity, maxJournalSize), budget: budget}
}

// at is the i-th entry held, the oldest first.
func (j *Journal) at(i int) *JournalEntry { return &j.ring[(j.start+i)%len(j.ring)] }

func (j *Journal) add(e JournalEntry) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.seq++
	e.ID = j.seq
	e.size = max(e.size, journalEntryOverhead)
	for j.n > 0 && (j.n == j.cap || j.bytes+e.size > j.budget) {
		old := j.at(0)
		j.bytes -= old.size
		*old = JournalEntry{}
		j.start = (j.start + 1) % len(j.ring)
		j.n--
	}
	if j.n == len(j.ring) {
		grown := make([]JournalEntry, min(max(2*len(j.ring), 16), j.cap))
		for i := range j.n {
			grown[i] = *j.at(i)
		}
		j.ring, j.start = grown, 0
	}
	*j.at(j.n) = e
	j.n++
	j.bytes += e.size
}

// Bytes is what the entries held count against the byte budget.
func (j *Journal) Bytes() int {
	if j == nil {
		return 0
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.bytes
}

// Len is how many entries the journal holds.
func (j *Journal) Len() int {
	if j == nil {
		return 0
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.n
}

// JournalSize is how many requests the request journal holds (0 when off).
func (s *Server) JournalSize() int { return s.journal.Len() }

// Journal is the server's request journal, nil when it is off.
func (s *Server) Journal() *Journal { return s.journal }

// Capacity is how many entries the journal keeps.
func (j *Journal) Capacity() int {
	if j == nil {
		return 0
	}
	return j.cap
}

// Clear drops the entries of workspace ws ("" the default) and returns how
// many there were; the other workspaces' stay.
func (j *Journal) Clear(ws string) int {
	if j == nil {
		return 0
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	var kept []JournalEntry
	bytes := 0
	for i := range j.n {
		if e := j.at(i); e.Workspace != ws {
			kept = append(kept, *e)
			bytes += e.size
		}
	}
	n := j.n - len(kept)
	j.ring, j.start, j.n, j.bytes = kept, 0, len(kept), bytes
	return n
}

// journalFilter selects entries; zero fields select everything.
type journalFilter struct {
	Account    int64
	PathPrefix string
	Status     int // an exact status, or 1..5 for a class (4 = 4xx)
	Since      time.Time
	After      int64    // entries with a greater ID only
	Workspace  string   // entries of this workspace only ("" the default)
	All        bool     // every workspace's entries (workspace=all, from the default)
	Refs       []string // entries naming any of them
	Matched    int8     // 1: requests a route matched only; -1: unmatched ones only
	Faulted    int8     // 1: requests a network fault was applied to only; -1: the others
	Limit      int
}

func (f journalFilter) match(e *JournalEntry) bool {
	switch {
	case !f.All && e.Workspace != f.Workspace,
		f.Account != 0 && e.Account != f.Account,
		f.PathPrefix != "" && !strings.HasPrefix(e.Path, f.PathPrefix),
		f.Status >= 100 && e.Status != f.Status,
		f.Status > 0 && f.Status < 10 && e.Status/100 != f.Status,
		!f.Since.IsZero() && e.At.Before(f.Since),
		e.ID <= f.After,
		f.Matched != 0 && (e.Route == unmatchedRoute) == (f.Matched > 0),
		f.Faulted != 0 && (e.Fault != "") != (f.Faulted > 0):
		return false
	}
	if len(f.Refs) > 0 {
		for _, r := range e.Refs {
			if slices.Contains(f.Refs, r) {
				return true
			}
		}
		return false
	}
	return true
}

// list returns the matching entries, newest first, at most f.Limit.
func (j *Journal) list(f journalFilter) []JournalEntry {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []JournalEntry
	for i := j.n - 1; i >= 0 && len(out) < f.Limit; i-- {
		e := j.at(i)
		e.materialize()
		if f.match(e) {
			out = append(out, *e)
		}
	}
	return out
}

// cappedBuffer keeps the first limit bytes written to it and counts the rest.
type cappedBuffer struct {
	buf       bytes.Buffer
	limit     int
	truncated bool
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	n := len(p)
	room := max(c.limit-c.buf.Len(), 0)
	if len(p) > room {
		c.truncated = true
		p = p[:room]
	}
	c.buf.Write(p)
	return n, nil
}

// journalRecording captures one request while it is served.
type journalRecording struct {
	workspace string // the workspace the request acted on ("" the default)
	start     time.Time
	at        time.Time
	req, res  cappedBuffer
}

// startJournal begins recording r: its body is copied as the handler reads it
// and the response body as the wrapper writes it. nil when the journal is off
// or the route is the journal's own.
func (s *Server) startJournal(rt *Route, r *http.Request, rec *statusRecorder, start time.Time) *journalRecording {
	if s.journal == nil || rt.NoJournal {
		return nil
	}
	var at time.Time
	if s.clock != nil {
		at = s.clock.Now()
	}
	jr := &journalRecording{start: start, at: at, req: cappedBuffer{limit: journalBodyLimit}, res: cappedBuffer{limit: journalBodyLimit}}
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.TeeReader(r.Body, &jr.req), r.Body}
	rec.capture = &jr.res
	return jr
}

// finishJournal adds the recorded request to the journal: a bounded copy of
// its headers, path and query, and its bodies as far as journalBodyLimit,
// secrets masked.
func (s *Server) finishJournal(jr *journalRecording, rt *Route, r *http.Request, rec *statusRecorder, d time.Duration, fault *netfault.Applied) {
	if jr == nil {
		return
	}
	e := JournalEntry{
		RequestID: requestID(r.Context()), At: jr.at, Method: r.Method, Path: cutText(r.URL.Path, journalURLLimit),
		Query: maskQuery(r.URL.RawQuery), Route: rt.Path, Account: int64(accountOf(r)), Status: rec.status, Duration: d,
		Workspace: jr.workspace, RequestTruncated: jr.req.truncated, RespTruncated: jr.res.truncated,
		ResponseContentType: rec.Header().Get("Content-Type"),
	}
	if rt.Path == unmatchedRoute {
		e.NearMiss = s.nearMissesOf(r)
	}
	if fault != nil {
		e.Fault, e.FaultRule = fault.Fault.String(), fault.Rule
	}
	var headerBytes int
	e.RequestHeaders, headerBytes = recordHeaders(r.Header)
	e.vars = mux.Vars(r)
	if e.Account == 0 && strings.HasPrefix(rt.Path, "/_sandbox/accounts/{id}") {
		e.Account, _ = strconv.ParseInt(e.vars["id"], 10, 64)
	}
	if e.Account == 0 {
		e.Account, _ = strconv.ParseInt(r.URL.Query().Get("accountId"), 10, 64)
	}
	// The buffers are this request's own.
	e.rawReq, e.rawRes = maskJSONText(jr.req.buf.Bytes()), maskJSONText(jr.res.buf.Bytes())
	if ct, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";"); strings.EqualFold(strings.TrimSpace(ct), "application/x-www-form-urlencoded") {
		e.rawReq = maskForm(e.rawReq)
	}
	e.size = journalEntryOverhead + headerBytes + len(e.Path) + len(e.Query) + cap(e.rawReq) + cap(e.rawRes) + len(e.RequestID) + len(e.ResponseContentType) + nearMissSize(e.NearMiss) + len(e.Fault)
	s.journal.add(e)
}

// bodyRefs returns a (masked) body as text and adds the values of
// journalRefKeys in it, when it is JSON, to refs.
func bodyRefs(b []byte, refs map[string]bool) string {
	if len(bytes.TrimSpace(b)) == 0 {
		return ""
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) == nil && !dec.More() {
		collectRefs(v, refs)
	}
	return string(b)
}

// collectRefs adds the values of journalRefKeys in v to refs.
func collectRefs(v any, refs map[string]bool) {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			if journalRefKeys[k] {
				switch ref := x.(type) {
				case string:
					if ref != "" {
						refs[ref] = true
					}
				case json.Number:
					refs[ref.String()] = true
				}
			}
			collectRefs(x, refs)
		}
	case []any:
		for _, x := range t {
			collectRefs(x, refs)
		}
	}
}

// Query returns the entries that the query of r selects (GET
// /_sandbox/requests: account, path, status, since, after, ref, matched, fault, limit), newest
// first; a journal that is off checks the query and returns none.
func (j *Journal) Query(r *http.Request) ([]JournalEntry, error) {
	capacity := maxJournalSize
	if j != nil {
		capacity = j.cap
	}
	f, err := journalQuery(r, capacity)
	if err != nil || j == nil {
		return nil, err
	}
	return j.list(f), nil
}

// journalQuery reads the filters of GET /_sandbox/requests.
func journalQuery(r *http.Request, capacity int) (journalFilter, error) {
	p := queryParams{q: r.URL.Query()}
	// A limit above what the journal keeps answers what it keeps (the
	// console asks for 200, pixsandbox requests for 50, the suite 1000).
	f := journalFilter{Limit: min(p.whole("limit", min(100, max(capacity, 1)), 1, maxJournalSize), max(capacity, 1)), PathPrefix: p.q.Get("path")}
	for _, ref := range p.q["ref"] {
		if ref != "" {
			f.Refs = append(f.Refs, ref)
		}
	}
	f.Account = int64(p.whole("account", 0, 1, 0))
	f.Workspace = pix.WorkspaceOf(r.Context())
	switch v := p.q.Get("workspace"); {
	case v == "":
	case v == "all" && f.Workspace == "":
		f.All = true
	case v == f.Workspace || (v == pix.DefaultWorkspace && f.Workspace == ""):
	default:
		p.vs = append(p.vs, pix.Violation{Field: "workspace", Message: `must be the workspace the request acts on, or "all" on the default's routes`})
	}
	f.After = int64(p.whole("after", 0, 0, 0))
	if v := p.q.Get("status"); v != "" {
		switch n, err := strconv.Atoi(v); {
		case len(v) == 3 && strings.HasSuffix(v, "xx") && v[0] >= '1' && v[0] <= '5':
			f.Status = int(v[0] - '0')
		case err == nil && n >= 100 && n <= 599 && strings.TrimLeft(v, "0123456789") == "":
			f.Status = n
		default:
			p.vs = append(p.vs, pix.Violation{Field: "status", Message: "must be an HTTP status (404) or a class (4xx)"})
		}
	}
	if v := p.q.Get("since"); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			p.vs = append(p.vs, pix.Violation{Field: "since", Message: "must be an RFC 3339 time on the simulation clock, e.g. 2026-03-02T12:00:00Z"})
		}
		f.Since = t
	}
	f.Matched = queryBool(&p, "matched")
	f.Faulted = queryBool(&p, "fault")
	if f.PathPrefix != "" && !strings.HasPrefix(f.PathPrefix, "/") {
		p.vs = append(p.vs, pix.Violation{Field: "path", Message: `must be a path prefix starting with "/", e.g. /api/pix`})
	}
	if len(p.vs) > 0 {
		return f, pix.Invalid(pix.CodeInvalidRequest, p.vs...)
	}
	return f, nil
}

// queryBool reads a filter of true or false: matched (true keeps the
// requests a route matched, false the unmatched ones, route "(unmatched)")
// or fault (true keeps the requests a network fault was applied to, false
// the others); 1 for true, -1 for false, 0 when absent.
func queryBool(p *queryParams, name string) int8 {
	switch p.q.Get(name) {
	case "":
		return 0
	case "true":
		return 1
	case "false":
		return -1
	}
	p.vs = append(p.vs, pix.Violation{Field: name, Message: "must be true or false"})
	return 0
}
