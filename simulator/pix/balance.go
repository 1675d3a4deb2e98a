package pix

import "time"

// Balance is an account's money in centavos. Spec "Resources > Balance":
// available is usable immediately and already net of blocked; blocked is reserved
// for operations in processing; the total is available + blocked.
type Balance struct {
	Available Cents
	Blocked   Cents
}

// Gross is the total balance, available + blocked (spec: grossBalance).
func (b Balance) Gross() Cents { return b.Available + b.Blocked }

// BalanceReport is a balance read at an instant (spec: eventDate / consultedAt).
type BalanceReport struct {
	Balance
	At time.Time
}
