package contract_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
)

func TestJudgeDelivery_ValidPayloads(t *testing.T) {
	for name, body := range map[string]string{"CashOut": cashOutHook, "CashIn": cashInHook, "TRANSFER": transferHook, "RECEIVE": receiveHook, "REFUND": refundHook, "med_accepted": medHook,
		"CashOut ERROR":  mut(mut(mut(cashOutHook, "status", `"ERROR"`), "errorCode", `"INVALID_TAX_ID"`), "errorMessage", `"CPF or CNPJ algorithmically invalid"`),
		"TRANSFER ERROR": mut(mut(mut(transferHook, "data.status", `"ERROR"`), "data.errorCode", `"PAYMENT_EXPIRED"`), "data.errorMessage", `"expired"`),
		"REFUND number":  mut(refundHook, "data.payment.amount", `50.00`),
		"med_created":    mut(mut(mut(medHook, "event", `"med_created"`), "med.status", `"OPEN"`), "med.analysisResult", `null`),
		"extra fields":   mut(transferHook, "data.extra", `{"x":1}`),
	} {
		if fs := contract.JudgeDelivery(delivery(1, 0, body), contract.HookOptions{}); len(fs) > 0 {
			t.Errorf("%s: %d findings:%s", name, len(fs), describe(fs))
		}
	}
}

