//go:build faults

package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/faults"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// The self-check's faults of the HTTP layer (package faults), injected from
// outside the handlers when the Server is built: a Services that changes what
// the core is asked, route rows with a wrong status, and handlers whose answer
// is rewritten. Only the faults build has them (faults_off.go).

func init() {
	if faults.On(faults.ListingWindowDayPrecision) {
		// The listings measure the 31-day window to endDate's day, not its instant.
		listingWindowEnd = func(end time.Time) time.Time { return end.UTC().Truncate(24 * time.Hour) }
	}
}

// injectFaults installs the faults that are on.
func (s *Server) injectFaults() {
	s.svc = faultyServices{s.svc}
	s.wrapSvc = func(svc Services) Services { return faultyServices{svc} }
	for _, rt := range s.routes {
		if rt.Name == "cob.put" && faults.On(faults.CobStatus200) {
			rt.Success = http.StatusOK
		}
		if rt.Handle != nil {
			rt.Handle = rewriteAnswer(rt.Handle)
		}
	}
}

// faultyServices asks the core what the faults that are on would.
type faultyServices struct{ Services }

// ListTransactions drops the 1000-result cap of the listing by PIX key under
// KeyListingUncapped.
func (f faultyServices) ListTransactions(ctx context.Context, id pix.AccountID, filter pix.TransactionFilter) ([]pix.Transaction, int, error) {
	if faults.On(faults.KeyListingUncapped) {
		filter.MaxResults = 0
	}
	return f.Services.ListTransactions(ctx, id, filter)
}

// rewriteAnswer rewrites the bodies that the faults that are on get wrong.
func rewriteAnswer(h HandlerFunc) HandlerFunc {
	return func(r *http.Request) (any, error) {
		body, err := h(r)
		switch b := body.(type) {
		case TokenResponse:
			if faults.On(faults.TokenLifetime1799) {
				b.ExpiresIn--
				return b, err
			}
		case StandardBalance:
			if faults.On(faults.GrossIgnoresBlocked) {
				b.GrossBalance = b.NetBalance
				return b, err
			}
		case cashOutResponse:
			if faults.On(faults.CashOutNoGenerateTime) {
				return struct {
					TransactionID string `json:"transactionId"`
					ExternalID    string `json:"externalId"`
					Status        string `json:"status"`
				}{b.TransactionID, b.ExternalID, b.Status}, err
			}
		}
		return body, err
	}
}
