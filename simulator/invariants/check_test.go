package invariants_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/invariants"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

// ok fails the test on err.
func ok(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// sandbox is a simulator whose store the test corrupts behind its back, as a
// bug would, before running the checker over it.
type sandbox struct {
	*simulatortest.Env
	t *testing.T
}

var ctx = context.Background()

func newSandbox(t *testing.T) sandbox {
	return sandbox{simulatortest.New(t, simulatortest.Options{}), t}
}

func (s sandbox) account(balance pix.Cents) pix.CreatedAccount {
	a, err := s.Sim.CreateAccount(ctx, pix.NewAccount{Balance: balance})
	ok(s.t, err)
	return a
}

// cashOut pays value from a to a DICT key held outside the sandbox.
func (s sandbox) cashOut(a pix.CreatedAccount, value string) pix.Transaction {
	for _, k := range s.Fixtures.DICT() {
		if k.Scenario == "" && k.Type == "EMAIL" {
			req := pix.CashOutRequest{Value: value, ExternalID: uuid.NewString(), Key: k.Key, KeyType: k.Type, Name: "Fulano de Tal", Document: k.Document}
			t, err := s.Sim.CreateCashOut(ctx, a.Account.ID, req, scenarios.None)
			ok(s.t, err)
			return t
		}
	}
	s.t.Fatal("no external email key in the fixtures")
	return pix.Transaction{}
}

// received makes a receive amount by pix-in.
func (s sandbox) received(a pix.CreatedAccount, amount string) pix.Transaction {
	res, err := s.Sim.PixIn(ctx, pix.Payment{Key: a.Account.PixKeys[1].Key, Amount: amount})
	ok(s.t, err)
	t, err := s.Sim.Transaction(ctx, fmt.Sprint(res.TransactionID))
	ok(s.t, err)
	return t
}

func (s sandbox) corrupt(fn func(tx storage.Tx) error) {
	s.t.Helper()
	ok(s.t, s.Store.Update(ctx, fn))
}

// violations runs the checker over the store.
func (s sandbox) violations() []string {
	s.t.Helper()
	rep, err := invariants.Check(ctx, s.Store, s.Sim.Clock().Now())
	ok(s.t, err)
	return rep.Violations
}

func (s sandbox) clean() {
	s.t.Helper()
	if vs := s.violations(); len(vs) > 0 {
		s.t.Fatalf("violations before any corruption: %q", vs)
	}
}

func hasViolation(vs []string, parts ...string) bool {
next:
	for _, v := range vs {
		for _, part := range parts {
			if !strings.Contains(v, part) {
				continue next
			}
		}
		return true
	}
	return false
}

// TestCheck_DetectsCorruptHistory: a transaction or refund whose stored record
// disagrees with what the ledger moved is reported, naming it.
func TestCheck_DetectsCorruptHistory(t *testing.T) {
	t.Run("cash-out amount", func(t *testing.T) {
		s := newSandbox(t)
		a := s.account(100_00)
		co := s.cashOut(a, "10")
		_, err := s.Sim.AdvanceClock(ctx, 2*time.Second, pix.ClockWaitWebhooks)
		ok(t, err)
		s.clean()
		s.corrupt(func(tx storage.Tx) error {
			t, err := tx.Transaction(co.ID)
			if err != nil {
				return err
			}
			t.Amount += 1
			return tx.PutTransaction(t)
		})
		vs := s.violations()
		if !hasViolation(vs, fmt.Sprintf("account %d", a.Account.ID), fmt.Sprintf("transaction %d", co.ID), "journal entries moved") ||
			!hasViolation(vs, fmt.Sprintf("account %d", a.Account.ID), "stored balance") {
			t.Fatalf("violations = %q", vs)
		}
	})
	t.Run("status", func(t *testing.T) {
		s := newSandbox(t)
		co := s.cashOut(s.account(100_00), "10")
		s.corrupt(func(tx storage.Tx) error {
			t, err := tx.Transaction(co.ID)
			if err != nil {
				return err
			}
			t.Status = pix.TxStatusError // released on paper, still held in the ledger
			return tx.PutTransaction(t)
		})
		if vs := s.violations(); !hasViolation(vs, fmt.Sprintf("transaction %d", co.ID), "ERROR") {
			t.Fatalf("violations = %q", vs)
		}
	})
	t.Run("end-to-end id twice", func(t *testing.T) {
		s := newSandbox(t)
		a := s.account(0)
		o1, o2 := s.received(a, "1"), s.received(a, "2")
		s.corrupt(func(tx storage.Tx) error {
			o2.EndToEndID = o1.EndToEndID
			return tx.PutTransaction(o2)
		})
		if vs := s.violations(); !hasViolation(vs, "endToEndId "+o1.EndToEndID, fmt.Sprint(o1.ID), fmt.Sprint(o2.ID)) {
			t.Fatalf("violations = %q", vs)
		}
	})
	t.Run("refunds above the original", func(t *testing.T) {
		s := newSandbox(t)
		a := s.account(0)
		o := s.received(a, "20")
		r, _, err := s.Sim.CreateRefund(ctx, a.Account.ID, pix.RefundOriginal{EndToEndID: o.EndToEndID},
			pix.RefundRequest{ID: "r1", Amount: 15_00, Nature: pix.NatureOriginal}, scenarios.None)
		ok(t, err)
		s.clean()
		s.corrupt(func(tx storage.Tx) error {
			r.Amount = 25_00
			return tx.PutRefund(r)
		})
		vs := s.violations()
		if !hasViolation(vs, fmt.Sprintf("transaction %d", o.ID), "above its amount") ||
			!hasViolation(vs, "refund r1", fmt.Sprintf("transaction %d", r.TransactionID)) {
			t.Fatalf("violations = %q", vs)
		}
	})
}
