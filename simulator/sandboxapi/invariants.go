package sandboxapi

import (
	"net/http"

	"github.com/pixsandbox/pixsandbox/simulator/wire"
)

func (cp *ControlPlane) handleInvariants(r *http.Request) (any, error) {
	rep, err := cp.sb(r.Context()).CheckInvariants(r.Context())
	if err != nil {
		return nil, err
	}
	violations := rep.Violations
	if violations == nil {
		violations = []string{}
	}
	return map[string]any{
		"ok": len(rep.Violations) == 0, "checkedAt": wire.Time(rep.At), "accounts": rep.Accounts,
		"entries": rep.Entries, "transactions": rep.Transactions, "refunds": rep.Refunds,
		"moneyInside": wire.Money(rep.Inside), "world": wire.Money(rep.World), "violations": violations,
	}, nil
}
