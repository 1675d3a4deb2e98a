package core

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/agenda"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

// jobSplitsRun pays the splits queued for an account, on its split schedule.
const jobSplitsRun = "splits.run"

func splitsRunJobID(a pix.AccountID) string { return "splits-" + itoa(int64(a)) }

// startSplits pays out a confirmed charge's splits (spec "POST /api/pix/cash-in",
// splits[].immediate): immediate ones now, each its own PIX out of the account
// (transaction, hold, settlement, webhook); the others at the next run of the
// account's split schedule (Gap G-34). A split whose rounded amount is zero pays
// nothing.
func (s *Simulator) startSplits(tx storage.Tx, charge pix.Transaction, ch pix.Charge, now time.Time) error {
	var queued bool
	for i, sp := range ch.Splits {
		amount := sp.Amount(charge.Amount)
		if amount <= 0 {
			continue
		}
		if sp.Immediate {
			if err := s.createSplit(tx, charge, ch, i, sp, amount, now); err != nil {
				return err
			}
			continue
		}
		q := pix.QueuedSplit{ChargeTransactionID: charge.ID, Index: i, Split: sp, Amount: amount, QueuedAt: now}
		if err := tx.PutQueuedSplit(charge.AccountID, q); err != nil {
			return err
		}
		queued = true
	}
	if !queued {
		return nil
	}
	a, err := tx.Account(charge.AccountID)
	if err != nil {
		return err
	}
	st, err := settingsOf(tx, a)
	if err != nil {
		return err
	}
	spec := st.EffectiveSplitSchedule()
	sched, err := agenda.ParseSchedule(spec)
	if err != nil {
		return err
	}
	// The run is a recurring job on the account's schedule, left in place once
	// created: a split queued while a run is finishing (its handler committed,
	// the agenda not yet done with it) is paid by the next run. A one-shot run
	// found pending here could be that finishing run, and the split would wait
	// for a run that never comes.
	if j, ok, err := tx.Job(splitsRunJobID(a.ID)); err != nil {
		return err
	} else if ok && j.Cron == spec {
		return nil
	}
	return tx.PutJob(agenda.Job{ID: splitsRunJobID(a.ID), Kind: jobSplitsRun, Due: sched.Next(now), Payload: []byte(itoa(int64(a.ID))), Cron: spec})
}

// splitsRunJob pays every split queued for an account.
func (s *Simulator) splitsRunJob(ctx context.Context, now time.Time, j agenda.Job) error {
	n, err := strconv.ParseInt(string(j.Payload), 10, 64)
	if err != nil {
		return nil
	}
	id := pix.AccountID(n)
	err = s.store.Update(ctx, func(tx storage.Tx) error {
		queued, err := tx.QueuedSplits(id)
		if err != nil {
			return err
		}
		for _, q := range queued {
			if q.QueuedAt.After(now) {
				continue
			}
			charge, err := tx.Transaction(q.ChargeTransactionID)
			if err != nil {
				return err
			}
			ch, err := tx.Charge(q.ChargeTransactionID)
			if err != nil {
				return err
			}
			if err := s.createSplit(tx, charge, ch, q.Index, q.Split, q.Amount, now); err != nil {
				return err
			}
			if err := tx.DeleteQueuedSplit(id, q); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		s.agenda.Wake()
	}
	return err
}

// createSplit pays one split: a SPLIT transaction of the receiving account to the
// split's key, with a hold and the PIX-out settlement. If the account cannot
// cover it (its cash-in fee or other payments used the money) the split ends in
// ERROR at once (ORDER_REJECTED) and nothing moves: available never goes below
// zero.
func (s *Simulator) createSplit(tx storage.Tx, charge pix.Transaction, ch pix.Charge, i int, sp pix.Split, amount pix.Cents, now time.Time) error {
	id, err := tx.NextID("transaction")
	if err != nil {
		return err
	}
	sc := scenarios.None
	if chargeSc, ok := scenarios.Lookup(ch.Scenario); ok && chargeSc.Phase == scenarios.Splits {
		sc, _ = scenarios.Lookup(string(chargeSc.SplitFailure))
	}
	t := pix.Transaction{ID: id, UUID: uuid.NewString(), AccountID: charge.AccountID, Kind: pix.TxSplit, Status: pix.TxStatusPending,
		Amount: amount, PixKey: sp.PixKey, PixKeySent: sp.PixKeySent, KeyType: sp.PixKeyType, Document: sp.Document,
		Description: fmt.Sprintf("split %d of charge %d", i+1, charge.ID),
		Counterpart: pix.Counterpart{Name: sp.Name, Document: sp.Document}, CreatedAt: now, RelatedID: charge.ID, Scenario: sc.Name}
	err = s.hold(tx, t)
	if pix.ErrorCode(err) == pix.CodePixInsufficientBalance {
		t.Status, t.ErrorCode, t.ErrorMessage, t.ProcessedAt = pix.TxStatusError, pix.CodeOrderRejected, "available balance does not cover the split", now
		if err := tx.PutTransaction(t); err != nil {
			return err
		}
		return emitPixOut(tx, t, now)
	}
	if err != nil {
		return err
	}
	if err := tx.PutTransaction(t); err != nil {
		return err
	}
	return s.scheduleSettlement(tx, t, sc, now)
}
