package pix

import (
	"time"
	_ "time/tzdata" // America/Sao_Paulo on machines without zoneinfo
)

// SaoPaulo is the time zone of the night window and of the daily limit's day.
var SaoPaulo = mustLoad("America/Sao_Paulo")

func mustLoad(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return loc
}

// Limits are an account's cash-out limits. Spec "Errors > Cash-out and cash-in
// codes": per-transaction, daily accumulated and night (20:00 to 06:00) limits
// exist; their values are not shown (Gap G-24). Zero means no limit.
type Limits struct {
	PerTransaction Cents
	Daily          Cents
	Night          Cents // accumulated within one night window
}

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

// IsNight reports whether t falls in the night window, 20:00 to 06:00 in
// America/Sao_Paulo (half-open: 20:00 is night, 06:00 is day).
func IsNight(t time.Time) bool {
	h := t.In(SaoPaulo).Hour()
	return h >= 20 || h < 6
}

// DayKey names the São Paulo calendar day of t, the period of the daily limit.
func DayKey(t time.Time) string { return t.In(SaoPaulo).Format("2006-01-02") }

// NightKey names the night window containing t by the date it started on; it is
// meaningful only when IsNight(t).
func NightKey(t time.Time) string {
	l := t.In(SaoPaulo)
	if l.Hour() < 6 {
		l = l.AddDate(0, 0, -1)
	}
	return l.Format("2006-01-02")
}