func TestJudgeDelivery_Breaks(t *testing.T) {
	tests := []struct {
		name, rule, field string
		ex                *contract.Exchange
	}{
		{"not JSON", "hook.envelope", "body", delivery(1, 0, `status=ok`)},
		{"an array", "hook.envelope", "body", delivery(1, 0, `[1]`)},
		{"neither type nor event", "hook.envelope", "body", delivery(1, 0, `{"data":{}}`)},
		{"unknown type", "hook.envelope", "body", delivery(1, 0, mut(transferHook, "type", `"PAYMENT"`))},
		{"unknown event", "hook.envelope", "body", delivery(1, 0, mut(cashOutHook, "event", `"CashOutV2"`))},
		{"text Content-Type", "hook.envelope", "Content-Type", delivery(1, 0, transferHook, header("Content-Type", "text/plain"))},
		{"no data", "hook.field-missing", "data", delivery(1, 0, mut(transferHook, "data", ""))},
		{"CashOut without processingDate", "hook.field-missing", "processingDate", delivery(1, 0, mut(cashOutHook, "processingDate", ""))},
		{"CashOut without counterpart.bank.accountBranch", "hook.field-missing", "counterpart.bank.accountBranch", delivery(1, 0, mut(cashOutHook, "counterpart.bank.accountBranch", ""))},
		{"TRANSFER ERROR without errorCode", "hook.field-missing", "data.errorCode", delivery(1, 0, mut(transferHook, "data.status", `"ERROR"`))},
		{"REFUND without refunds", "hook.field-missing", "data.refunds", delivery(1, 0, mut(refundHook, "data.refunds", ""))},
		{"MED without med", "hook.field-missing", "med", delivery(1, 0, mut(medHook, "med", ""))},
		{"data.id as text", "hook.field-type", "data.id", delivery(1, 0, mut(transferHook, "data.id", `"7"`))},
		{"feeAmount as text", "hook.field-type", "feeAmount", delivery(1, 0, mut(cashOutHook, "feeAmount", `"0.00"`))},
		{"TRANSFER amount trimmed", "hook.money-format", "data.payment.amount", delivery(1, 0, mut(transferHook, "data.payment.amount", `"12.3"`))},
		{"RECEIVE amount trimmed", "hook.money-format", "data.payment.amount", delivery(1, 0, mut(receiveHook, "data.payment.amount", `"15"`))},
		{"TRANSFER amount a number", "hook.field-type", "data.payment.amount", delivery(1, 0, mut(transferHook, "data.payment.amount", `12.30`))},
		{"REFUND amount trimmed", "hook.money-format", "data.payment.amount", delivery(1, 0, mut(refundHook, "data.payment.amount", `"50.5"`))},
		{"REFUND amount of 3 decimals", "hook.money-format", "data.payment.amount", delivery(1, 0, mut(refundHook, "data.payment.amount", `50.001`))},
		{"refunds[] amount as text", "hook.field-type", "data.refunds[0].payment.amount", delivery(1, 0, mut(refundHook, "data.refunds[0].payment.amount", `"10.00"`))},
		{"CashOut amount of 3 decimals", "hook.money-format", "originalAmount", delivery(1, 0, mut(cashOutHook, "originalAmount", `10.505`))},
		{"processingDate not ISO 8601", "hook.date-format", "processingDate", delivery(1, 0, mut(cashOutHook, "processingDate", `"02/03/2026"`))},
		{"transactionId a UUID", "hook.id-format", "transactionId", delivery(1, 0, mut(cashOutHook, "transactionId", `"6f1c1f3e-1b7a-4c1e-9d2a-0c5b8e7f6a10"`))},
		{"correlationId not a UUID", "hook.id-format", "correlationId", delivery(1, 0, mut(cashInHook, "correlationId", `"c-1"`))},
		{"MED endToEnd short", "hook.id-format", "med.endToEnd", delivery(1, 0, mut(medHook, "med.endToEnd", `"E1"`))},
		{"CashOut status PENDING", "hook.status-allowed", "status", delivery(1, 0, mut(cashOutHook, "status", `"PENDING"`))},
		{"TRANSFER status PAID", "hook.status-allowed", "data.status", delivery(1, 0, mut(transferHook, "data.status", `"PAID"`))},
		{"REFUND status LIQUIDATED", "hook.status-allowed", "data.status", delivery(1, 0, mut(refundHook, "data.status", `"LIQUIDATED"`))},
		{"refunds[] status REFUNDED", "hook.status-allowed", "data.refunds[0].status", delivery(1, 0, mut(refundHook, "data.refunds[0].status", `"REFUNDED"`))},
		{"med_accepted of a REJECTED MED", "hook.status-allowed", "med.status", delivery(1, 0, mut(medHook, "med.analysisResult", `"REJECTED"`))},
		{"med_rejected of an APPROVED MED", "hook.status-allowed", "med.status", delivery(1, 0, mut(medHook, "event", `"med_rejected"`))},
		{"currency USD", "hook.value-allowed", "data.payment.currency", delivery(1, 0, mut(receiveHook, "data.payment.currency", `"USD"`))},
		{"movementType CREDIT on CashOut", "hook.value-allowed", "movementType", delivery(1, 0, mut(cashOutHook, "movementType", `"CREDIT"`))},
		{"creditDebitType CREDIT", "hook.value-allowed", "data.creditDebitType", delivery(1, 0, mut(transferHook, "data.creditDebitType", `"CREDIT"`))},
		{"CONFIRMED with an errorCode", "hook.value-allowed", "errorCode", delivery(1, 0, mut(cashOutHook, "errorCode", `"ORDER_REJECTED"`))},
		{"ERROR without errorCode", "hook.value-allowed", "errorCode", delivery(1, 0, mut(cashOutHook, "status", `"ERROR"`))},
		{"ERROR with an unlisted errorCode", "hook.value-allowed", "errorCode", delivery(1, 0, mut(mut(cashOutHook, "status", `"ERROR"`), "errorCode", `"PIX_INSUFFICIENT_BALANCE"`))},
		{"a body over 1 MiB", "hook.body-unjudged", "body", delivery(1, 0, "", func(ex *contract.Exchange) { ex.ReqUnjudged = "the body is over 1 MiB" })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := contract.JudgeDelivery(tt.ex, contract.HookOptions{})
			if !hasFinding(fs, tt.rule, tt.field) {
				t.Fatalf("no %s on %q; findings:%s", tt.rule, tt.field, describe(fs))
			}
			for _, f := range fs {
				if f.Kind != contract.KindWebhook || !strings.HasPrefix(f.Route, "webhook") || f.Exchange != 1 || f.RequestID != "" {
					// RequestID is the proxy's to set (the webhook-id); these deliveries leave it empty.
					t.Errorf("finding %s: kind %s, route %q, exchange %d, request %q", f.Rule, f.Kind, f.Route, f.Exchange, f.RequestID)
				}
			}
		})
	}
}

// testSecret is the Standard Webhooks test vector's secret (design/DOMAIN.md).
const testSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

// signed sets the Standard Webhooks headers of a delivery signed with
// secret at ts, as the library signs.
func signed(t *testing.T, secret, id string, ts time.Time) func(*contract.Exchange) {
	return func(ex *contract.Exchange) {
		wh, err := standardwebhooks.NewWebhook(secret)
		if err != nil {
			t.Fatal(err)
		}
		sig, err := wh.Sign(id, ts, ex.ReqBody)
		if err != nil {
			t.Fatal(err)
		}
		ex.ReqHeader.Set("webhook-id", id)
		ex.ReqHeader.Set("webhook-timestamp", strconv.FormatInt(ts.Unix(), 10))
		ex.ReqHeader.Set("webhook-signature", sig)
	}
}

// TestHookSignature_TestVector: the Standard Webhooks test vector of
// design/DOMAIN.md.
func TestHookSignature_TestVector(t *testing.T) {
	got, err := contract.HookSignature(testSecret, "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W", 1674087231, []byte(`{"type":"RECEIVE","data":{"id":1}}`))
	if want := "v1,21QfGjgdxlXsyIdNpOti8I+eIv0G67loCf2DlZJ00Kw="; err != nil || got != want {
		t.Fatalf("signature %q, %v; want %q", got, err, want)
	}
}

