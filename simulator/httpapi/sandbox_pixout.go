package httpapi

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

// Control plane for PIX out: transactions, the DICT directory, account limits
// and fee, webhook targets and deliveries.
func (s *Server) sandboxPixOutRoutes() []*Route {
	return []*Route{
		{Name: "sandbox.transactions.get", Method: http.MethodGet, Path: "/_sandbox/transactions/{id}", Success: http.StatusOK, Handle: s.handleSandboxTransactionGet},
		{Name: "sandbox.transactions.settle", Method: http.MethodPost, Path: "/_sandbox/transactions/{id}/settle", Success: http.StatusOK, Handle: s.handleSandboxTransactionSettle},
		{Name: "sandbox.transactions.fail", Method: http.MethodPost, Path: "/_sandbox/transactions/{id}/fail", Success: http.StatusOK, Handle: s.handleSandboxTransactionFail},
		{Name: "sandbox.dict.create", Method: http.MethodPost, Path: "/_sandbox/dict/keys", Success: http.StatusCreated, Handle: s.handleSandboxDictCreate},
		{Name: "sandbox.dict.get", Method: http.MethodGet, Path: "/_sandbox/dict/keys/{key}", Success: http.StatusOK, Handle: s.handleSandboxDictGet},
		{Name: "sandbox.banks.list", Method: http.MethodGet, Path: "/_sandbox/banks", Success: http.StatusOK, Handle: s.handleSandboxBanks},
		{Name: "sandbox.settings.get", Method: http.MethodGet, Path: "/_sandbox/accounts/{id}/settings", Success: http.StatusOK, Handle: s.handleSandboxSettingsGet},
		{Name: "sandbox.settings.put", Method: http.MethodPut, Path: "/_sandbox/accounts/{id}/settings", Success: http.StatusOK, Handle: s.handleSandboxSettingsPut},
		{Name: "sandbox.webhooktargets.create", Method: http.MethodPost, Path: "/_sandbox/webhook-targets", Success: http.StatusCreated, Handle: s.handleSandboxTargetCreate},
		{Name: "sandbox.webhooktargets.list", Method: http.MethodGet, Path: "/_sandbox/webhook-targets", Success: http.StatusOK, Handle: s.handleSandboxTargetList},
		{Name: "sandbox.webhooktargets.delete", Method: http.MethodDelete, Path: "/_sandbox/webhook-targets/{id}", Success: http.StatusOK, Handle: s.handleSandboxTargetDelete},
		{Name: "sandbox.webhookdeliveries.list", Method: http.MethodGet, Path: "/_sandbox/webhook-deliveries", Success: http.StatusOK, Handle: s.handleSandboxDeliveries},
	}
}

type counterpartDTO struct {
	Name          string `json:"name"`
	Document      string `json:"document"`
	ISPB          string `json:"ispb"`
	BankName      string `json:"bankName"`
	BankCode      string `json:"bankCode"`
	Branch        string `json:"branch,omitempty"`
	AccountNumber string `json:"accountNumber,omitempty"`
	AccountID     int64  `json:"accountId,omitempty"`
}

// transactionDTO is a transaction as the control plane shows it (polling until
// the transaction listings exist).
type transactionDTO struct {
	ID             int64          `json:"id"`
	TransactionID  string         `json:"transactionId"`
	AccountID      int64          `json:"accountId"`
	Kind           string         `json:"kind"`
	Status         string         `json:"status"`
	Type           string         `json:"type,omitempty"` // DICT transfers: PENDING, COMPLETED, ERROR
	Amount         brlNumber      `json:"amount"`
	Fee            brlNumber      `json:"fee"`
	ExternalID     string         `json:"externalId,omitempty"`
	IdempotencyKey string         `json:"idempotencyKey,omitempty"`
	EndToEndID     string         `json:"endToEndId,omitempty"`
	PixKey         string         `json:"pixKey,omitempty"`
	Description    string         `json:"description,omitempty"`
	Counterpart    counterpartDTO `json:"counterpart"`
	CreatedAt      string         `json:"createdAt"`
	ProcessedAt    string         `json:"processedAt,omitempty"`
	ErrorCode      string         `json:"errorCode,omitempty"`
	ErrorMessage   string         `json:"errorMessage,omitempty"`
	Scenario       string         `json:"scenario,omitempty"`
	RelatedID      int64          `json:"relatedId,omitempty"`
	TxID           string         `json:"txId,omitempty"`
}

