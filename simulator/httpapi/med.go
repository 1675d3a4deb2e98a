package httpapi

import (
	"net/http"
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
