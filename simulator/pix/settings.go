package pix

import "time"

// Settings are an account's configurable behaviour.
type Settings struct {
	Limits Limits
	// Fee is charged on each cash-out (spec: available balance must cover amount
	// plus fee; feeAmount and finalAmount in the CashOut webhook).
	Fee Cents
	// CashInFee is charged on each PIX received (a paid charge or a PIX to a key),
	// capped at the amount received.
	CashInFee Cents
	// MinExpiration is the account provider's minimum cash-in expirationTime
	// (spec PROVIDER_EXPIRATION_BELOW_MINIMUM; Gap G-33). Zero means the default.
	MinExpiration time.Duration
	// SplitSchedule is the cron spec on which non-immediate splits are paid
	// (spec "splits[].immediate": false follows the account's configured
	// frequency; Gap G-34). Empty means the default.
	SplitSchedule string
	// MEDRateLimit is how many GET /api/med requests a minute of simulation time
	// the account may make before 429 (spec: a threshold exists, not shown; Gap
	// G-52). Zero means the default.
	MEDRateLimit int
	// CashInWebhook is the shape of the webhook of a cash-in charge (Gap
	// G-38): "" means the server's default.
	CashInWebhook CashInWebhook
}

// CashInWebhook is the shape of the cash_in webhook of a cash-in charge.
type CashInWebhook string

// Cash-in webhook shapes. Spec "Versioning": webhook payloads are the V2
// envelope, and "Balance effects": on a PIX in "a RECEIVE webhook with status
// LIQUIDATED is sent" (the default); the flat CashIn shape, mirroring the
// CashOut payload, is for integrations whose provider sends it.
const (
	CashInWebhookReceive CashInWebhook = "RECEIVE"
	CashInWebhookCashIn  CashInWebhook = "CashIn"
)

// Valid reports whether w is a known shape ("" is not).
func (w CashInWebhook) Valid() bool { return w == CashInWebhookReceive || w == CashInWebhookCashIn }

// defaultMEDRateLimit is the GET /api/med rate when settings leave it zero.
const defaultMEDRateLimit = 60

// EffectiveMEDRateLimit is the MED listing rate in force.
func (s Settings) EffectiveMEDRateLimit() int {
	if s.MEDRateLimit <= 0 {
		return defaultMEDRateLimit
	}
	return s.MEDRateLimit
}

// Defaults of the PIX-in settings (Gaps G-33, G-34).
const (
	defaultMinExpiration = MinCashInExpiration                   // the spec's floor of 30 s
	defaultSplitSchedule = "CRON_TZ=America/Sao_Paulo 0 * * * *" // at the top of every hour, São Paulo time
)

// EffectiveMinExpiration is the provider minimum in force.
func (s Settings) EffectiveMinExpiration() time.Duration {
	if s.MinExpiration <= 0 {
		return defaultMinExpiration
	}
	return s.MinExpiration
}

// EffectiveSplitSchedule is the split schedule in force.
func (s Settings) EffectiveSplitSchedule() string {
	if s.SplitSchedule == "" {
		return defaultSplitSchedule
	}
	return s.SplitSchedule
}

// DefaultSettings are the settings of an account with the given holder
// document (Gap G-24): R$ 100,000.00 per transaction, R$ 200,000.00 per day, no
// fee; individuals (CPF) have the Central Bank's R$ 1,000.00 night limit,
// companies (CNPJ) none.
func DefaultSettings(document string) Settings {
	s := Settings{Limits: Limits{PerTransaction: 100_000_00, Daily: 200_000_00}}
	if len(document) == 11 {
		s.Limits.Night = 1_000_00
	}
	return s
}