func newTransactionDTO(t pix.Transaction) transactionDTO {
	d := transactionDTO{
		ID: t.ID, TransactionID: t.UUID, AccountID: int64(t.AccountID), Kind: string(t.Kind), Status: string(t.Status),
		Amount: brlNumber(t.Amount), Fee: brlNumber(t.Fee), ExternalID: t.ExternalID, IdempotencyKey: t.IdempotencyKey,
		EndToEndID: t.EndToEndID, PixKey: t.PixKey, Description: t.Description,
		Counterpart: counterpartDTO{Name: t.Counterpart.Name, Document: pix.MaskDocument(t.Counterpart.Document), ISPB: t.Counterpart.ISPB,
			BankName: t.Counterpart.BankName, BankCode: t.Counterpart.BankCode, Branch: t.Counterpart.Branch,
			AccountNumber: t.Counterpart.AccountNumber, AccountID: int64(t.Counterpart.AccountID)},
		CreatedAt: formatTime(t.CreatedAt), ErrorCode: string(t.ErrorCode), ErrorMessage: t.ErrorMessage,
		Scenario: t.Scenario, RelatedID: t.RelatedID, TxID: t.TxID,
	}
	if t.Kind == pix.TxTransfer {
		d.Type = t.Status.TransferType()
	}
	if !t.ProcessedAt.IsZero() {
		d.ProcessedAt = formatTime(t.ProcessedAt)
	}
	return d
}

// chargeDTO is a cash-in charge's own state, shown with its transaction.
type chargeDTO struct {
	CorrelationID  string            `json:"correlationId"`
	TxID           string            `json:"txId"`
	PixCode        string            `json:"pixCode"`
	ExpirationDate string            `json:"expirationDate"`
	RefusedAt      string            `json:"refusedPaymentAt,omitempty"`
	AdditionalInfo map[string]string `json:"additionalInfo,omitempty"`
	Splits         int               `json:"splits"`
}

func (s *Server) handleSandboxTransactionGet(r *http.Request) (any, error) {
	t, err := s.sandbox.Transaction(r.Context(), mux.Vars(r)["id"])
	if err != nil {
		return nil, err
	}
	if t.Kind != pix.TxCashIn {
		return newTransactionDTO(t), nil
	}
	ch, err := s.sandbox.CashInCharge(r.Context(), t.ID)
	if err != nil {
		return nil, err
	}
	c := chargeDTO{CorrelationID: ch.CorrelationID, TxID: ch.TxID, PixCode: ch.PixCode, ExpirationDate: formatTime(ch.ExpiresAt),
		AdditionalInfo: ch.AdditionalInfo, Splits: len(ch.Splits)}
	if !ch.RefusedAt.IsZero() {
		c.RefusedAt = formatTime(ch.RefusedAt)
	}
	return struct {
		transactionDTO
		Charge chargeDTO `json:"charge"`
	}{newTransactionDTO(t), c}, nil
}

func (s *Server) handleSandboxTransactionSettle(r *http.Request) (any, error) {
	t, err := s.sandbox.SettleTransaction(r.Context(), mux.Vars(r)["id"])
	if err != nil {
		return nil, err
	}
	return newTransactionDTO(t), nil
}

func (s *Server) handleSandboxTransactionFail(r *http.Request) (any, error) {
	var req struct {
		ErrorCode *string `json:"errorCode"`
	}
	if err := decodeSandboxJSON(r, &req); err != nil {
		return nil, err
	}
	if req.ErrorCode == nil {
		return nil, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "errorCode", Message: "is required: one of the spec's webhook errorCodes"})
	}
	t, err := s.sandbox.FailTransaction(r.Context(), mux.Vars(r)["id"], pix.Code(*req.ErrorCode))
	if err != nil {
		return nil, err
	}
	return newTransactionDTO(t), nil
}

