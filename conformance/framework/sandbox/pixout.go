package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
)

// Control-plane routes of PIX out: webhook targets and deliveries,
// transactions, the DICT directory, banks and account settings.

// Header is one name and value pair, as the control plane lists headers.
type Header struct {
	// Key is the header name.
	Key string `json:"key"`
	// Value is the header value.
	Value string `json:"value"`
}

// WebhookTargetOptions describe a webhook target to register.
type WebhookTargetOptions struct {
	// AccountID is the account whose events are delivered.
	AccountID string
	// URL is where deliveries go.
	URL string
	// EventType is the registration event type: cash_in, cash_out, refund_in,
	// refund_out, med_created, med_accepted or med_rejected.
	EventType string
	// Headers are custom headers sent with every delivery.
	Headers []Header
	// Secret, when not empty, signs deliveries (Standard Webhooks, "whsec_"
	// followed by base64); see NewWebhookSecret.
	Secret string
}

// WebhookTarget is a registered webhook target.
type WebhookTarget struct {
	// ID is the target id.
	ID ID `json:"id"`
	// AccountID is the account whose events are delivered.
	AccountID ID `json:"accountId"`
	// URL is where deliveries go.
	URL string `json:"url"`
	// EventType is the registration event type.
	EventType string `json:"eventType"`
	// Headers are the custom headers.
	Headers []Header `json:"headers"`
	// Signed reports whether deliveries are signed.
	Signed bool `json:"signed"`
	// IsActive reports whether the target receives deliveries.
	IsActive bool `json:"isActive"`
}

// RegisterWebhookTarget registers a webhook target for an account
// (POST /_sandbox/webhook-targets).
func (s *Client) RegisterWebhookTarget(ctx context.Context, opts WebhookTargetOptions) (*WebhookTarget, error) {
	if _, err := strconv.ParseInt(opts.AccountID, 10, 64); err != nil {
		return nil, fmt.Errorf("RegisterWebhookTarget: account id %q is not a number", opts.AccountID)
	}
	body := map[string]any{
		"accountId": json.Number(opts.AccountID),
		"url":       opts.URL,
		"eventType": opts.EventType,
		"headers":   append([]Header{}, opts.Headers...),
	}
	if opts.Secret != "" {
		body["secret"] = opts.Secret
	}
	var t WebhookTarget
	if err := s.call(ctx, http.MethodPost, "/_sandbox/webhook-targets", body, http.StatusCreated, &t); err != nil {
		return nil, err
	}
	return &t, nil
}

// DeliveryQuery filters the delivery log; zero fields do not filter.
type DeliveryQuery struct {
	// AccountID keeps the deliveries of one account.
	AccountID string
	// TransactionID keeps the deliveries about one transaction (its numeric id).
	TransactionID string
	// Limit bounds how many deliveries are returned.
	Limit int
	// AfterAttempt, when set, keeps the deliveries with an attempt whose
	// webhookLogId is above it, oldest such attempt first (a cursor).
	AfterAttempt string
}

// DeliveryAttempt is one HTTP attempt of a webhook delivery.
type DeliveryAttempt struct {
	// WebhookLogID identifies the attempt.
	WebhookLogID ID `json:"webhookLogId"`
	// Number is the attempt's position, from 1.
	Number int `json:"number"`
	// SentAt is when the attempt was made (simulation time).
	SentAt string `json:"sentAt"`
	// URL is where it was sent.
	URL string `json:"url"`
	// RequestHeaders are the headers sent.
	RequestHeaders []Header `json:"requestHeaders"`
	// RequestBody is the body sent.
	RequestBody string `json:"requestBody"`
	// StatusCode is the status the target answered, 0 when none.
	StatusCode int `json:"statusCode"`
	// ResponseExcerpt is the beginning of the target's answer.
	ResponseExcerpt string `json:"responseExcerpt"`
	// Error describes a transport failure.
	Error string `json:"error"`
}

