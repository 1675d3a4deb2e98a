package ledger

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

func TestApply(t *testing.T) {
	tests := []struct {
		name    string
		entry   Entry
		want    pix.Balance
		wantErr error
	}{
		{name: "credit from world", entry: Entry{From: WorldPocket, To: AvailableOf(1), Amount: 500}, want: pix.Balance{Available: 1500}},
		{name: "hold", entry: Entry{From: AvailableOf(1), To: BlockedOf(1), Amount: 300}, want: pix.Balance{Available: 700, Blocked: 300}},
		{name: "pay out", entry: Entry{From: AvailableOf(1), To: WorldPocket, Amount: 1000}, want: pix.Balance{}},
		{name: "overdraw", entry: Entry{From: AvailableOf(1), To: WorldPocket, Amount: 1001}, wantErr: ErrInsufficient},
		{name: "release more than blocked", entry: Entry{From: BlockedOf(1), To: AvailableOf(1), Amount: 1}, wantErr: ErrInsufficient},
		{name: "zero amount", entry: Entry{From: WorldPocket, To: AvailableOf(1), Amount: 0}, wantErr: ErrInvalidEntry},
		{name: "negative amount", entry: Entry{From: WorldPocket, To: AvailableOf(1), Amount: -5}, wantErr: ErrInvalidEntry},
		{name: "same pocket", entry: Entry{From: AvailableOf(1), To: AvailableOf(1), Amount: 5}, wantErr: ErrInvalidEntry},
		{name: "unknown account", entry: Entry{From: AvailableOf(9), To: WorldPocket, Amount: 5}, wantErr: ErrUnknownAccount},
		{name: "bad bucket", entry: Entry{From: Pocket{Account: 1, Bucket: "x"}, To: WorldPocket, Amount: 5}, wantErr: ErrInvalidEntry},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := Balances{1: {Available: 1000}}
			err := Apply(b, tt.entry)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Apply error = %v, want %v", err, tt.wantErr)
				}
				if *b[1] != (pix.Balance{Available: 1000}) {
					t.Fatalf("failed Apply changed the balance to %+v", *b[1])
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if *b[1] != tt.want {
				t.Fatalf("balance = %+v, want %+v", *b[1], tt.want)
			}
		})
	}
}

// TestApply_Conservation applies long random sequences of movements between three
// accounts and the world and checks, after every step, that no account pocket is
// negative and that the money inside plus the world's balance is unchanged, and at
// the end that replaying the journal reproduces the balances.
func TestApply_Conservation(t *testing.T) {
	for seed := uint64(1); seed <= 50; seed++ {
		rng := rand.New(rand.NewPCG(seed, 0))
		b := Balances{1: {}, 2: {}, 3: {}}
		var world pix.Cents
		var journal []Entry
		pockets := []Pocket{WorldPocket}
		for id := pix.AccountID(1); id <= 3; id++ {
			pockets = append(pockets, AvailableOf(id), BlockedOf(id))
		}
		for step := 0; step < 2000; step++ {
			e := Entry{
				Seq:    uint64(step),
				From:   pockets[rng.IntN(len(pockets))],
				To:     pockets[rng.IntN(len(pockets))],
				Amount: pix.Cents(rng.IntN(5000) - 100),
			}
			if err := Apply(b, e); err != nil {
				if !errors.Is(err, ErrInsufficient) && !errors.Is(err, ErrInvalidEntry) {
					t.Fatalf("seed %d step %d: %v", seed, step, err)
				}
				continue
			}
			journal = append(journal, e)
			if e.From.Bucket == World {
				world -= e.Amount
			}
			if e.To.Bucket == World {
				world += e.Amount
			}
			var inside pix.Cents
			for id, bal := range b {
				if bal.Available < 0 || bal.Blocked < 0 {
					t.Fatalf("seed %d step %d: account %d negative: %+v", seed, step, id, *bal)
				}
				inside += bal.Gross()
			}
			if inside+world != 0 {
				t.Fatalf("seed %d step %d: inside %s + world %s != 0", seed, step, inside, world)
			}
		}
		replayed, replayWorld, err := Replay(journal)
		if err != nil {
			t.Fatalf("seed %d: replay: %v", seed, err)
		}
		if replayWorld != world {
			t.Fatalf("seed %d: replayed world %s, want %s", seed, replayWorld, world)
		}
		for id, bal := range b {
			if replayed[id] != *bal {
				t.Fatalf("seed %d: replayed %d = %+v, want %+v", seed, id, replayed[id], *bal)
			}
		}
	}
}
