package badgerstore

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

// TestTxRecord checks that a transaction comes back as it was stored, with
// every field set and with most left zero; that the zero fields are not
// stored; and that a record stored in full, as before txRecord, still reads.
func TestTxRecord(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, "")
	defer s.Close()
	at := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	full := pix.Transaction{ID: 1, UUID: "u-1", AccountID: 7, Kind: pix.TxCashOut, Status: pix.TxStatusError, Amount: 1050, Fee: 25,
		ExternalID: "ext-1", IdempotencyKey: "idem-1", EndToEndID: "E13140088202603021200abcdefghijk", PixKey: "+5511999999999",
		PixKeySent: "11999999999", KeyType: "PHONE", Description: "d", Priority: "HIGH", Expiration: time.Minute,
		Counterpart: pix.Counterpart{Name: "N", Document: "52998224725", ISPB: "18236120", BankName: "B", BankCode: "260",
			Branch: "0001", AccountNumber: "123", AccountType: "CACC", AccountID: 8},
		Document: "52998224725", CreatedAt: at, ProcessedAt: at.Add(2 * time.Second), ErrorCode: pix.CodeOrderRejected,
		ErrorMessage: "m", Scenario: "s", RelatedID: 2, TxID: "t"}
	if v := reflect.ValueOf(full); v.NumField() != reflect.TypeFor[txRecord]().NumField() {
		t.Fatal("txRecord and pix.Transaction differ")
	}
	for i := range reflect.ValueOf(full).NumField() {
		if reflect.ValueOf(full).Field(i).IsZero() {
			t.Fatalf("the full transaction leaves %s zero", reflect.TypeFor[pix.Transaction]().Field(i).Name)
		}
	}
	sparse := pix.Transaction{ID: 3, UUID: "u-3", AccountID: 7, Kind: pix.TxCashOut, Status: pix.TxStatusPending, Amount: 1, CreatedAt: at}
	// A record written before txRecord: every field, the zero ones too.
	legacy := pix.Transaction{ID: 4, UUID: "u-4", AccountID: 7, Kind: pix.TxPixIn, Status: pix.TxStatusConfirmed, Amount: 2, CreatedAt: at}
	raw, err := json.Marshal(legacy)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Update(ctx, func(tx storage.Tx) error {
		if err := tx.PutTransaction(full); err != nil {
			return err
		}
		if err := tx.PutTransaction(sparse); err != nil {
			return err
		}
		return tx.(*Tx).set(txKey(legacy.ID), raw)
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.View(ctx, func(tx storage.Tx) error {
		for _, want := range []pix.Transaction{full, sparse, legacy} {
			got, err := tx.Transaction(want.ID)
			if err != nil {
				return err
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("transaction %d reads back as\n%+v\nwant\n%+v", want.ID, got, want)
			}
		}
		item, err := tx.(*Tx).txn.Get(txKey(sparse.ID))
		if err != nil {
			return err
		}
		stored, err := item.ValueCopy(nil)
		if err != nil {
			return err
		}
		for _, zero := range []string{"Fee", "IdempotencyKey", "ProcessedAt", "Counterpart", "RelatedID", "ErrorCode"} {
			if strings.Contains(string(stored), `"`+zero+`"`) {
				t.Errorf("the stored record keeps the zero field %s: %s", zero, stored)
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
