package httpapi

import (
	"net/http"
	"net/url"
	"time"

	"github.com/gorilla/mux"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// listingItem is spec "Resources > Transaction listing item".
type listingItem struct {
	TransactionID  string         `json:"transactionId"`
	ExternalID     string         `json:"externalId"`
	Status         string         `json:"status"`
	OperationType  string         `json:"operationType"`
	MovementType   string         `json:"movementType"`
	OriginalAmount brlNumber      `json:"originalAmount"`
	FeeAmount      brlNumber      `json:"feeAmount"`
	FinalAmount    brlNumber      `json:"finalAmount"`
	EndToEndID     string         `json:"endToEndId"`
	CreatedAt      string         `json:"createdAt"`
	ProcessedAt    string         `json:"processedAt"`
	Counterpart    listingCounter `json:"counterpart"`
}

type listingCounter struct {
	Name     string      `json:"name"`
	Document string      `json:"document"`
	Bank     listingBank `json:"bank"`
}

type listingBank struct {
	BankISPB      string `json:"bankISPB"`
	BankName      string `json:"bankName"`
	BankCode      string `json:"bankCode"`
	AccountBranch string `json:"accountBranch"`
	AccountNumber string `json:"accountNumber"`
}

type listingEnvelope struct {
	Data     []listingItem   `json:"data"`
	Metadata listingMetadata `json:"metadata"`
}

type listingMetadata struct {
	Page        int  `json:"page"`
	Size        int  `json:"size"`
	Total       int  `json:"total"`
	TotalPages  int  `json:"totalPages"`
	HasNext     bool `json:"hasNext"`
	HasPrevious bool `json:"hasPrevious"`
}

func newListingItem(t pix.Transaction) listingItem {
	typ := t.Kind.ListingType()
	it := listingItem{TransactionID: itoa(t.ID), ExternalID: t.ExternalID, Status: t.Status.Label(), OperationType: typ.Label(),
		MovementType: typ.MovementType(), OriginalAmount: brlNumber(t.Amount), FeeAmount: brlNumber(t.Fee),
		FinalAmount: brlNumber(t.FinalAmount()), EndToEndID: t.EndToEndID, CreatedAt: formatTime(t.CreatedAt),
		Counterpart: listingCounter{Name: t.Counterpart.Name, Document: pix.MaskDocument(t.Counterpart.Document),
			Bank: listingBank{BankISPB: t.Counterpart.ISPB, BankName: t.Counterpart.BankName, BankCode: t.Counterpart.BankCode,
				AccountBranch: t.Counterpart.Branch, AccountNumber: t.Counterpart.AccountNumber}}}
	// Gap G-53: the spec types processedAt as an ISO 8601 string. While an
	// item is Pendente it carries createdAt, so a client that parses every
	// processedAt as a date-time never meets null, "" or a missing field.
	it.ProcessedAt = it.CreatedAt
	if !t.ProcessedAt.IsZero() {
		it.ProcessedAt = formatTime(t.ProcessedAt)
	}
	return it
}

// listingWindowEnd is the instant a listing's 31-day window is measured to,
// given endDate's: that instant itself (the faults build may replace it, see
// faults_on.go).
var listingWindowEnd = func(end time.Time) time.Time { return end }

// listingQuery reads the query of both listings. Dates are ISO 8601 dates (a
// date alone starts at 00:00 UTC; as endDate it covers its whole day) or
// date-times; the defaults are lookback before now and now (the current date:
// omitting endDate is measured like endDate=today); the interval between
// startDate and endDate's day may not exceed 31 days (Gap G-53).
func (s *Server) listingQuery(r *http.Request, q url.Values, maxSize int, lookback time.Duration) (pix.TransactionFilter, error) {
	p := &queryParams{q: q}
	f := pix.TransactionFilter{Page: p.whole("page", 1, 1, 0), Size: p.whole("size", pix.DefaultPageSize, 1, maxSize),
		Status: queryEnum(p, "status", pix.TxStatuses), Type: queryEnum(p, "type", pix.TxTypes)}
	now := s.nowOf(r)
	f.To, f.From = now, now.Add(-lookback)
	endDay := now.UTC().Truncate(24 * time.Hour) // endDate defaults to the current date
	if v := q.Get("endDate"); v != "" {
		if endDay = p.date("endDate", false); !endDay.IsZero() {
			endDay = listingWindowEnd(endDay)
			if f.To, _ = queryTime(v, true); q.Get("startDate") == "" {
				f.From = endDay.Add(-lookback)
			}
		}
	}
	if q.Get("startDate") != "" {
		f.From = p.date("startDate", false)
	}
	vs := p.vs
	if len(vs) == 0 {
		switch {
		case f.From.After(f.To):
			vs = append(vs, pix.Violation{Field: "startDate", Message: "must not be after endDate"})
		case endDay.Sub(f.From) > pix.MaxListingInterval:
			vs = append(vs, pix.Violation{Field: "endDate", Message: "must be at most 31 days after startDate: the interval between them may not exceed 31 days"})
		}
	}
	if len(vs) > 0 {
		return f, pix.Invalid(pix.CodeInvalidRequest, vs...)
	}
	return f, nil
}

func (s *Server) listing(r *http.Request, f pix.TransactionFilter) (any, error) {
	page, total, err := s.svcOf(r).ListTransactions(r.Context(), accountOf(r), f)
	if err != nil {
		return nil, err
	}
	out := listingEnvelope{Data: make([]listingItem, len(page))}
	for i, t := range page {
		out.Data[i] = newListingItem(t)
	}
	pages := (total + f.Size - 1) / f.Size
	out.Metadata = listingMetadata{Page: f.Page, Size: f.Size, Total: total, TotalPages: pages, HasNext: f.Page < pages, HasPrevious: f.Page > 1}
	return out, nil
}

// handleTransactionsList handles "GET /api/transactions".
func (s *Server) handleTransactionsList(r *http.Request) (any, error) {
	q := r.URL.Query()
	f, err := s.listingQuery(r, q, pix.MaxAccountPageSize, pix.DefaultAccountLookback)
	if err != nil {
		return nil, err
	}
	f.ExternalID, f.EndToEndID = q.Get("externalId"), q.Get("endToEndId")
	return s.listing(r, f)
}

// handleTransactionsByKey handles "GET /api/pix/transactions/pix-key/{pixKey}":
// the account's transactions with that key (PIX received at it, PIX sent to
// it), at most 1000 results in all. The key is matched on the decoded path, so
// a phone's + may be sent as is or as %2B (Gap G-54).
func (s *Server) handleTransactionsByKey(r *http.Request) (any, error) {
	f, err := s.listingQuery(r, r.URL.Query(), pix.MaxKeyPageSize, pix.DefaultKeyLookback)
	if err != nil {
		return nil, err
	}
	_, key, ok := pix.ParseDICTKey(mux.Vars(r)["pixKey"])
	if !ok {
		return nil, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "pixKey", Message: "must be a CPF, CNPJ, email, +55 phone or EVP key"})
	}
	f.PixKey, f.MaxResults = key, pix.MaxKeyResults
	return s.listing(r, f)
}
