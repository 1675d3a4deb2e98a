package httpapi

import (
	"net/http"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/wire"
)

// handleMEDList handles "GET /api/med": filters status, isReconciled, startDate,
// endDate (ISO 8601 date or date-time; a date alone covers its whole UTC day),
// page ≥ 1 (default 1), pageSize 1..100 (default 20); 400 per invalid parameter;
// 429 above the account's rate (Gap G-52).
func (s *Server) handleMEDList(r *http.Request) (any, error) {
	q := r.URL.Query()
	p := &queryParams{q: q}
	f := pix.MEDFilter{Status: queryEnum(p, "status", pix.MEDStatuses)}
	if v := q.Get("isReconciled"); v != "" {
		b := v == "true"
		if !b && v != "false" {
			p.vs = append(p.vs, pix.Violation{Field: "isReconciled", Message: "must be true or false"})
		}
		f.IsReconciled = &b
	}
	f.From, f.To = p.date("startDate", false), p.date("endDate", true)
	f.Page, f.Size = p.whole("page", 1, 1, 0), p.whole("pageSize", 20, 1, 100)
	if len(p.vs) > 0 {
		return nil, pix.Invalid(pix.CodeInvalidRequest, p.vs...)
	}
	meds, total, err := s.svcOf(r).ListMEDs(r.Context(), accountOf(r), f)
	if err != nil {
		return nil, err
	}
	data := make([]wire.MED, len(meds))
	for i, m := range meds {
		data[i] = wire.NewMED(m)
	}
	return map[string]any{"data": data, "metadata": map[string]int{"total": total, "page": f.Page, "pageSize": f.Size,
		"totalPages": (total + f.Size - 1) / f.Size}}, nil
}

// queryTime parses an ISO 8601 date or date-time query value; "" is zero. A date
// alone means the start of its UTC day, or with end its last instant.
func queryTime(v string, end bool) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse("2006-01-02", v); err == nil {
		if end {
			return t.Add(24*time.Hour - time.Nanosecond), nil
		}
		return t, nil
	}
	return time.Parse(time.RFC3339Nano, v)
}