type dictEntryDTO struct {
	Key           string `json:"key"`
	Type          string `json:"type"`
	Name          string `json:"name"`
	Document      string `json:"document"`
	ISPB          string `json:"ispb"`
	BankName      string `json:"bankName"`
	BankCode      string `json:"bankCode"`
	Branch        string `json:"branch"`
	AccountNumber string `json:"accountNumber"`
	AccountType   string `json:"accountType"`
	Scenario      string `json:"scenario,omitempty"`
	AccountID     int64  `json:"accountId,omitempty"`
}

func newDictEntryDTO(e pix.DictEntry) dictEntryDTO {
	return dictEntryDTO{Key: e.Key, Type: string(e.Type), Name: e.Name, Document: e.Document, ISPB: e.ISPB, BankName: e.BankName,
		BankCode: e.BankCode, Branch: e.Branch, AccountNumber: e.AccountNumber, AccountType: e.AccountType,
		Scenario: e.Scenario, AccountID: int64(e.AccountID)}
}

func (s *Server) handleSandboxDictCreate(r *http.Request) (any, error) {
	var req struct {
		Key, Type, Name, Document, ISPB, Branch, AccountNumber, AccountType, Scenario *string
	}
	if err := decodeSandboxJSON(r, &req); err != nil {
		return nil, err
	}
	v := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	e, err := s.sandbox.RegisterDictKey(r.Context(), pix.DictEntry{Key: v(req.Key), Type: pix.KeyType(v(req.Type)), Name: v(req.Name),
		Document: v(req.Document), ISPB: v(req.ISPB), Branch: v(req.Branch), AccountNumber: v(req.AccountNumber),
		AccountType: v(req.AccountType), Scenario: v(req.Scenario)})
	if err != nil {
		return nil, err
	}
	return newDictEntryDTO(e), nil
}

func (s *Server) handleSandboxDictGet(r *http.Request) (any, error) {
	e, err := s.sandbox.DictKey(r.Context(), mux.Vars(r)["key"])
	if err != nil {
		return nil, err
	}
	return newDictEntryDTO(e), nil
}

func (s *Server) handleSandboxBanks(*http.Request) (any, error) {
	type bankDTO struct {
		ISPB string `json:"ispb"`
		Name string `json:"name"`
		Code string `json:"code"`
	}
	var out []bankDTO
	for _, b := range s.sandbox.Banks() {
		out = append(out, bankDTO{ISPB: b.ISPB, Name: b.Name, Code: b.Code})
	}
	return map[string]any{"data": out}, nil
}

// settingsDTO is an account's limits, fees, provider minimum expiration and
// split schedule; a limit of 0 means no limit.
type settingsDTO struct {
	PerTransaction    brlNumber `json:"perTransactionLimit"`
	Daily             brlNumber `json:"dailyLimit"`
	Night             brlNumber `json:"nightLimit"`
	Fee               brlNumber `json:"fee"`
	CashInFee         brlNumber `json:"cashInFee"`
	MinExpirationTime int64     `json:"minExpirationTime"`
	SplitSchedule     string    `json:"splitSchedule"`
	MEDRateLimit      int       `json:"medRateLimit"`
	// CashInWebhook is the shape of the account's cash-in charge webhooks:
	// RECEIVE, CashIn, or "default" (the server's --cash-in-webhook).
	CashInWebhook string `json:"cashInWebhook"`
}

