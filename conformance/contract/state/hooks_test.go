package state_test

import (
	"strings"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
	"github.com/pixsandbox/pixsandbox/conformance/contract/state"
)

// hookRules lists the rules of the webhook side among fs.
func hookRules(fs []contract.Finding) []string {
	var out []string
	for _, f := range fs {
		if strings.HasPrefix(f.Rule, "hook.") {
			out = append(out, f.Rule)
		}
	}
	return out
}

// TestHooks_UnknownTransaction: a delivery naming a transaction no answer
// showed is a notice, once per transaction; one the traffic created is not.
func TestHooks_UnknownTransaction(t *testing.T) {
	h := state.NewHooks(state.Bounds{})
	h.Observe(exch("POST /api/pix/cash-out", cashOutReq, 201, cashOutOK, at(1, 0)))
	if fs := h.ObserveDelivery(delivery(2, time.Second, cashOutHook)); len(fs) > 0 {
		t.Errorf("a CashOut of a cash-out the traffic created:%s", describe(fs))
	}
	unknown := mut(mut(mut(cashOutHook, "externalId", `"before-the-proxy"`), "transactionId", `"99"`), "endToEndId", `"E13140088202603021159zyxwvutsrqp"`)
	fs := h.ObserveDelivery(delivery(3, 2*time.Second, unknown))
	if len(fs) != 1 || fs[0].Rule != "hook.unknown-transaction" || !fs[0].Notice || fs[0].Kind != contract.KindWebhook {
		t.Fatalf("an unknown cash-out: %v", describe(fs))
	}
	if fs := h.ObserveDelivery(delivery(4, 3*time.Second, unknown, header("webhook-id", "msg_3"))); len(fs) > 0 {
		t.Errorf("the same unknown cash-out again (a retry) gives another notice:%s", describe(fs))
	}
	// A PIX received by key starts outside the traffic; a MED too.
	if fs := h.ObserveDelivery(delivery(5, 4*time.Second, mut(receiveHook, "data.txId", `null`))); len(fs) > 0 {
		t.Errorf("a RECEIVE by key:%s", describe(fs))
	}
	if fs := h.ObserveDelivery(delivery(6, 5*time.Second, medHook)); len(fs) > 0 {
		t.Errorf("a MED:%s", describe(fs))
	}
	// A REFUND of a PIX whose refund the traffic asked for is known, by its
	// rtrId or its original's end-to-end id.
	h.Observe(exch("PUT "+refundPath, refundReq, 201, refundOK, at(7, 6*time.Second)))
	if fs := h.ObserveDelivery(delivery(8, 7*time.Second, mut(mut(refundHook, "data.refundId", ""), "data.id", `41`))); len(fs) > 0 {
		t.Errorf("a REFUND of a refund the traffic asked:%s", describe(fs))
	}
	// A TRANSFER, a charge's CashIn, a cob's RECEIVE the traffic created.
	h.Observe(exch("POST /dict/pix", transferReq, 200, transferOK, idem, at(9, 8*time.Second)))
	h.Observe(exch("POST /api/pix/cash-in", cashInReq, 201, cashInOK, at(10, 8*time.Second)))
	h.Observe(exch("PUT "+cobPath, cobReq, 201, cobOK, at(11, 8*time.Second)))
	for i, body := range []string{transferHook, mut(cashInHook, "transactionId", `"12"`), receiveHook} {
		if fs := h.ObserveDelivery(delivery(uint64(12+i), 9*time.Second, body)); len(fs) > 0 {
			t.Errorf("delivery %d:%s", i, describe(fs))
		}
	}
}

