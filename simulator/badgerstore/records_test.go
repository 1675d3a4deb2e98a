package badgerstore

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

// TestTxRecord checks that a transaction comes back as it was stored, with
// every field set and with most left zero; that the zero fields are not
// stored; and that a record stored in full, as before storecodec.Tx, still reads.
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
	for i := range reflect.ValueOf(full).NumField() {
		if reflect.ValueOf(full).Field(i).IsZero() {
			t.Fatalf("the full transaction leaves %s zero", reflect.TypeFor[pix.Transaction]().Field(i).Name)
		}
	}
	sparse := pix.Transaction{ID: 3, UUID: "u-3", AccountID: 7, Kind: pix.TxCashOut, Status: pix.TxStatusPending, Amount: 1, CreatedAt: at}
	// A record written before storecodec.Tx: every field, the zero ones too.
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
		stored, err := storedValue(tx, txKey(sparse.ID))
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

// TestEventRecord checks that an event's body reads back byte for byte
// whether it is stored as JSON or, when encoding/json would change it, as
// base64; that a typical body is stored as JSON; and that an event stored
// before storecodec.Event still reads.
func TestEventRecord(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, "")
	defer s.Close()
	at := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	typical, err := json.Marshal(map[string]any{"event": "CashOut", "status": "CONFIRMED", "finalAmount": json.Number("10.25"),
		"counterpart": map[string]any{"name": "Fulano <Tal> & Cia"}, "errorCode": nil})
	if err != nil {
		t.Fatal(err)
	}
	bodies := map[string][]byte{
		"typical":     typical,
		"indented":    []byte("{\n  \"event\": \"CashOut\"\n}"),
		"unescaped":   []byte(`{"name":"<b>&"}`),
		"not JSON":    []byte("\x00\xffnot json"),
		"empty":       nil,
		"trailing":    []byte(`{"a":1} `),
		"line sep":    []byte("{\"a\":\"\u2028\"}"),
		"escaped sep": []byte(`{"a":"\u2028"}`),
	}
	var events []webhook.Event
	for name, b := range bodies {
		events = append(events, webhook.Event{ID: "evt_" + strings.ReplaceAll(name, " ", "_"), AccountID: 7, EventType: "cash_out",
			Kind: "CashOut", TransactionID: 9, Body: b, CreatedAt: at})
	}
	legacy := webhook.Event{ID: "evt_legacy", AccountID: 7, EventType: "cash_out", Kind: "CashOut", TransactionID: 9, Body: typical, CreatedAt: at}
	raw, err := json.Marshal(legacy)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Update(ctx, func(tx storage.Tx) error {
		for _, e := range events {
			if err := tx.PutWebhookEvent(e); err != nil {
				return err
			}
		}
		return tx.(*Tx).set([]byte("wh/evt/"+legacy.ID), raw)
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.View(ctx, func(tx storage.Tx) error {
		for _, want := range append(events, legacy) {
			got, err := tx.WebhookEvent(want.ID)
			if err != nil {
				return err
			}
			if !bytes.Equal(got.Body, want.Body) || (got.Body == nil) != (want.Body == nil) {
				t.Errorf("%s: body reads back as %q, want %q", want.ID, got.Body, want.Body)
			}
			got.Body, want.Body = nil, nil
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s reads back as %+v, want %+v", want.ID, got, want)
			}
		}
		stored, err := storedValue(tx, []byte("wh/evt/evt_typical"))
		if err != nil {
			return err
		}
		if !bytes.Contains(stored, typical) || len(stored) >= len(raw) {
			t.Errorf("a typical body is not stored as JSON (%d bytes, in full %d): %s", len(stored), len(raw), stored)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// storedValue returns the bytes stored under key, as Badger holds them.
func storedValue(tx storage.Tx, key []byte) ([]byte, error) {
	item, err := tx.(*Tx).txn.Get(key)
	if err != nil {
		return nil, err
	}
	return item.ValueCopy(nil)
}

// TestTargetRecord checks that a target rotated with an overlap reads back
// with its previous secret and the overlap's end; that a target never
// rotated is stored without those fields; and that a record written before
// rotation existed (a literal of that form) still reads, with neither.
func TestTargetRecord(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, "")
	defer s.Close()
	at := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	plain := webhook.Target{ID: 1, AccountID: 7, URL: "http://127.0.0.1:9/h", EventType: webhook.EventCashOut,
		Headers: []webhook.Header{{Key: "X-A", Value: "b"}}, Secret: webhook.NewSecret(), Active: true, CreatedAt: at, UpdatedAt: at}
	rotated := webhook.RotateSecret(plain, webhook.NewSecret(), at.Add(400*24*time.Hour), 24*time.Hour)
	rotated.ID = 2
	const legacy = `{"ID":3,"AccountID":7,"URL":"http://127.0.0.1:9/h","EventType":"cash_in","Headers":null,` +
		`"Secret":"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw","Active":true,` +
		`"CreatedAt":"2026-03-02T12:00:00Z","UpdatedAt":"2026-03-02T12:00:00Z"}`
	if err := s.Update(ctx, func(tx storage.Tx) error {
		if err := tx.PutWebhookTarget(plain); err != nil {
			return err
		}
		if err := tx.PutWebhookTarget(rotated); err != nil {
			return err
		}
		return tx.(*Tx).set(targetKey(3), []byte(legacy))
	}); err != nil {
		t.Fatal(err)
	}
	want3 := webhook.Target{ID: 3, AccountID: 7, URL: "http://127.0.0.1:9/h", EventType: webhook.EventCashIn,
		Secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", Active: true, CreatedAt: at, UpdatedAt: at}
	if err := s.View(ctx, func(tx storage.Tx) error {
		for _, want := range []webhook.Target{plain, rotated, want3} {
			got, err := tx.WebhookTarget(want.ID)
			if err != nil {
				return err
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("target %d reads back as\n%+v\nwant\n%+v", want.ID, got, want)
			}
		}
		stored, err := storedValue(tx, targetKey(plain.ID))
		if err != nil {
			return err
		}
		if strings.Contains(string(stored), "Previous") {
			t.Errorf("a target never rotated stores the rotation's fields: %s", stored)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
