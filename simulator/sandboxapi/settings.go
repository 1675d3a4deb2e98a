package sandboxapi

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi"
	"github.com/pixsandbox/pixsandbox/simulator/httpapi/strictjson"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/wire"
)

// settingsDTO is an account's limits, fees, provider minimum expiration and
// split schedule; a limit of 0 means no limit.
type settingsDTO struct {
	PerTransaction    wire.Money `json:"perTransactionLimit"`
	Daily             wire.Money `json:"dailyLimit"`
	Night             wire.Money `json:"nightLimit"`
	Fee               wire.Money `json:"fee"`
	CashInFee         wire.Money `json:"cashInFee"`
	MinExpirationTime int64      `json:"minExpirationTime"`
	SplitSchedule     string     `json:"splitSchedule"`
	MEDRateLimit      int        `json:"medRateLimit"`
	// CashInWebhook is the shape of the account's cash-in charge webhooks:
	// RECEIVE, CashIn, or "default" (the server's --cash-in-webhook).
	CashInWebhook string `json:"cashInWebhook"`
}

func newSettingsDTO(st pix.Settings) settingsDTO {
	return settingsDTO{PerTransaction: wire.Money(st.Limits.PerTransaction), Daily: wire.Money(st.Limits.Daily),
		Night: wire.Money(st.Limits.Night), Fee: wire.Money(st.Fee), CashInFee: wire.Money(st.CashInFee),
		MinExpirationTime: int64(st.EffectiveMinExpiration().Seconds()), SplitSchedule: st.EffectiveSplitSchedule(),
		MEDRateLimit: st.EffectiveMEDRateLimit(), CashInWebhook: cashInWebhookName(st.CashInWebhook)}
}

// cashInWebhookName is a cash-in webhook setting as the control plane shows it.
func cashInWebhookName(w pix.CashInWebhook) string {
	if w == "" {
		return "default"
	}
	return string(w)
}

func (cp *ControlPlane) handleSettingsGet(r *http.Request) (any, error) {
	id, err := accountIDVar(r)
	if err != nil {
		return nil, err
	}
	st, err := cp.sb(r.Context()).AccountSettings(r.Context(), id)
	if err != nil {
		return nil, err
	}
	return newSettingsDTO(st), nil
}

// handleSettingsPut replaces the fields given and keeps the others.
func (cp *ControlPlane) handleSettingsPut(r *http.Request) (any, error) {
	id, err := accountIDVar(r)
	if err != nil {
		return nil, err
	}
	var req struct {
		PerTransaction    *strictjson.Number `json:"perTransactionLimit"`
		Daily             *strictjson.Number `json:"dailyLimit"`
		Night             *strictjson.Number `json:"nightLimit"`
		Fee               *strictjson.Number `json:"fee"`
		CashInFee         *strictjson.Number `json:"cashInFee"`
		MinExpirationTime *strictjson.Number `json:"minExpirationTime"`
		SplitSchedule     *string            `json:"splitSchedule"`
		MEDRateLimit      *strictjson.Number `json:"medRateLimit"`
		CashInWebhook     *string            `json:"cashInWebhook"`
	}
	if err := httpapi.DecodeSandboxJSON(r, &req); err != nil {
		return nil, err
	}
	st, err := cp.sb(r.Context()).AccountSettings(r.Context(), id)
	if err != nil {
		return nil, err
	}
	var vs []pix.Violation
	for _, f := range []struct {
		name string
		in   *strictjson.Number
		out  *pix.Cents
	}{{"perTransactionLimit", req.PerTransaction, &st.Limits.PerTransaction}, {"dailyLimit", req.Daily, &st.Limits.Daily},
		{"nightLimit", req.Night, &st.Limits.Night}, {"fee", req.Fee, &st.Fee}, {"cashInFee", req.CashInFee, &st.CashInFee}} {
		if f.in == nil {
			continue
		}
		c, err := pix.ParseDecimal(f.in.String())
		if err != nil {
			msg := "must be a non-negative amount with at most 2 decimals"
			if strings.HasSuffix(f.name, "Limit") {
				msg += " (0 means no limit)"
			}
			vs = append(vs, pix.Violation{Field: f.name, Message: msg})
			continue
		}
		*f.out = c
	}
	if req.MinExpirationTime != nil {
		n, err := strconv.ParseInt(req.MinExpirationTime.String(), 10, 64)
		if err != nil || !pix.ValidCashInExpirationSeconds(n) {
			vs = append(vs, pix.Violation{Field: "minExpirationTime", Message: "must be whole seconds from 30 to 604800"})
		} else {
			st.MinExpiration = time.Duration(n) * time.Second
		}
	}
	if req.SplitSchedule != nil {
		st.SplitSchedule = *req.SplitSchedule
	}
	if req.MEDRateLimit != nil {
		n, err := strconv.Atoi(req.MEDRateLimit.String())
		if err != nil || n < 1 || n > 100000 {
			vs = append(vs, pix.Violation{Field: "medRateLimit", Message: "must be a whole number of requests per minute from 1 to 100000"})
		} else {
			st.MEDRateLimit = n
		}
	}
	if req.CashInWebhook != nil {
		switch w := pix.CashInWebhook(*req.CashInWebhook); {
		case w.Valid():
			st.CashInWebhook = w
		case w == "default":
			st.CashInWebhook = ""
		default:
			vs = append(vs, pix.Violation{Field: "cashInWebhook", Message: `must be "RECEIVE" (V2 envelope), "CashIn" (flat payload) or "default" (the server's --cash-in-webhook)`})
		}
	}
	if len(vs) > 0 {
		return nil, pix.Invalid(pix.CodeInvalidRequest, vs...)
	}
	st, err = cp.sb(r.Context()).SetAccountSettings(r.Context(), id, st)
	if err != nil {
		return nil, err
	}
	return newSettingsDTO(st), nil
}