func newSettingsDTO(st pix.Settings) settingsDTO {
	return settingsDTO{PerTransaction: brlNumber(st.Limits.PerTransaction), Daily: brlNumber(st.Limits.Daily),
		Night: brlNumber(st.Limits.Night), Fee: brlNumber(st.Fee), CashInFee: brlNumber(st.CashInFee),
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

func (s *Server) handleSandboxSettingsGet(r *http.Request) (any, error) {
	id, err := accountIDVar(r)
	if err != nil {
		return nil, err
	}
	st, err := s.sandbox.AccountSettings(r.Context(), id)
	if err != nil {
		return nil, err
	}
	return newSettingsDTO(st), nil
}

// handleSandboxSettingsPut replaces the fields given and keeps the others.
func (s *Server) handleSandboxSettingsPut(r *http.Request) (any, error) {
	id, err := accountIDVar(r)
	if err != nil {
		return nil, err
	}
	var req struct {
		PerTransaction    *Number `json:"perTransactionLimit"`
		Daily             *Number `json:"dailyLimit"`
		Night             *Number `json:"nightLimit"`
		Fee               *Number `json:"fee"`
		CashInFee         *Number `json:"cashInFee"`
		MinExpirationTime *Number `json:"minExpirationTime"`
		SplitSchedule     *string `json:"splitSchedule"`
		MEDRateLimit      *Number `json:"medRateLimit"`
		CashInWebhook     *string `json:"cashInWebhook"`
	}
	if err := decodeSandboxJSON(r, &req); err != nil {
		return nil, err
	}
	st, err := s.sandbox.AccountSettings(r.Context(), id)
	if err != nil {
		return nil, err
	}
	var vs []pix.Violation
	for _, f := range []struct {
		name string
		in   *Number
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
		if err != nil || n < 30 || n > 604800 {
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
	st, err = s.sandbox.SetAccountSettings(r.Context(), id, st)
	if err != nil {
		return nil, err
	}
	return newSettingsDTO(st), nil
}

type headerDTO struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

type targetDTO struct {
	ID        int64       `json:"id"`
	AccountID int64       `json:"accountId"`
	URL       string      `json:"url"`
	EventType string      `json:"eventType"`
	Headers   []headerDTO `json:"headers"`
	Signed    bool        `json:"signed"`
	IsActive  bool        `json:"isActive"`
	CreatedAt string      `json:"createdAt"`
}

func newTargetDTO(t webhook.Target) targetDTO {
	hs := make([]headerDTO, len(t.Headers))
	for i, h := range t.Headers {
		hs[i] = headerDTO{Key: h.Key, Value: h.Value}
	}
	return targetDTO{ID: t.ID, AccountID: t.AccountID, URL: t.URL, EventType: t.EventType, Headers: hs,
		Signed: t.Secret != "", IsActive: t.Active, CreatedAt: formatTime(t.CreatedAt)}
}

// handleSandboxTargetCreate registers a webhook target in the intended shape of
// spec "POST /api/webhooks" plus the account and an optional signing secret.
func (s *Server) handleSandboxTargetCreate(r *http.Request) (any, error) {
	var req struct {
		AccountID *int64      `json:"accountId"`
		URL       *string     `json:"url"`
		EventType *string     `json:"eventType"`
		Headers   []headerDTO `json:"headers"`
		Secret    *string     `json:"secret"`
	}
	if err := decodeSandboxJSON(r, &req); err != nil {
		return nil, err
	}
	if req.AccountID == nil {
		return nil, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "accountId", Message: "is required"})
	}
	t := webhook.Target{AccountID: *req.AccountID, Active: true}
	if req.URL != nil {
		t.URL = *req.URL
	}
	if req.EventType != nil {
		t.EventType = *req.EventType
	}
	if req.Secret != nil {
		t.Secret = *req.Secret
	}
	for _, h := range req.Headers {
		t.Headers = append(t.Headers, webhook.Header{Key: h.Key, Value: h.Value})
	}
	out, _, err := s.sandbox.RegisterWebhookTarget(r.Context(), t, false)
	if err != nil {
		return nil, err
	}
	return newTargetDTO(out), nil
}

func (s *Server) handleSandboxTargetList(r *http.Request) (any, error) {
	id, err := accountIDQuery(r, true)
	if err != nil {
		return nil, err
	}
	ts, err := s.sandbox.WebhookTargets(r.Context(), id)
	if err != nil {
		return nil, err
	}
	out := make([]targetDTO, len(ts))
	for i, t := range ts {
		out[i] = newTargetDTO(t)
	}
	return map[string]any{"data": out}, nil
}

func (s *Server) handleSandboxTargetDelete(r *http.Request) (any, error) {
	n, err := strconv.ParseInt(mux.Vars(r)["id"], 10, 64)
	if err != nil || n <= 0 {
		return nil, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "id", Message: "must be a positive number"})
	}
	if err := s.sandbox.DeleteWebhookTarget(r.Context(), n); err != nil {
		return nil, err
	}
	return map[string]any{"deleted": n}, nil
}

