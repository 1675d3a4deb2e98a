package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

type medBank struct {
	ISPB string `json:"ispb"`
	Name string `json:"name"`
}

type medOriginal struct {
	Amount          brlNumber `json:"amount"`
	Type            string    `json:"type"`
	TransactionType string    `json:"transactionType"`
	Name            string    `json:"name"`
	Document        string    `json:"document"`
	DateTime        string    `json:"dateTime"`
}

// medItem is spec "Resources > MED".
type medItem struct {
	ID                    int64        `json:"id"`
	EndToEnd              string       `json:"endToEnd"`
	Status                string       `json:"status"`
	Reason                string       `json:"reason"`
	Cause                 *string      `json:"cause"`
	Description           *string      `json:"description"`
	AnalysisResult        *string      `json:"analysisResult"`
	AnalysisDetails       *string      `json:"analysisDetails"`
	RequestingBank        medBank      `json:"requestingBank"`
	ContestedBank         medBank      `json:"contestedBank"`
	OriginalTransaction   *medOriginal `json:"originalTransaction"`
	IsReconciled          bool         `json:"isReconciled"`
	OriginalTransactionID *int64       `json:"originalTransactionId"`
	CreatedAt             string       `json:"createdAt"`
	UpdatedAt             string       `json:"updatedAt"`
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func newMEDItem(m pix.MED) medItem {
	it := medItem{ID: m.ID, EndToEnd: m.EndToEnd, Status: string(m.Status), Reason: m.Reason, Cause: nullable(m.Cause),
		Description: nullable(m.Description), AnalysisResult: nullable(m.AnalysisResult), AnalysisDetails: nullable(m.AnalysisDetails),
		RequestingBank: medBank{ISPB: m.RequestingBank.ISPB, Name: m.RequestingBank.Name},
		ContestedBank:  medBank{ISPB: m.ContestedBank.ISPB, Name: m.ContestedBank.Name},
		IsReconciled:   m.IsReconciled, CreatedAt: formatTime(m.CreatedAt), UpdatedAt: formatTime(m.UpdatedAt)}
	if m.IsReconciled {
		id := m.OriginalTransactionID
		it.OriginalTransactionID = &id
	}
	if o := m.Original; o != nil {
		it.OriginalTransaction = &medOriginal{Amount: brlNumber(o.Amount), Type: o.Type, TransactionType: o.TransactionType,
			Name: o.Name, Document: pix.MaskDocument(o.Document), DateTime: formatTime(o.DateTime)}
	}
	return it
}

// handleMEDList handles "GET /api/med": filters status, isReconciled, startDate,
// endDate (ISO 8601 date or date-time; a date alone covers its whole UTC day),
// page ≥ 1 (default 1), pageSize 1..100 (default 20); 400 per invalid parameter;
// 429 above the account's rate (Gap G-52).
func (s *Server) handleMEDList(r *http.Request) (any, error) {
	q := r.URL.Query()
	f := pix.MEDFilter{Page: 1, Size: 20}
	var vs []pix.Violation
	if v := q.Get("status"); v != "" {
		f.Status = pix.MEDStatus(v)
		valid := false
		for _, st := range pix.MEDStatuses {
			valid = valid || st == f.Status
		}
		if !valid {
			vs = append(vs, pix.Violation{Field: "status", Message: "must be one of OPEN, RECEIVED, CANCELLED, ANALYZED"})
		}
	}
	if v := q.Get("isReconciled"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil || (v != "true" && v != "false") {
			vs = append(vs, pix.Violation{Field: "isReconciled", Message: "must be true or false"})
		}
		f.IsReconciled = &b
	}
	var err error
	if f.From, err = queryTime(q.Get("startDate"), false); err != nil {
		vs = append(vs, pix.Violation{Field: "startDate", Message: "must be an ISO 8601 date (2026-03-02) or date-time"})
	}
	if f.To, err = queryTime(q.Get("endDate"), true); err != nil {
		vs = append(vs, pix.Violation{Field: "endDate", Message: "must be an ISO 8601 date (2026-03-02) or date-time"})
	}
	if v := q.Get("page"); v != "" {
		if f.Page, err = strconv.Atoi(v); err != nil || f.Page < 1 {
			vs = append(vs, pix.Violation{Field: "page", Message: "must be a whole number, at least 1"})
		}
	}
	if v := q.Get("pageSize"); v != "" {
		if f.Size, err = strconv.Atoi(v); err != nil || f.Size < 1 || f.Size > 100 {
			vs = append(vs, pix.Violation{Field: "pageSize", Message: "must be a whole number from 1 to 100"})
		}
	}
	if len(vs) > 0 {
		return nil, pix.Invalid(pix.CodeInvalidRequest, vs...)
	}
	meds, total, err := s.svc.ListMEDs(r.Context(), accountOf(r), f)
	if err != nil {
		return nil, err
	}
	data := make([]medItem, len(meds))
	for i, m := range meds {
		data[i] = newMEDItem(m)
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