// WebhookDelivery is one event's delivery to one target, with its attempts.
type WebhookDelivery struct {
	// ID identifies the delivery.
	ID ID `json:"id"`
	// EventID is the event's id, sent as webhook-id on every attempt.
	EventID string `json:"eventId"`
	// EventType is the registration event type.
	EventType string `json:"eventType"`
	// AccountID is the account the event belongs to.
	AccountID ID `json:"accountId"`
	// TransactionID is the numeric id of the transaction the event is about.
	TransactionID ID `json:"transactionId"`
	// TargetID is the webhook target.
	TargetID ID `json:"targetId"`
	// URL is where the delivery goes.
	URL string `json:"url"`
	// Status is scheduled, delivered, retrying or failed.
	Status string `json:"status"`
	// NextAttemptAt is when the next attempt is due, while retrying.
	NextAttemptAt string `json:"nextAttemptAt"`
	// Attempts are the attempts made, in order.
	Attempts []DeliveryAttempt `json:"attempts"`
}

// Deliveries reads the webhook delivery log (GET /_sandbox/webhook-deliveries).
func (s *Client) Deliveries(ctx context.Context, q DeliveryQuery) ([]WebhookDelivery, error) {
	v := url.Values{}
	if q.AccountID != "" {
		v.Set("accountId", q.AccountID)
	}
	if q.TransactionID != "" {
		v.Set("transactionId", q.TransactionID)
	}
	if q.Limit > 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	if q.AfterAttempt != "" {
		v.Set("afterAttempt", q.AfterAttempt)
	}
	path := "/_sandbox/webhook-deliveries"
	if len(v) > 0 {
		path += "?" + v.Encode()
	}
	var out struct {
		Data []WebhookDelivery `json:"data"`
	}
	if err := s.call(ctx, http.MethodGet, path, nil, http.StatusOK, &out); err != nil {
		return nil, err
	}
	return out.Data, nil
}

// TransactionCounterpart is the other side of a transaction.
type TransactionCounterpart struct {
	// Name is the holder's name.
	Name string `json:"name"`
	// Document is the holder's document, masked.
	Document string `json:"document"`
	// ISPB is the holder's institution.
	ISPB string `json:"ispb"`
	// AccountID is the sandbox account on the other side, when there is one.
	AccountID ID `json:"accountId"`
}

// Transaction is a transaction as the control plane shows it.
type Transaction struct {
	// ID is the numeric id.
	ID ID `json:"id"`
	// TransactionID is the UUID.
	TransactionID string `json:"transactionId"`
	// AccountID is the account the transaction belongs to.
	AccountID ID `json:"accountId"`
	// Kind is the kind of transaction: CASH_OUT, TRANSFER, PIX_IN, CASH_IN or SPLIT.
	Kind string `json:"kind"`
	// Status is PENDING, CONFIRMED or ERROR.
	Status string `json:"status"`
	// Type is the DICT transfer's type: PENDING, COMPLETED or ERROR.
	Type string `json:"type"`
	// Amount is the amount, as decimal text.
	Amount json.Number `json:"amount"`
	// Fee is the fee, as decimal text.
	Fee json.Number `json:"fee"`
	// ExternalID is the cash-out's externalId.
	ExternalID string `json:"externalId"`
	// IdempotencyKey is the DICT transfer's x-idempotency-key.
	IdempotencyKey string `json:"idempotencyKey"`
	// EndToEndID is the end-to-end id, once settled.
	EndToEndID string `json:"endToEndId"`
	// PixKey is the destination key.
	PixKey string `json:"pixKey"`
	// Counterpart is the other side.
	Counterpart TransactionCounterpart `json:"counterpart"`
	// ErrorCode is the failure's errorCode.
	ErrorCode string `json:"errorCode"`
	// ErrorMessage is the failure's errorMessage.
	ErrorMessage string `json:"errorMessage"`
	// Scenario is the sandbox scenario the transaction carries.
	Scenario string `json:"scenario"`
	// Description is the transaction's description.
	Description string `json:"description"`
	// TxID is the txid of the charge the transaction belongs to or pays.
	TxID string `json:"txId"`
	// RelatedID is the number of a related transaction (a split's charge).
	RelatedID ID `json:"relatedId"`
	// CreatedAt is when the transaction was created (simulation time).
	CreatedAt string `json:"createdAt"`
	// ProcessedAt is when it reached its final status.
	ProcessedAt string `json:"processedAt"`
}

