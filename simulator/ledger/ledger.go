package ledger

import (
	"errors"
	"fmt"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// Bucket is one of the two pockets of an account, or the outside world.
type Bucket string

// Buckets.
const (
	Available Bucket = "available"
	Blocked   Bucket = "blocked"
	World     Bucket = "world" // money outside the sandbox; Account is 0
)

// Pocket is where money sits: an account's available or blocked balance, or the world.
type Pocket struct {
	Account pix.AccountID
	Bucket  Bucket
}

// WorldPocket is the outside world: the source of money paid in and the sink of
// money paid out. Its balance is the negative of all money inside the sandbox.
var WorldPocket = Pocket{Bucket: World}

// AvailableOf is the available pocket of account a.
func AvailableOf(a pix.AccountID) Pocket { return Pocket{Account: a, Bucket: Available} }

// BlockedOf is the blocked pocket of account a.
func BlockedOf(a pix.AccountID) Pocket { return Pocket{Account: a, Bucket: Blocked} }

// Entry is one movement of money. Entries are immutable once stored.
type Entry struct {
	Seq    uint64 // order of the journal; assigned by the store
	At     time.Time
	From   Pocket
	To     Pocket
	Amount pix.Cents // > 0
	Ref    string    // what caused it, e.g. "seed", "cashout:<id>"
}

var (
	// ErrInsufficient: the source pocket holds less than the amount.
	ErrInsufficient = errors.New("ledger: insufficient funds in source pocket")
	// ErrInvalidEntry: a non-positive amount, the same pocket twice, or an unknown bucket.
	ErrInvalidEntry = errors.New("ledger: invalid entry")
	// ErrUnknownAccount: the entry touches an account whose balance was not loaded.
	ErrUnknownAccount = errors.New("ledger: account not loaded")
)

// Balances are the account balances an entry may touch, by account.
type Balances map[pix.AccountID]*pix.Balance

// Apply moves e.Amount from e.From to e.To within b. It changes nothing when it
// fails. Only the World pocket may go below zero.
func Apply(b Balances, e Entry) error {
	if e.Amount <= 0 || e.From == e.To {
		return fmt.Errorf("%w: %s from %v to %v", ErrInvalidEntry, e.Amount, e.From, e.To)
	}
	from, err := pocketOf(b, e.From)
	if err != nil {
		return err
	}
	to, err := pocketOf(b, e.To)
	if err != nil {
		return err
	}
	if from != nil && *from < e.Amount {
		return fmt.Errorf("%w: %v holds %s, needs %s", ErrInsufficient, e.From, *from, e.Amount)
	}
	if to != nil {
		if _, ok := (*to).Add(e.Amount); !ok {
			return fmt.Errorf("%w: overflow", ErrInvalidEntry)
		}
	}
	if from != nil {
		*from -= e.Amount
	}
	if to != nil {
		*to += e.Amount
	}
	return nil
}

// pocketOf returns the cell holding p's balance, or nil for the world.
func pocketOf(b Balances, p Pocket) (*pix.Cents, error) {
	switch p.Bucket {
	case World:
		if p.Account != 0 {
			return nil, fmt.Errorf("%w: world pocket with account %d", ErrInvalidEntry, p.Account)
		}
		return nil, nil
	case Available, Blocked:
		bal, ok := b[p.Account]
		if !ok || bal == nil {
			return nil, fmt.Errorf("%w: %d", ErrUnknownAccount, p.Account)
		}
		if p.Bucket == Available {
			return &bal.Available, nil
		}
		return &bal.Blocked, nil
	default:
		return nil, fmt.Errorf("%w: bucket %q", ErrInvalidEntry, p.Bucket)
	}
}

// Replay recomputes balances from a journal, starting from zero. The result is what
// the stored balances must equal; world is the World pocket's balance, which equals
// minus the sum of every account's gross balance when no money was created.
func Replay(entries []Entry) (balances map[pix.AccountID]pix.Balance, world pix.Cents, err error) {
	b := Balances{}
	for _, e := range entries {
		for _, p := range []Pocket{e.From, e.To} {
			if p.Bucket != World && b[p.Account] == nil {
				b[p.Account] = &pix.Balance{}
			}
		}
		if err := Apply(b, e); err != nil {
			return nil, 0, fmt.Errorf("entry %d: %w", e.Seq, err)
		}
		if e.From.Bucket == World {
			world -= e.Amount
		}
		if e.To.Bucket == World {
			world += e.Amount
		}
	}
	balances = make(map[pix.AccountID]pix.Balance, len(b))
	for id, bal := range b {
		balances[id] = *bal
	}
	return balances, world, nil
}

// ReplayAccount recomputes one account's balance from its own journal, in order,
// treating every pocket that is not the account's as outside money. It fails when
// an entry does not touch the account or when the account would have gone below
// zero at any step.
func ReplayAccount(id pix.AccountID, entries []Entry) (pix.Balance, error) {
	local := func(p Pocket) Pocket {
		if p.Bucket != World && p.Account == id {
			return p
		}
		return WorldPocket
	}
	b := Balances{id: &pix.Balance{}}
	for _, e := range entries {
		from, to := local(e.From), local(e.To)
		if from == WorldPocket && to == WorldPocket {
			return pix.Balance{}, fmt.Errorf("%w: entry %d does not touch account %d", ErrInvalidEntry, e.Seq, id)
		}
		e.From, e.To = from, to
		if err := Apply(b, e); err != nil {
			return pix.Balance{}, fmt.Errorf("entry %d: %w", e.Seq, err)
		}
	}
	return *b[id], nil
}
