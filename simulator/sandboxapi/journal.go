package sandboxapi

import (
	"net/http"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/wire"
)

// workspaceName is a workspace's id as the API spells it ("default" for "").
func workspaceName(id string) string {
	if id == "" {
		return pix.DefaultWorkspace
	}
	return id
}

type journalEntryDTO struct {
	ID                    int64             `json:"id"`
	RequestID             string            `json:"requestId"`
	Time                  string            `json:"time"`
	Method                string            `json:"method"`
	Path                  string            `json:"path"`
	Query                 string            `json:"query,omitempty"`
	Route                 string            `json:"route"`
	Workspace             string            `json:"workspace"`
	AccountID             *int64            `json:"accountId"`
	Status                int               `json:"status"`
	DurationMs            float64           `json:"durationMs"`
	RequestHeaders        map[string]string `json:"requestHeaders"`
	RequestBody           string            `json:"requestBody"`
	RequestBodyTruncated  bool              `json:"requestBodyTruncated,omitempty"`
	ResponseContentType   string            `json:"responseContentType,omitempty"`
	ResponseBody          string            `json:"responseBody"`
	ResponseBodyTruncated bool              `json:"responseBodyTruncated,omitempty"`
	Refs                  []string          `json:"refs"`
	NearMiss              []nearMissDTO     `json:"nearMiss,omitempty"`
	Fault                 *journalFaultDTO  `json:"fault,omitempty"`
}

// nearMissDTO is a route an unmatched request came close to.
type nearMissDTO struct {
	Method      string   `json:"method"`
	Route       string   `json:"route"`
	Differences []string `json:"differences"`
}

type journalListDTO struct {
	Enabled  bool              `json:"enabled"`
	Capacity int               `json:"capacity"`
	Size     int               `json:"size"`
	Data     []journalEntryDTO `json:"data"`
}

// handleRequestList serves GET /_sandbox/requests: the journal's
// entries, newest first, filtered by account, path prefix, status (404 or
// 4xx), since (simulation time), after (an entry id, for following), ref
// (a transaction identifier the request or its answer named), matched
// (false: the requests no route matched, each with its near misses) and
// fault (true: the requests a network fault was applied to).
func (cp *ControlPlane) handleRequestList(r *http.Request) (any, error) {
	out := journalListDTO{Data: []journalEntryDTO{}}
	j := cp.srv.Journal()
	entries, err := j.Query(r)
	if err != nil || j == nil {
		return out, err
	}
	out.Enabled, out.Capacity, out.Size = true, j.Capacity(), j.Len()
	for _, e := range entries {
		d := journalEntryDTO{ID: e.ID, RequestID: e.RequestID, Time: wire.Time(e.At), Method: e.Method,
			Path: e.Path, Query: e.Query, Route: e.Route, Workspace: workspaceName(e.Workspace), Status: e.Status, DurationMs: float64(e.Duration.Microseconds()) / 1000,
			RequestHeaders: e.RequestHeaders, RequestBody: e.RequestBody, RequestBodyTruncated: e.RequestTruncated,
			ResponseContentType: e.ResponseContentType, ResponseBody: e.ResponseBody, ResponseBodyTruncated: e.RespTruncated, Refs: e.Refs,
			Fault: newJournalFaultDTO(e)}
		if e.Account != 0 {
			id := e.Account
			d.AccountID = &id
		}
		if d.Refs == nil {
			d.Refs = []string{}
		}
		for _, m := range e.NearMiss {
			d.NearMiss = append(d.NearMiss, nearMissDTO{Method: m.Method, Route: m.Route, Differences: m.Differences})
		}
		out.Data = append(out.Data, d)
	}
	return out, nil
}

// handleRequestClear serves DELETE /_sandbox/requests.
func (cp *ControlPlane) handleRequestClear(r *http.Request) (any, error) {
	return map[string]int{"deleted": cp.srv.Journal().Clear(httpapi.WorkspaceOf(r))}, nil
}
