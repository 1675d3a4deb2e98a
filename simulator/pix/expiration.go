package pix

// ValidCashInExpirationSeconds reports whether n seconds is a cash-in charge
// expiration the spec allows: a whole number of seconds from 30
// (MinCashInExpiration) to 604800 (MaxCashInExpiration, 7 days). It is the
// rule of a charge's expirationTime and of an account's provider minimum
// (the control plane's minExpirationTime).
func ValidCashInExpirationSeconds(n int64) bool {
	return n >= int64(MinCashInExpiration.Seconds()) && n <= int64(MaxCashInExpiration.Seconds())
}