// Transaction reads a transaction by numeric id or UUID
// (GET /_sandbox/transactions/{id}).
func (s *Client) Transaction(ctx context.Context, id string) (*Transaction, error) {
	var t Transaction
	if err := s.call(ctx, http.MethodGet, "/_sandbox/transactions/"+url.PathEscape(id), nil, http.StatusOK, &t); err != nil {
		return nil, err
	}
	return &t, nil
}

// SettleTransaction forces a pending transaction to settle now
// (POST /_sandbox/transactions/{id}/settle).
func (s *Client) SettleTransaction(ctx context.Context, id string) (*Transaction, error) {
	var t Transaction
	if err := s.call(ctx, http.MethodPost, "/_sandbox/transactions/"+url.PathEscape(id)+"/settle", map[string]any{}, http.StatusOK, &t); err != nil {
		return nil, err
	}
	return &t, nil
}

// FailTransaction forces a pending transaction to fail now with errorCode
// (POST /_sandbox/transactions/{id}/fail {"errorCode":…}).
func (s *Client) FailTransaction(ctx context.Context, id, errorCode string) (*Transaction, error) {
	var t Transaction
	body := map[string]string{"errorCode": errorCode}
	if err := s.call(ctx, http.MethodPost, "/_sandbox/transactions/"+url.PathEscape(id)+"/fail", body, http.StatusOK, &t); err != nil {
		return nil, err
	}
	return &t, nil
}

// DictEntry is a key of the sandbox's DICT directory.
type DictEntry struct {
	// Key is the key.
	Key string `json:"key"`
	// Type is CPF, CNPJ, EMAIL, PHONE or EVP; empty lets the sandbox detect it.
	Type string `json:"type,omitempty"`
	// Name is the holder's name.
	Name string `json:"name"`
	// Document is the holder's CPF or CNPJ.
	Document string `json:"document"`
	// ISPB is the holder's institution.
	ISPB string `json:"ispb"`
	// BankName is the institution's name (read only).
	BankName string `json:"bankName,omitempty"`
	// BankCode is the institution's code (read only).
	BankCode string `json:"bankCode,omitempty"`
	// Branch is the holder's branch.
	Branch string `json:"branch,omitempty"`
	// AccountNumber is the holder's account number.
	AccountNumber string `json:"accountNumber,omitempty"`
	// AccountType is CACC, SVGS, TRAN…
	AccountType string `json:"accountType,omitempty"`
	// Scenario, when set, is the PIX-out scenario a payment to the key forces.
	Scenario string `json:"scenario,omitempty"`
	// AccountID is the sandbox account holding the key, when one does (read only).
	AccountID ID `json:"accountId,omitempty"`
}

