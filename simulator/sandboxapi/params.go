package sandboxapi

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// accountIDQuery reads ?accountId=; required when asked.
func accountIDQuery(r *http.Request, required bool) (pix.AccountID, error) {
	v := r.URL.Query().Get("accountId")
	if v == "" {
		if required {
			return 0, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "accountId", Message: "is required as a query parameter"})
		}
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return 0, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "accountId", Message: "must be a positive account number"})
	}
	return pix.AccountID(n), nil
}

func accountIDVar(r *http.Request) (pix.AccountID, error) {
	n, err := strconv.ParseInt(mux.Vars(r)["id"], 10, 64)
	if err != nil || n <= 0 {
		return 0, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "id", Message: "must be a positive account number"})
	}
	return pix.AccountID(n), nil
}

func parseTime(s, field string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(s))
	if err != nil {
		return time.Time{}, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: field, Message: "must be an ISO 8601 date-time with a zone, e.g. 2026-03-02T12:00:00Z"})
	}
	return t.UTC(), nil
}

// text is an optional string field of a request body, "" when absent.
func text(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
