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