// TestHooks_StatusInconsistent: a delivery against earlier answers and
// deliveries, and a later read against a delivery; exchanges in flight
// together are never compared.
func TestHooks_StatusInconsistent(t *testing.T) {
	h := state.NewHooks(state.Bounds{})
	removed := strings.Replace(cobOK, `"ATIVA"`, `"REMOVIDA_PELO_USUARIO_RECEBEDOR"`, 1)
	h.Observe(exch("PUT "+cobPath, cobReq, 201, cobOK, at(1, 0)))
	h.Observe(exch("PATCH "+cobPath, `{"status":"REMOVIDA_PELO_USUARIO_RECEBEDOR"}`, 200, removed, at(2, time.Second)))
	fs := h.ObserveDelivery(delivery(3, 2*time.Second, receiveHook))
	if got := hookRules(fs); len(got) != 1 || got[0] != "hook.status-inconsistent" || fs[0].Related[0] != 2 || fs[0].Kind != contract.KindWebhook {
		t.Fatalf("RECEIVE LIQUIDATED of a removed cob: %s", describe(fs))
	}

	// A listing showing Error, then a CashOut CONFIRMED of it.
	h = state.NewHooks(state.Bounds{})
	h.Observe(exch("POST /api/pix/cash-out", cashOutReq, 201, cashOutOK, at(1, 0)))
	listed := mut(mut(mut(mut(listingOK, "data[0].status", `"Error"`), "data[0].operationType", `"Pix out"`), "data[0].externalId", `"e1"`), "data[0].transactionId", `"12"`)
	h.Observe(exch("GET /api/transactions", "", 200, listed, at(2, time.Second)))
	if fs := h.ObserveDelivery(delivery(3, 2*time.Second, cashOutHook)); !hasFinding(fs, "hook.status-inconsistent", "status") {
		t.Errorf("CashOut CONFIRMED of a cash-out listed Error: %s", describe(fs))
	}

	// Two deliveries of one transfer: LIQUIDATED, then ERROR.
	h = state.NewHooks(state.Bounds{})
	h.Observe(exch("POST /dict/pix", transferReq, 200, transferOK, idem, at(1, 0)))
	h.ObserveDelivery(delivery(2, time.Second, transferHook))
	failed := mut(mut(mut(transferHook, "data.status", `"ERROR"`), "data.errorCode", `"ORDER_REJECTED"`), "data.errorMessage", `"x"`)
	if fs := h.ObserveDelivery(delivery(3, 2*time.Second, failed)); !hasFinding(fs, "hook.status-inconsistent", "status") {
		t.Errorf("TRANSFER ERROR after TRANSFER LIQUIDATED: %s", describe(fs))
	}

	// A read after the delivery that goes back: the refund read
	// EM_PROCESSAMENTO after its REFUND said REFUNDED.
	h = state.NewHooks(state.Bounds{})
	h.Observe(exch("PUT "+refundPath, refundReq, 201, refundOK, at(1, 0)))
	if fs := h.ObserveDelivery(delivery(2, time.Second, refundHook)); len(fs) > 0 {
		t.Fatalf("REFUND of a refund in processing: %s", describe(fs))
	}
	fs = h.Observe(exch("GET "+refundPath, "", 200, refundOK, at(3, 2*time.Second)))
	if !hasFinding(fs, "hook.status-inconsistent", "status") || fs[0].Related[0] != 2 || fs[0].Method != "GET" {
		t.Errorf("a refund read EM_PROCESSAMENTO after REFUNDED: %s", describe(fs))
	}
	// The same read in flight with the delivery is not compared.
	h = state.NewHooks(state.Bounds{})
	h.Observe(exch("PUT "+refundPath, refundReq, 201, refundOK, at(1, 0)))
	h.ObserveDelivery(delivery(2, time.Second, refundHook))
	if fs := h.Observe(exch("GET "+refundPath, "", 200, refundOK, at(3, time.Second))); len(fs) > 0 {
		t.Errorf("a read in flight with the delivery: %s", describe(fs))
	}
	// A creation's answer may be a replay of its first: never compared.
	h = state.NewHooks(state.Bounds{})
	h.Observe(exch("POST /dict/pix", transferReq, 200, transferOK, idem, at(1, 0)))
	h.ObserveDelivery(delivery(2, time.Second, transferHook))
	if fs := h.Observe(exch("POST /dict/pix", transferReq, 200, transferOK, idem, at(3, 2*time.Second))); len(fs) > 0 {
		t.Errorf("a replayed transfer after its TRANSFER: %s", describe(fs))
	}
	// Two accounts naming one cob: never judged.
	h = state.NewHooks(state.Bounds{})
	other := header("Authorization", "Bearer "+tokenWith(`{"iss":"pixsandbox","sub":"2","client_id":"c2","iat":`+itoa(epoch.Unix())+`}`))
	h.Observe(exch("PUT "+cobPath, cobReq, 201, cobOK, at(1, 0)))
	h.Observe(exch("PATCH "+cobPath, `{"status":"REMOVIDA_PELO_USUARIO_RECEBEDOR"}`, 200, removed, other, at(2, time.Second)))
	if fs := h.ObserveDelivery(delivery(3, 2*time.Second, receiveHook)); len(fs) > 0 {
		t.Errorf("a txid of two accounts: %s", describe(fs))
	}
	// MED: listed CANCELLED, then med_accepted.
	h = state.NewHooks(state.Bounds{})
	h.Observe(exch("GET /api/med", "", 200, mut(mut(medOK, "data[0].id", `3`), "data[0].status", `"CANCELLED"`), at(1, 0)))
	if fs := h.ObserveDelivery(delivery(2, time.Second, medHook)); !hasFinding(fs, "hook.status-inconsistent", "status") {
		t.Errorf("med_accepted of a cancelled MED: %s", describe(fs))
	}
}

// TestHooks_IDChangedOnRetry: the same body again with another webhook-id;
// with the same id (a retry, a resend, a fan-out) it is fine.
func TestHooks_IDChangedOnRetry(t *testing.T) {
	h := state.NewHooks(state.Bounds{})
	h.Observe(exch("POST /dict/pix", transferReq, 200, transferOK, idem, at(1, 0)))
	for i, id := range []string{"msg_a", "msg_a"} {
		if fs := h.ObserveDelivery(delivery(uint64(2+i), time.Duration(i+1)*time.Second, transferHook, header("webhook-id", id))); len(fs) > 0 {
			t.Fatalf("delivery %d with the same id: %s", i, describe(fs))
		}
	}
	fs := h.ObserveDelivery(delivery(4, 3*time.Second, transferHook, header("webhook-id", "msg_a-2")))
	if len(fs) != 1 || fs[0].Rule != "hook.id-changed-on-retry" || fs[0].Seen != "msg_a-2" || fs[0].Related[0] != 2 {
		t.Fatalf("a retry with another id: %s", describe(fs))
	}
	if fs := h.ObserveDelivery(delivery(5, 4*time.Second, mut(transferHook, "data.id", `8`), header("webhook-id", "msg_b"))); len(hookRules(fs)) > 1 ||
		hasFinding(fs, "hook.id-changed-on-retry", "") {
		t.Errorf("another event: %s", describe(fs))
	}
}

// TestHooks_Bounded: the windows hold at most Bounds.Keys entries each.
func TestHooks_Bounded(t *testing.T) {
	h := state.NewHooks(state.Bounds{Keys: 10})
	for i := range 100 {
		h.ObserveDelivery(delivery(uint64(i), time.Duration(i)*time.Second, mut(transferHook, "data.id", itoa(int64(i)))))
	}
	for name, n := range h.Size() {
		if n > 10 {
			t.Errorf("window %s holds %d entries", name, n)
		}
	}
}