// RegisterDictKey adds a key held outside the sandbox to its DICT directory
// (POST /_sandbox/dict/keys).
func (s *Client) RegisterDictKey(ctx context.Context, e DictEntry) (*DictEntry, error) {
	body := map[string]string{"key": e.Key, "name": e.Name, "document": e.Document, "ispb": e.ISPB}
	for k, v := range map[string]string{"type": e.Type, "branch": e.Branch, "accountNumber": e.AccountNumber,
		"accountType": e.AccountType, "scenario": e.Scenario} {
		if v != "" {
			body[k] = v
		}
	}
	var out DictEntry
	if err := s.call(ctx, http.MethodPost, "/_sandbox/dict/keys", body, http.StatusCreated, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// DictKey looks a key up in the sandbox's DICT directory
// (GET /_sandbox/dict/keys/{key}).
func (s *Client) DictKey(ctx context.Context, key string) (*DictEntry, error) {
	var out DictEntry
	if err := s.call(ctx, http.MethodGet, "/_sandbox/dict/keys/"+url.PathEscape(key), nil, http.StatusOK, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Bank is a PIX participant the sandbox knows.
type Bank struct {
	// ISPB identifies the participant.
	ISPB string `json:"ispb"`
	// Name is its name.
	Name string `json:"name"`
	// Code is its bank code; empty for participants without one.
	Code string `json:"code"`
}

// Banks lists the participants the sandbox knows, its own institution first
// (GET /_sandbox/banks).
func (s *Client) Banks(ctx context.Context) ([]Bank, error) {
	var out struct {
		Data []Bank `json:"data"`
	}
	if err := s.call(ctx, http.MethodGet, "/_sandbox/banks", nil, http.StatusOK, &out); err != nil {
		return nil, err
	}
	return out.Data, nil
}

// AccountSettings are an account's limits and fees, as decimal text (a limit
// of 0 means no limit), its provider minimum cash-in expiration, its split
// schedule and its GET /api/med rate limit.
type AccountSettings struct {
	// PerTransactionLimit bounds one cash-out's value.
	PerTransactionLimit json.Number `json:"perTransactionLimit"`
	// DailyLimit bounds the day's accumulated value (São Paulo day).
	DailyLimit json.Number `json:"dailyLimit"`
	// NightLimit bounds the night's accumulated value (20:00 to 06:00 São Paulo).
	NightLimit json.Number `json:"nightLimit"`
	// Fee is charged on each cash-out.
	Fee json.Number `json:"fee"`
	// CashInFee is charged on each PIX received.
	CashInFee json.Number `json:"cashInFee"`
	// MinExpirationTime is the provider minimum of a cash-in expirationTime,
	// in seconds.
	MinExpirationTime json.Number `json:"minExpirationTime"`
	// SplitSchedule is the cron spec on which non-immediate splits are paid.
	SplitSchedule string `json:"splitSchedule"`
	// MEDRateLimit is how many GET /api/med requests a minute of simulation
	// time the account may make before 429.
	MEDRateLimit json.Number `json:"medRateLimit"`
}

// SettingsUpdate names the settings to change; empty (zero) fields are left as
// they are. Money is decimal text with at most two places.
type SettingsUpdate struct {
	// PerTransactionLimit, when set, replaces the per-transaction limit.
	PerTransactionLimit string
	// DailyLimit, when set, replaces the daily limit.
	DailyLimit string
	// NightLimit, when set, replaces the night limit.
	NightLimit string
	// Fee, when set, replaces the cash-out fee.
	Fee string
	// CashInFee, when set, replaces the fee charged on each PIX received.
	CashInFee string
	// MinExpirationTime, when not zero, replaces the provider minimum of a
	// cash-in expirationTime, in seconds (30 to 604800).
	MinExpirationTime int64
	// SplitSchedule, when set, replaces the cron spec of non-immediate splits,
	// e.g. "CRON_TZ=UTC 30 14 * * *".
	SplitSchedule string
	// MEDRateLimit, when not zero, replaces how many GET /api/med requests a
	// minute of simulation time the account may make (1 to 100000).
	MEDRateLimit int
}

// Settings reads an account's settings (GET /_sandbox/accounts/{id}/settings).
func (s *Client) Settings(ctx context.Context, accountID string) (*AccountSettings, error) {
	var out AccountSettings
	if err := s.call(ctx, http.MethodGet, "/_sandbox/accounts/"+url.PathEscape(accountID)+"/settings", nil, http.StatusOK, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// PutSettings replaces the given settings of an account and returns them all
// (PUT /_sandbox/accounts/{id}/settings).
func (s *Client) PutSettings(ctx context.Context, accountID string, u SettingsUpdate) (*AccountSettings, error) {
	body := map[string]any{}
	for name, v := range map[string]string{"perTransactionLimit": u.PerTransactionLimit, "dailyLimit": u.DailyLimit,
		"nightLimit": u.NightLimit, "fee": u.Fee, "cashInFee": u.CashInFee} {
		if v == "" {
			continue
		}
		if _, err := apiclient.Cents(v); err != nil {
			return nil, fmt.Errorf("PutSettings: %s: %w", name, err)
		}
		body[name] = json.Number(v)
	}
	if u.MinExpirationTime != 0 {
		body["minExpirationTime"] = u.MinExpirationTime
	}
	if u.SplitSchedule != "" {
		body["splitSchedule"] = u.SplitSchedule
	}
	if u.MEDRateLimit != 0 {
		body["medRateLimit"] = u.MEDRateLimit
	}
	var out AccountSettings
	if err := s.call(ctx, http.MethodPut, "/_sandbox/accounts/"+url.PathEscape(accountID)+"/settings", body, http.StatusOK, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
