package httpapi

import (
	"net/http"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// balanceBacenResponse is spec "Resources > Balance (Central Bank-compatible)".
type balanceBacenResponse struct {
	Data []balanceBacenItem `json:"data"`
}

type balanceBacenItem struct {
	EventDate     string        `json:"eventDate"`
	BalanceAmount balanceAmount `json:"balanceAmount"`
}

type balanceAmount struct {
	Available brlNumber `json:"available"`
	Blocked   brlNumber `json:"blocked"`
	Overdraft brlNumber `json:"overdraft"` // not implemented: always 0
}

// StandardBalance is the standard balance (also shown by the control plane). Spec "Resources > Balance":
// grossBalance = available + blocked; blockedBalance = blocked; netBalance =
// available; consultedAt = eventDate. Gap G-08: the rest of its response is not
// shown, so it is exactly these four fields.
type StandardBalance struct {
	GrossBalance   brlNumber `json:"grossBalance"`
	BlockedBalance brlNumber `json:"blockedBalance"`
	NetBalance     brlNumber `json:"netBalance"`
	ConsultedAt    string    `json:"consultedAt"`
}

// handleBalanceBacen handles "GET /accounts/balances".
func (s *Server) handleBalanceBacen(r *http.Request) (any, error) {
	b, err := s.svcOf(r).AccountBalance(r.Context(), accountOf(r))
	if err != nil {
		return nil, err
	}
	return balanceBacenResponse{Data: []balanceBacenItem{{
		EventDate:     formatTime(b.At),
		BalanceAmount: balanceAmount{Available: brlNumber(b.Available), Blocked: brlNumber(b.Blocked)},
	}}}, nil
}

// handleBalanceStandard handles "GET /balance" and "GET /api/balance".
func (s *Server) handleBalanceStandard(r *http.Request) (any, error) {
	b, err := s.svcOf(r).AccountBalance(r.Context(), accountOf(r))
	if err != nil {
		return nil, err
	}
	return NewStandardBalance(b), nil
}

// NewStandardBalance renders a balance in the standard form.
func NewStandardBalance(b pix.BalanceReport) StandardBalance {
	return StandardBalance{GrossBalance: brlNumber(b.Gross()), BlockedBalance: brlNumber(b.Blocked),
		NetBalance: brlNumber(b.Available), ConsultedAt: formatTime(b.At)}
}