// TestJudgeDelivery_Signing: good, bad, stale and absent signatures; the
// verdicts agree with the Standard Webhooks library's Verify, run at the
// delivery's arrival (the library reads the wall clock, so the cases are
// built around now).
func TestJudgeDelivery_Signing(t *testing.T) {
	now := time.Now().Truncate(time.Second)
	wh, err := standardwebhooks.NewWebhook(testSecret)
	if err != nil {
		t.Fatal(err)
	}
	arrive := func(ex *contract.Exchange) { ex.Start, ex.End = now, now.Add(time.Millisecond) }
	other := "whsec_" + "c2VjcmV0LW9mLWFub3RoZXItc2VuZGVyLTAxMjM0NTY3"
	tests := []struct {
		name  string
		opts  []func(*contract.Exchange)
		rules []string // findings of the signing rules, in no order
	}{
		{"good", []func(*contract.Exchange){signed(t, testSecret, "msg_1", now)}, nil},
		{"good, 4 min old", []func(*contract.Exchange){signed(t, testSecret, "msg_1", now.Add(-4*time.Minute))}, nil},
		{"good among rotated keys", []func(*contract.Exchange){signed(t, testSecret, "msg_1", now), func(ex *contract.Exchange) {
			ex.ReqHeader.Set("webhook-signature", "v1,AAAA v1a,BBBB "+ex.ReqHeader.Get("webhook-signature"))
		}}, nil},
		{"another secret", []func(*contract.Exchange){signed(t, other, "msg_1", now)}, []string{"hook.signature"}},
		{"body changed after signing", []func(*contract.Exchange){signed(t, testSecret, "msg_1", now), func(ex *contract.Exchange) { ex.ReqBody = append(ex.ReqBody, ' ') }}, []string{"hook.signature"}},
		{"id changed after signing", []func(*contract.Exchange){signed(t, testSecret, "msg_1", now), header("webhook-id", "msg_2")}, []string{"hook.signature"}},
		{"stale: 6 min old", []func(*contract.Exchange){signed(t, testSecret, "msg_1", now.Add(-6*time.Minute))}, []string{"hook.timestamp"}},
		{"from the future: 6 min ahead", []func(*contract.Exchange){signed(t, testSecret, "msg_1", now.Add(6*time.Minute))}, []string{"hook.timestamp"}},
		{"no signature", []func(*contract.Exchange){signed(t, testSecret, "msg_1", now), header("webhook-signature", "")}, []string{"hook.signature"}},
		{"no timestamp", []func(*contract.Exchange){signed(t, testSecret, "msg_1", now), header("webhook-timestamp", "")}, []string{"hook.timestamp"}},
		{"timestamp in milliseconds", []func(*contract.Exchange){signed(t, testSecret, "msg_1", now), header("webhook-timestamp", strconv.FormatInt(now.UnixMilli(), 10))}, []string{"hook.timestamp", "hook.signature"}},
		{"no webhook-id", []func(*contract.Exchange){signed(t, testSecret, "msg_1", now), header("webhook-id", "")}, []string{"hook.signature"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex := delivery(1, 0, transferHook, append(tt.opts, arrive)...)
			var got []string
			for _, f := range contract.JudgeDelivery(ex, contract.HookOptions{Secret: testSecret}) {
				got = append(got, f.Rule)
			}
			if strings.Join(sorted(got), " ") != strings.Join(sorted(tt.rules), " ") {
				t.Fatalf("findings %v, want %v", got, tt.rules)
			}
			libErr := wh.Verify(ex.ReqBody, ex.ReqHeader)
			if (libErr == nil) != (len(tt.rules) == 0) {
				t.Errorf("the Standard Webhooks library says %v; the proxy found %v", libErr, got)
			}
			if slices := tt.rules; len(slices) == 1 && slices[0] == "hook.timestamp" && tt.name != "no timestamp" &&
				!errors.Is(libErr, standardwebhooks.ErrMessageTooOld) && !errors.Is(libErr, standardwebhooks.ErrMessageTooNew) {
				t.Errorf("the library's verdict on a bad timestamp: %v", libErr)
			}
		})
	}
	// Without a secret the signing rules do not apply.
	if fs := contract.JudgeDelivery(delivery(1, 0, transferHook, arrive), contract.HookOptions{}); len(fs) > 0 {
		t.Errorf("findings without a secret:%s", describe(fs))
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func TestCheckHookSecret(t *testing.T) {
	for s, ok := range map[string]bool{testSecret: true, "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw": false, "whsec_": false, "whsec_not base64!": false} {
		if err := contract.CheckHookSecret(s); (err == nil) != ok {
			t.Errorf("CheckHookSecret(%q) = %v", s, err)
		}
	}
}
