package wire

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

func TestMoneyTimeOptional(t *testing.T) {
	b, _ := json.Marshal(struct {
		A Money   `json:"a"`
		B Money   `json:"b"`
		C *string `json:"c"`
	}{Money(123450), Money(5), Optional("")})
	if string(b) != `{"a":1234.50,"b":0.05,"c":null}` {
		t.Fatalf("got %s", b)
	}
	if got := Time(time.Date(2026, 3, 2, 9, 0, 0, 5e6, time.FixedZone("BRT", -3*3600))); got != "2026-03-02T12:00:00.005Z" {
		t.Fatalf("Time = %s", got)
	}
}

// The MED resource masks the original's document and shows
// originalTransactionId only when reconciled.
func TestNewMED(t *testing.T) {
	at := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	m := pix.MED{ID: 7, Status: pix.MEDStatuses[0], IsReconciled: true, OriginalTransactionID: 42, CreatedAt: at, UpdatedAt: at,
		Original: &pix.MEDOriginal{Amount: 10_00, Document: "52998224725", DateTime: at}}
	j := NewMED(m)
	if j.OriginalTransactionID == nil || *j.OriginalTransactionID != 42 || j.Cause != nil {
		t.Fatalf("ids/cause = %+v", j)
	}
	if j.OriginalTransaction.Document != pix.MaskDocument("52998224725") || j.OriginalTransaction.Document == "52998224725" {
		t.Fatalf("document %q not masked", j.OriginalTransaction.Document)
	}
	m.IsReconciled = false
	if NewMED(m).OriginalTransactionID != nil {
		t.Fatal("originalTransactionId shown for an unreconciled MED")
	}
}