type attemptDTO struct {
	WebhookLogID    int64       `json:"webhookLogId"`
	Number          int         `json:"number"`
	SentAt          string      `json:"sentAt"`
	URL             string      `json:"url"`
	RequestHeaders  []headerDTO `json:"requestHeaders"`
	RequestBody     string      `json:"requestBody"`
	StatusCode      int         `json:"statusCode"`
	ResponseExcerpt string      `json:"responseExcerpt"`
	Error           string      `json:"error,omitempty"`
	DurationMs      float64     `json:"durationMs"`
}

type deliveryDTO struct {
	ID            string       `json:"id"`
	EventID       string       `json:"eventId"`
	EventType     string       `json:"eventType"`
	AccountID     int64        `json:"accountId"`
	TransactionID int64        `json:"transactionId"`
	TargetID      int64        `json:"targetId"`
	URL           string       `json:"url"`
	Status        string       `json:"status"`
	NextAttemptAt string       `json:"nextAttemptAt,omitempty"`
	CreatedAt     string       `json:"createdAt"`
	Attempts      []attemptDTO `json:"attempts"`
}

func (s *Server) handleSandboxDeliveries(r *http.Request) (any, error) {
	acct, err := accountIDQuery(r, false)
	if err != nil {
		return nil, err
	}
	var txID int64
	if v := r.URL.Query().Get("transactionId"); v != "" {
		if txID, err = strconv.ParseInt(v, 10, 64); err != nil || txID <= 0 {
			return nil, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "transactionId", Message: "must be a positive number"})
		}
	}
	limit := 100
	if v := r.URL.Query().Get("limit"); v != "" {
		if limit, err = strconv.Atoi(v); err != nil || limit < 1 || limit > 1000 {
			return nil, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "limit", Message: "must be 1 to 1000"})
		}
	}
	var ds []webhook.Delivery
	if v := r.URL.Query().Get("afterAttempt"); v != "" {
		after, err := strconv.ParseInt(v, 10, 64)
		switch {
		case err != nil || after < 0:
			return nil, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "afterAttempt", Message: "must be a webhookLogId: a number, 0 or more"})
		case txID != 0:
			return nil, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "afterAttempt", Message: "cannot be combined with transactionId"})
		}
		ds, err = s.sandbox.WebhookDeliveriesAfterAttempt(r.Context(), acct, after, limit)
		if err != nil {
			return nil, err
		}
	} else if ds, err = s.sandbox.WebhookDeliveries(r.Context(), acct, txID, limit); err != nil {
		return nil, err
	}
	out := make([]deliveryDTO, len(ds))
	for i, d := range ds {
		dto := deliveryDTO{ID: d.ID, EventID: d.EventID, EventType: d.EventType, AccountID: d.AccountID, TransactionID: d.TransactionID,
			TargetID: d.TargetID, URL: d.URL, Status: string(d.Status), CreatedAt: formatTime(d.CreatedAt), Attempts: []attemptDTO{}}
		if d.Status == webhook.StatusRetrying {
			dto.NextAttemptAt = formatTime(d.NextAttemptAt)
		}
		for _, a := range d.Attempts {
			hs := make([]headerDTO, len(a.RequestHeaders))
			for j, h := range a.RequestHeaders {
				hs[j] = headerDTO{Key: h.Key, Value: h.Value}
				if strings.EqualFold(h.Key, "webhook-signature") {
					hs[j].Value = h.Value // signatures are not secrets
				}
			}
			dto.Attempts = append(dto.Attempts, attemptDTO{WebhookLogID: a.ID, Number: a.Number, SentAt: formatTime(a.SentAt), URL: a.URL,
				RequestHeaders: hs, RequestBody: a.RequestBody, StatusCode: a.StatusCode, ResponseExcerpt: a.ResponseExcerpt,
				Error: a.Error, DurationMs: float64(a.Duration.Microseconds()) / 1000})
		}
		out[i] = dto
	}
	return map[string]any{"data": out}, nil
}

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
