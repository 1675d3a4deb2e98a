package pix

import "testing"

func TestTransferRequest_Validate(t *testing.T) {
	ok := TransferRequest{IdempotencyKey: "2b28bc5f-714d-4515-9a30-06854d5df38c", PixKey: "pix@bcb.gov.br", Currency: "BRL", Amount: "1"}
	got, err := ok.Validate()
	if err != nil || got.Expiration != defaultTransferExpiration || got.Priority != PriorityNorm || got.KeyType != KeyTypeEmail {
		t.Fatalf("Validate = %+v, %v", got, err)
	}
	tests := []struct {
		name  string
		edit  func(*TransferRequest)
		code  Code
		field string
	}{
		{"no key header", func(r *TransferRequest) { r.IdempotencyKey = "" }, CodeIdempotencyKeyMissing, "x-idempotency-key"},
		{"key header not v4", func(r *TransferRequest) { r.IdempotencyKey = "6ba7b810-9dad-11d1-80b4-00c04fd430c8" }, CodeIdempotencyKeyMissing, "x-idempotency-key"},
		{"bad pixKey", func(r *TransferRequest) { r.PixKey = "11987654321" }, CodeInvalidRequest, "pixKey"},
		{"HIGH without document", func(r *TransferRequest) { r.Priority = PriorityHigh }, CodeInvalidRequest, "creditorDocument"},
		{"bad priority", func(r *TransferRequest) { r.Priority = "LOW" }, CodeInvalidRequest, "priority"},
		{"expiration 0", func(r *TransferRequest) { r.Expiration = "0" }, CodeInvalidRequest, "expiration"},
		{"expiration 10801", func(r *TransferRequest) { r.Expiration = "10801" }, CodeInvalidRequest, "expiration"},
		{"expiration fraction", func(r *TransferRequest) { r.Expiration = "1.5" }, CodeInvalidRequest, "expiration"},
		{"3 decimals", func(r *TransferRequest) { r.Amount = "1.001" }, CodeInvalidRequest, "payment.amount"},
		{"currency", func(r *TransferRequest) { r.Currency = "USD" }, CodeInvalidRequest, "payment.currency"},
		{"ispb", func(r *TransferRequest) { r.IspbDeny = []string{"123"} }, CodeInvalidRequest, "ispbDeny[0]"},
	}
	for _, tt := range tests {
		r := ok
		tt.edit(&r)
		_, err := r.Validate()
		e, isErr := err.(*Error)
		if !isErr || e.Code != tt.code || len(e.Violations) == 0 || e.Violations[0].Field != tt.field {
			t.Errorf("%s: %#v", tt.name, err)
		}
	}
	a, _ := ok.Validate()
	b := ok
	b.Description = "x"
	bv, _ := b.Validate()
	if a.Fingerprint() == bv.Fingerprint() {
		t.Error("a different description must change the fingerprint")
	}
	c := ok
	c.IdempotencyKey = "0b6a3a4e-8d0c-4f7e-9a51-2f1f3c5d7e90"
	cv, _ := c.Validate()
	if a.Fingerprint() != cv.Fingerprint() {
		t.Error("the fingerprint covers the request, not the key")
	}
}
