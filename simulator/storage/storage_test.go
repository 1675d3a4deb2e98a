package storage_test

import (
	"reflect"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

// TestTx_Slices checks that Tx is its slices and nothing more: every method of
// Tx is in exactly one of them, so a method added to the store goes into the
// slice of its concern, where the procedures that take that slice see it.
func TestTx_Slices(t *testing.T) {
	slices := []reflect.Type{
		reflect.TypeFor[storage.AccountTx](),
		reflect.TypeFor[storage.LedgerTx](),
		reflect.TypeFor[storage.CredentialTx](),
		reflect.TypeFor[storage.MetaTx](),
		reflect.TypeFor[storage.SequenceTx](),
		reflect.TypeFor[storage.TransactionTx](),
		reflect.TypeFor[storage.IdempotencyTx](),
		reflect.TypeFor[storage.DictTx](),
		reflect.TypeFor[storage.SettingsTx](),
		reflect.TypeFor[storage.CounterTx](),
		reflect.TypeFor[storage.WebhookTargetTx](),
		reflect.TypeFor[storage.WebhookEventTx](),
		reflect.TypeFor[storage.DeliveryTx](),
		reflect.TypeFor[storage.ChargeTx](),
		reflect.TypeFor[storage.SplitTx](),
		reflect.TypeFor[storage.RefundTx](),
		reflect.TypeFor[storage.MEDTx](),
		reflect.TypeFor[storage.JobTx](),
	}
	in := map[string]string{} // method → the slice declaring it
	for _, s := range slices {
		for i := range s.NumMethod() {
			m := s.Method(i).Name
			if prev, ok := in[m]; ok {
				t.Errorf("%s is in both %s and %s", m, prev, s.Name())
			}
			in[m] = s.Name()
		}
	}
	tx := reflect.TypeFor[storage.Tx]()
	for i := range tx.NumMethod() {
		if m := tx.Method(i).Name; in[m] == "" {
			t.Errorf("Tx.%s is in no slice: declare it in the slice of its concern", m)
		}
	}
	if got, want := tx.NumMethod(), len(in); got != want {
		t.Errorf("Tx has %d methods, its slices %d: Tx must embed every slice", got, want)
	}
}
