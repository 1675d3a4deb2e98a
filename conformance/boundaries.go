package conformance

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/pixsandbox/pixsandbox/conformance/framework"
	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
	"github.com/pixsandbox/pixsandbox/conformance/framework/sandbox"
)

// Checks of rules at their boundaries, on both sides and with more than one
// value: where the two sides of a mapping differ, amounts with trailing
// zeros, a time window at each of its edges, a refusal for every kind of
// transaction it concerns. Each catches a fault of the self-check
// (cmd/pixsandbox/selfcheck_test.go) that the checks at a single value let
// through.

var _ = ginkgo.Describe("PUT /cob/{txid}", framework.Res("cob"), framework.FamilyBacen, func() {
	f := framework.New("cob-fields")

	/*
		Check: cob/info-adicionais
		Spec: "Endpoints > PUT /cob/{txid}" (valor: original string, modalidadeAlteracao number; infoAdicionais array of nome/valor); "Resources > Immediate charge (cob)" (valor.original decimal with 2 places; valor.modalidadeAlteracao number; infoAdicionais items with nome and valor, both strings)
		Description: A PUT /cob/{txid} with valor {original "30.00", modalidadeAlteracao 1} and two
		infoAdicionais MUST be answered 2xx echoing valor.original "30.00" (trailing zeros kept),
		valor.modalidadeAlteracao the number 1 and infoAdicionais, in order; the same with
		modalidadeAlteracao 0 and valor.original "0.10" MUST echo 0 and "0.10".
	*/
	framework.SpecIt("accepts infoAdicionais and valor.modalidadeAlteracao and echoes them", func(ctx ginkgo.SpecContext) {
		info := []any{map[string]any{"nome": "Pedido", "valor": "42"}, map[string]any{"nome": "Loja", "valor": "Centro"}}
		for _, c := range []struct {
			original    string
			modalidade  int
			withInfoAdd bool
		}{{"30.00", 1, true}, {"0.10", 0, false}} {
			r := createCob(ctx, f, newTxID(f), cobBody(ownKey(f), c.original, func(m map[string]any) {
				m["valor"] = map[string]any{"original": c.original, "modalidadeAlteracao": c.modalidade}
				if c.withInfoAdd {
					m["infoAdicionais"] = info
				}
			}), "")
			gomega.Expect(r).To(framework.HaveJSONField("valor.original", c.original))
			gomega.Expect(r).To(framework.HaveJSONNumber("valor.modalidadeAlteracao"))
			gomega.Expect(r).To(framework.HaveJSONField("valor.modalidadeAlteracao", c.modalidade))
			if c.withInfoAdd {
				gomega.Expect(r).To(framework.HaveJSONField("infoAdicionais", info))
			}
		}
	})
})

var _ = ginkgo.Describe("PUT /pix/{e2eid}/devolucao/{id}", framework.Res("refund"), framework.FamilyBacen, func() {
	f := framework.New("refund-boundaries")

	/*
		Check: refund/full-natureza
		Spec: "Endpoints > PUT /pix/{e2eid}/devolucao/{id}" (refunds may be partial or full; natureza ORIGINAL or RETIRADA); "Resources > Refund (devolucao)" (valor decimal, 2 places; natureza)
		Description: A full refund (valor "10.00", the whole of a fresh PIX of 10.00) with natureza
		ORIGINAL MUST be accepted (2xx) echoing natureza ORIGINAL and valor "10.00" with its
		trailing zeros. It needs a PIX no one has refunded, which only a sandbox supplies.
	*/
	framework.SpecIt("accepts a full refund and echoes its natureza and valor with trailing zeros", func(ctx ginkgo.SpecContext) {
		p := receivePIX(ctx, f, "10.00")
		r := createRefund(ctx, f, p.e2e, newRefundID(f), refundBody("10.00"), "")
		gomega.Expect(r).To(framework.HaveJSONField("natureza", "ORIGINAL"))
		gomega.Expect(r).To(framework.HaveJSONField("valor", "10.00"))
	})

	/*
		Check: refund/not-a-receipt-every-kind
		Spec: "Endpoints > PUT /pix/{e2eid}/devolucao/{id}" (only received PIX can be refunded; 404 transaction is not a receipt); "Endpoints > POST /api/pix/refund-in/{id}" (id of the original transaction; 400 transaction not found; 404 parent transaction not found; externalId corresponds to the id of the Central Bank-compatible refund route)
		Gap G-44: on refund-in, a parent that is not a receipt is 400 on a sandbox; the contract lists "transaction not found" among the 400s and "parent transaction not found" as the 404, so either is accepted here
		Sandbox: POST /_sandbox/transactions/{id}/settle; POST /_sandbox/clock/advance; GET /_sandbox/transactions/{id}
		Description: A refund naming a settled cash-out (CONFIRMED), a settled POST /dict/pix
		transfer and a settled refund the account made MUST each be refused and move nothing: on
		PUT /pix/{e2eid}/devolucao/{id} (by endToEndId; for the refund, its rtrId) with 404, and on
		POST /api/pix/refund-in/{id} (by transactionId) with 400 or 404. As the control, a refund of
		the PIX the account received MUST be accepted on both routes.
	*/
	framework.SandboxIt("refuses to refund every kind of settled transaction that is not a received PIX, on both refund routes", ginkgo.Serial, func(ctx ginkgo.SpecContext) {
		settled := func(id string) string {
			ginkgo.GinkgoHelper()
			tx, err := f.Sandbox.SettleTransaction(ctx, id)
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			gomega.Expect(tx.Status).To(gomega.Equal("CONFIRMED"))
			gomega.Expect(tx.EndToEndID).To(gomega.MatchRegexp(endToEndPattern), "endToEndId of the settled transaction %s", id)
			return tx.EndToEndID
		}
		cashOutID := acceptCashOut(ctx, f, cashOutRequest(f, "10.00"), "SETTLEMENT_PENDING")
		cashOut := settled(cashOutID)
		transfer := settledTransfer(ctx, f)
		p := receivePIX(ctx, f, "10.00")
		body := refundInBody(f, "1.00")
		refundTxID := stringField(createRefundIn(ctx, f, p.txID, body), "transactionId")
		var rtrID string
		f.AwaitSettlement(ctx, func(g gomega.Gomega) {
			r := getRefundAs(ctx, f, f.Token(ctx), p.e2e, body["externalId"].(string))
			g.Expect(r).To(framework.HaveJSONField("status", "DEVOLVIDO"))
			rtrID = stringField(r, "rtrId")
		})

		before := f.Balance(ctx)
		for _, k := range []struct{ what, e2e, id string }{
			{"a settled cash-out", cashOut, cashOutID},
			{"a settled transfer", transfer.e2e, transfer.id},
			{"a settled refund", rtrID, refundTxID},
		} {
			ginkgo.By(k.what + " on PUT /pix/{e2eid}/devolucao/{id} (its endToEndId)")
			expectRefundRejected(putRefund(ctx, f, k.e2e, newRefundID(f), refundBody("1.00"), ""), http.StatusNotFound)
			ginkgo.By(k.what + " on POST /api/pix/refund-in/{id} (its transactionId)")
			r := postRefundIn(ctx, f, k.id, refundInBody(f, "1.00"), "")
			gomega.Expect(r.Status).To(gomega.BeElementOf(http.StatusBadRequest, http.StatusNotFound), "status of the refund-in of %s: %s", k.what, r)
		}
		expectBalance(f.Balance(ctx), before, "after the refused refunds")
		ginkgo.By("the control: a received PIX is refundable on both routes")
		controlRefund(ctx, f, "a refund of the received PIX", p.e2e, newRefundID(f), refundBody("1.00"))
		controlRefundIn(ctx, f, "a refund-in of the received PIX", p.txID, refundInBody(f, "1.00"))
	})
})

var _ = ginkgo.Describe("PUT /pix/{e2eid}/devolucao/{id}", framework.Res("refund"), framework.FamilyBacen, func() {
	f := framework.New("refund-window-edge")

	/*
		Check: refund/deadline-edge
		Spec: "Endpoints > PUT /pix/{e2eid}/devolucao/{id}" (refunds are accepted up to 89 days after receipt; 422 deadline expired); "Endpoints > POST /api/pix/refund-in/{id}" (refund must be within 89 days; 400 deadline exceeded)
		Gap G-45: accepted while at most 89 × 24 hours have passed since the PIX was received, on the simulation clock
		Sandbox: POST /_sandbox/pix-in; POST /_sandbox/clock/advance
		Description: Of three PIX received at the same moment, a refund of the first MUST be
		accepted 89 × 24 hours later (one minute less on a real clock), and one second past
		89 × 24 hours refunds of the second (PUT) and the third (refund-in) MUST be refused with
		422 and 400: the window's edge from both sides, not a day apart.
	*/
	framework.SandboxIt("refuses a refund one second past 89 × 24 hours after accepting one at 89 × 24 hours", framework.SandboxChoice, ginkgo.Serial, func(ctx ginkgo.SpecContext) {
		a, b, c := receivePIX(ctx, f, refundPIXAmount), receivePIX(ctx, f, refundPIXAmount), receivePIX(ctx, f, refundPIXAmount)
		clk, err := f.Sandbox.Clock(ctx)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		edge, past := 89*24*time.Hour, time.Second
		if !clk.Virtual() {
			edge, past = edge-time.Minute, time.Minute+time.Second // the wall time of the exchange counts on a real clock
		}
		advance(ctx, f, edge)
		createRefundAs(ctx, f, freshToken(ctx, f), a.e2e, newRefundID(f), refundBody("1.00"), "")
		advance(ctx, f, past)
		tok := freshToken(ctx, f)
		expectRefundRejected(putRefundAs(ctx, f, tok, b.e2e, newRefundID(f), refundBody("1.00"), ""), http.StatusUnprocessableEntity)
		gomega.Expect(postRefundInAs(ctx, f, tok, c.txID, refundInBody(f, "1.00"), "")).To(framework.HaveStatus(http.StatusBadRequest), "refund-in one second past the window")
	})
})

var _ = ginkgo.Describe("GET /balance and GET /api/balance", framework.Res("balance"), framework.FamilyStd, func() {
	f := framework.New("balance-blocked")

	/*
		Check: balance/standard-mapping-blocked
		Spec: "Resources > Balance (Central Bank-compatible)", mapping to the standard balance (grossBalance = available + blocked; blockedBalance = blocked; netBalance = available)
		Sandbox: X-Sandbox-Scenario: SETTLEMENT_PENDING (a cash-out that stays pending, its amount blocked)
		Description: With 10.00 blocked by a pending cash-out, GET /balance and GET /api/balance
		MUST answer grossBalance = netBalance + blockedBalance with blockedBalance equal to the
		blocked of GET /accounts/balances, which is above zero: the mapping where its sides differ.
	*/
	framework.SandboxIt("maps the balance while an amount is blocked: gross = net + blocked, blocked above zero", func(ctx ginkgo.SpecContext) {
		acceptCashOut(ctx, f, cashOutRequest(f, "10.00"), "SETTLEMENT_PENDING")
		for _, path := range []string{"/balance", "/api/balance"} {
			bacen, r := consistentBalances(ctx, f, f.Token(ctx), path)
			gomega.Expect(r).To(framework.HaveSuccessStatus())
			gross, blocked, net := centsField(r, "grossBalance"), centsField(r, "blockedBalance"), centsField(r, "netBalance")
			gomega.Expect(bacen.blocked).To(gomega.BeNumerically(">", 0), "blocked of GET /accounts/balances with a pending cash-out")
			gomega.Expect(brl(blocked)).To(gomega.Equal(brl(bacen.blocked)), "%s blockedBalance == blocked", path)
			gomega.Expect(brl(net)).To(gomega.Equal(brl(bacen.available)), "%s netBalance == available", path)
			gomega.Expect(brl(gross)).To(gomega.Equal(brl(net+blocked)), "%s grossBalance == netBalance + blockedBalance", path)
		}
	})
})

var _ = ginkgo.Describe("POST /dict/pix", framework.Res("transfer"), framework.FamilyBacen, func() {
	f := framework.New("transfer-amounts")

	/*
		Check: transfer/body-edges-accepted
		Spec: "Endpoints > POST /dict/pix" (payment.amount up to 2 decimals; creditorDocument required when priority is HIGH; expiration min 1, max 10800)
		Description: The controls of transfer/body-invalid, just inside each rule: transfers of
		0.01 with expiration 1, with expiration 10800, with priority HIGH and a creditorDocument,
		and of 0.10 (2 decimals, a trailing zero) MUST each be accepted (2xx, type PENDING). They
		need a key of the target's DICT (-dict-key, or a sandbox).
	*/
	framework.SpecIt("accepts a body just inside each rule that transfer/body-invalid breaks", func(ctx ginkgo.SpecContext) {
		dest := transferDestination(ctx, f)
		for what, body := range map[string][]byte{
			"expiration 1":                    transferBody(dest.key, "0.01", func(m map[string]any) { m["expiration"] = 1 }),
			"expiration 10800":                transferBody(dest.key, "0.01", func(m map[string]any) { m["expiration"] = 10800 }),
			"priority HIGH, creditorDocument": transferBody(dest.key, "0.01", func(m map[string]any) { m["priority"], m["creditorDocument"] = "HIGH", sampleCPF }),
			"payment.amount 0.10":             transferBody(dest.key, "0.10"),
		} {
			ginkgo.By(what)
			acceptTransfer(ctx, f, framework.UUIDv4(), body, "")
		}
	})

	/*
		Check: transfer/webhook-trailing-zeros
		Spec: "Events > Envelope V2", TRANSFER (payment {amount string, currency}); "Number conventions" (Central Bank-compatible money as strings with exactly 2 decimal places)
		Sandbox: POST /_sandbox/dict/keys (the destination); POST /_sandbox/webhook-targets (cash_out); POST /_sandbox/clock/advance
		Description: Transfers of 10.50 and 12.00 MUST each, at settlement, send a TRANSFER webhook
		whose data.payment.amount is the string "10.50" ("12.00"): the trailing zeros kept.
	*/
	framework.SandboxIt("sends TRANSFER webhooks whose payment.amount keeps its trailing zeros", ginkgo.Serial, framework.Webhook, func(ctx ginkgo.SpecContext) {
		dest := transferDestination(ctx, f)
		registerTarget(ctx, f, f.Identity.ID, eventCashOut, f.Webhooks, "")
		for _, amount := range []string{"10.50", "12.00"} {
			idem := framework.UUIDv4()
			acceptTransfer(ctx, f, idem, transferBody(dest.key, amount), "")
			d := awaitWebhook(ctx, f, f.Webhooks, true, "data.idempotencyKey", idem)
			gomega.Expect(d).To(framework.HaveJSONField("data.payment.amount", amount))
		}
	})
})

var _ = ginkgo.Describe("POST /api/pix/cash-out", framework.Res("cash-out"), framework.FamilyStd, func() {
	f := framework.New("cash-out-night")

	/*
		Check: cash-out/length-edges-accepted
		Spec: "Endpoints > POST /api/pix/cash-out" (description max 140; details.name max 100); "Limits", description and details.name rows
		Description: The controls of cash-out/body-invalid at the length bounds: a cash-out of 0.01
		with a description of exactly 140 characters and a details.name of exactly 100 MUST be
		accepted (201, PENDING).
	*/
	framework.SpecIt("accepts a description of 140 characters and a details.name of 100", func(ctx ginkgo.SpecContext) {
		acceptCashOut(ctx, f, cashOutRequest(f, "0.01", func(m, d map[string]any) {
			m["description"] = strings.Repeat("d", 140)
			d["name"] = strings.Repeat("n", 100)
		}), "")
	})

	/*
		Check: cash-out/night-window-edges
		Spec: "Errors > Cash-out and cash-in codes", PIX_NIGHT_LIMIT_EXCEEDED (night operation (20:00 to 06:00) above reduced limit)
		Sandbox: POST /_sandbox/clock; PUT /_sandbox/accounts/{id}/settings {"nightLimit":20.00} (limit values are Gap G-24)
		Description: With a night limit of 20.00, a cash-out of 20.01 MUST be accepted at 19:59:59
		and at 06:00:00 in São Paulo, and refused with PIX_NIGHT_LIMIT_EXCEEDED at 20:00:00 and at
		05:59:59: the night window at each of its four edges.
	*/
	framework.SandboxIt("applies the night limit from 20:00 to 06:00 in São Paulo, at each edge", ginkgo.Serial, func(ctx ginkgo.SpecContext) {
		putSettings(ctx, f, sandbox.SettingsUpdate{NightLimit: "20.00"})
		// São Paulo keeps UTC−3 all year (no daylight saving time since 2019).
		day := nextUTCDay(ctx, f)
		for _, edge := range []struct {
			at    time.Time
			night bool
		}{
			{day.Add(22*time.Hour + 59*time.Minute + 59*time.Second), false}, // 19:59:59
			{day.Add(23 * time.Hour), true},                                  // 20:00:00
			{day.Add(32*time.Hour + 59*time.Minute + 59*time.Second), true},  // 05:59:59 the next day
			{day.Add(33 * time.Hour), false},                                 // 06:00:00
		} {
			_, err := f.Sandbox.SetClock(ctx, edge.at)
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			ginkgo.By(edge.at.Add(-3*time.Hour).Format("15:04:05") + " in São Paulo")
			// A fresh token: the clock moved past the last one's 1800 s.
			r := f.Do(ctx, http.MethodPost, cashOutPath, freshToken(ctx, f), encodeJSON(cashOutRequest(f, "20.01")), nil)
			if edge.night {
				expectCashOutError(r, "PIX_NIGHT_LIMIT_EXCEEDED")
			} else {
				gomega.Expect(r).To(framework.HaveStatus(http.StatusCreated), "a cash-out of 20.01 by day")
			}
		}
	})
})

var _ = ginkgo.Describe("POST /api/pix/cash-out", framework.Res("cash-out"), framework.FamilyStd, func() {
	f := framework.New("cash-out-fee-decides", framework.WithBalance("11.50"))

	/*
		Check: cash-out/fee-decides
		Spec: "Errors > Cash-out and cash-in codes", PIX_INSUFFICIENT_BALANCE (available balance below amount plus fee)
		Sandbox: an account opened with 11.50; PUT /_sandbox/accounts/{id}/settings {"fee":1.50} (Gap G-24)
		Description: With 11.50 available and a fee of 1.50, a cash-out of 10.01 (which the balance
		covers, but not with its fee: 11.51) MUST be refused with PIX_INSUFFICIENT_BALANCE and move
		nothing; a cash-out of 10.00 (exactly 11.50 with its fee) MUST then be accepted, leaving
		available at 0.00 and 11.50 blocked: the fee decides, on both sides of the bound.
	*/
	framework.SandboxIt("refuses a cash-out that only its fee takes above the available balance, and accepts one at the bound", func(ctx ginkgo.SpecContext) {
		putSettings(ctx, f, sandbox.SettingsUpdate{Fee: "1.50"})
		before := f.Balance(ctx)
		gomega.Expect(brl(before.Available)).To(gomega.Equal("11.50"), "the opening balance")
		expectCashOutError(postCashOut(ctx, f, cashOutRequest(f, "10.01"), ""), "PIX_INSUFFICIENT_BALANCE")
		expectBalance(f.Balance(ctx), before, "after the refused cash-out")
		acceptCashOut(ctx, f, cashOutRequest(f, "10.00"), "")
		expectBalance(f.Balance(ctx), framework.Balance{Available: 0, Blocked: before.Blocked + 1150}, "after the cash-out at the bound")
	})
})

var _ = ginkgo.Describe("GET /api/pix/transactions/pix-key/{pixKey}", framework.Res("transactions"), framework.FamilyStd, func() {
	f := framework.New("key-listing-cap")

	/*
		Check: key-listing/cap-reached
		Spec: "Endpoints > GET /api/pix/transactions/pix-key/{pixKey}" (size max 1000; at most 1000 results in total); "Limits", size by PIX key row
		Sandbox: POST /_sandbox/pix-in (1001 PIX of 0.01 to the account's EVP key)
		Description: With 1001 PIX received at one key, its listing MUST report metadata.total
		1000 and list 1000 items with size=1000; page 2 of size 1000 MUST be empty, page 2 of
		size 500 MUST hold 500 items and page 3 none: the cap reached, and held, from both sides.
	*/
	framework.SandboxIt("lists at most 1000 results for a key that received 1001 PIX", func(ctx ginkgo.SpecContext) {
		key, payer := evpKey(f.Account), externalPayer(ctx, f)
		const received, workers = 1001, 8
		errs := make(chan error, received)
		next := make(chan struct{})
		for range workers {
			go func() {
				for range next {
					_, err := f.Sandbox.PixIn(ctx, sandbox.PaymentRequest{Key: key, Amount: "0.01", Payer: payer})
					errs <- err
				}
			}()
		}
		for range received {
			next <- struct{}{}
		}
		close(next)
		for range received {
			gomega.Expect(<-errs).NotTo(gomega.HaveOccurred(), "receiving a PIX of 0.01")
		}

		tok := f.Token(ctx)
		for _, page := range []struct {
			query string
			page  int
			size  int
			items int
		}{
			{"size=1000", 1, 1000, 1000},
			{"page=2&size=1000", 2, 1000, 0},
			{"page=2&size=500", 2, 500, 500},
			{"page=3&size=500", 3, 500, 0},
		} {
			r := listAs(ctx, f, tok, withQuery(keyListingPath(key), page.query))
			gomega.Expect(expectListingEnvelope(r, page.page, page.size)).To(gomega.Equal(1000), "metadata.total of %s", page.query)
			gomega.Expect(dataItems(r)).To(gomega.HaveLen(page.items), "items of %s", page.query)
		}
	})
})

// sentTransfer is a POST /dict/pix transfer: its transaction id and endToEndId.
type sentTransfer struct{ id, e2e string }

// settledTransfer sends a POST /dict/pix transfer of transferAmount to a
// fresh key, lets it settle (the spec must be ginkgo.Serial) and returns it,
// its endToEndId read through the control plane.
func settledTransfer(ctx context.Context, f *framework.Framework) sentTransfer {
	ginkgo.GinkgoHelper()
	dest := transferDestination(ctx, f)
	t := sentTransfer{id: transferID(acceptTransfer(ctx, f, framework.UUIDv4(), transferBody(dest.key, transferAmount), ""))}
	f.AwaitSettlement(ctx, func(g gomega.Gomega) {
		tx, err := f.Sandbox.Transaction(ctx, t.id)
		g.Expect(err).NotTo(gomega.HaveOccurred())
		g.Expect(tx.EndToEndID).To(gomega.MatchRegexp(endToEndPattern), "endToEndId of the settled transfer")
		t.e2e = tx.EndToEndID
	})
	return t
}

// nextUTCDay returns the midnight (UTC) after the simulation clock's now.
func nextUTCDay(ctx context.Context, f *framework.Framework) time.Time {
	ginkgo.GinkgoHelper()
	clk, err := f.Sandbox.Clock(ctx)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return clk.Now.UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
}

var _ = ginkgo.Describe("PUT /cob/{txid} and POST /api/pix/cash-in", framework.Res("cob"), framework.FamilyBacen, func() {
	f := framework.New("receive-amounts")

	/*
		Check: cob/receive-webhook-trailing-zeros
		Spec: "Events > Envelope V2", RECEIVE (payment {amount string, currency}); "Number conventions" (Central Bank-compatible money as strings with exactly 2 decimal places)
		Sandbox: POST /_sandbox/payments {txid} and {pixCode}; POST /_sandbox/webhook-targets (cash_in)
		Description: A cob of 10.50 paid by its txid and a cash-in charge of 12.00 paid by its
		pixCode MUST each send the cash_in target a RECEIVE webhook whose data.payment.amount is
		the string "10.50" ("12.00"): the trailing zeros kept.
	*/
	framework.SandboxIt("sends RECEIVE webhooks whose payment.amount keeps its trailing zeros", framework.Webhook, func(ctx ginkgo.SpecContext) {
		registerTarget(ctx, f, f.Identity.ID, eventCashIn, f.Webhooks, "")
		txid := newTxID(f)
		createCob(ctx, f, txid, cobBody(ownKey(f), "10.50"), "")
		pay(ctx, f, sandbox.PaymentRequest{TxID: txid, Payer: externalPayer(ctx, f)})
		expectReceiveWebhook(awaitWebhook(ctx, f, f.Webhooks, false, "data.txId", txid), txid, "10.50")

		c := acceptCashIn(ctx, f, cashInRequest(f, "12.00"), "")
		pay(ctx, f, sandbox.PaymentRequest{PixCode: c.pixCode, Payer: externalPayer(ctx, f)})
		chargeTxID := transaction(ctx, f, c.id).TxID
		d := awaitWebhook(ctx, f, f.Webhooks, false, "data.txId", chargeTxID)
		gomega.Expect(d).To(framework.HaveJSONField("type", "RECEIVE"))
		gomega.Expect(d).To(framework.HaveJSONField("data.payment.amount", "12.00"))
	})
})

var _ = ginkgo.Describe("PUT /pix/{e2eid}/devolucao/{id}", framework.Res("refund"), framework.FamilyBacen, func() {
	f := framework.New("refund-amounts")

	/*
		Check: refund/webhook-trailing-zeros
		Spec: "Events > Envelope V2", REFUND (payment {amount, currency}: the original PIX); "Number conventions" (Central Bank-compatible money as strings with exactly 2 decimal places)
		Sandbox: POST /_sandbox/pix-in (a PIX of 10.50); POST /_sandbox/webhook-targets (refund_in); POST /_sandbox/clock/advance
		Description: A refund of 1.20 of a PIX of 10.50 MUST, once processed, send the refund_in
		target a REFUND webhook whose data.payment.amount reads 10.50 with both decimals ("10.50",
		not "10.5") and whose refunds[] entry for its rtrId carries 1.20.
	*/
	framework.SandboxIt("sends a REFUND webhook whose payment.amount keeps its trailing zeros", ginkgo.Serial, framework.Webhook, func(ctx ginkgo.SpecContext) {
		registerTarget(ctx, f, f.Identity.ID, eventRefundIn, f.Webhooks, "")
		p := receivePIX(ctx, f, "10.50")
		id := newRefundID(f)
		rtrID := stringField(createRefund(ctx, f, p.e2e, id, refundBody("1.20"), ""), "rtrId")
		d := awaitWebhook(ctx, f, f.Webhooks, true, "data.refundId", id)
		gomega.Expect(d).To(framework.HaveJSONField("type", "REFUND"))
		gomega.Expect(d).To(framework.HaveJSONField("data.payment.amount", gomega.BeElementOf("10.50", json.Number("10.50"))))
		amount, err := apiclient.Cents(webhookRefund(d, rtrID)["payment"].(map[string]any)["amount"])
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "refunds[].payment.amount in %s", d)
		gomega.Expect(brl(amount)).To(gomega.Equal("1.20"), "refunds[].payment.amount")
	})
})

var _ = ginkgo.Describe("GET /api/transactions and GET /api/pix/transactions/pix-key/{pixKey}", framework.Res("transactions"), framework.FamilyStd, func() {
	f := framework.New("listing-amounts")

	/*
		Check: transactions/amounts-trailing-zeros
		Spec: "Resources > Transaction listing item" (originalAmount, feeAmount, finalAmount: number, BRL, 2 decimals); "Endpoints > GET /api/pix/transactions/pix-key/{pixKey}" (amounts in BRL with 2 decimals)
		Sandbox: PUT /_sandbox/accounts/{id}/settings {"cashInFee":0.50}; POST /_sandbox/pix-in (a PIX of 10.50 to the account's EVP key)
		Description: With a cash-in fee of 0.50, a PIX of 10.50 MUST be listed by GET
		/api/transactions (by its endToEndId) and by the listing of the key it was sent to with
		originalAmount 10.50, feeAmount 0.50 and finalAmount 10.00 written with their 2 decimals
		(the JSON numbers 10.50, 0.50 and 10.00, not 10.5, 0.5 and 10).
	*/
	framework.SandboxIt("lists amounts with their 2 decimals, trailing zeros kept", func(ctx ginkgo.SpecContext) {
		putSettings(ctx, f, sandbox.SettingsUpdate{CashInFee: "0.50"})
		p := receivePIX(ctx, f, "10.50")
		tok := f.Token(ctx)
		for _, path := range []string{
			withQuery(transactionsPath, "endToEndId="+url.QueryEscape(p.e2e)),
			withQuery(keyListingPath(evpKey(f.Account)), "size=1000"),
		} {
			var item map[string]any
			for _, it := range dataItems(listAs(ctx, f, tok, path)) {
				if it["endToEndId"] == p.e2e {
					item = it
				}
			}
			gomega.Expect(item).NotTo(gomega.BeNil(), "an item with endToEndId %s in GET %s", p.e2e, path)
			for field, want := range map[string]string{"originalAmount": "10.50", "feeAmount": "0.50", "finalAmount": "10.00"} {
				gomega.Expect(item[field]).To(gomega.Equal(json.Number(want)), "%s in GET %s", field, path)
			}
		}
	})
})

var _ = ginkgo.Describe("POST /api/pix/cash-out", framework.Res("cash-out"), framework.FamilyStd, func() {
	f := framework.New("cash-out-refusal-leaves", framework.WithBalance("10.00"))

	/*
		Check: cash-out/refusal-leaves-totals
		Spec: "Errors > Cash-out and cash-in codes", PIX_INSUFFICIENT_BALANCE (available balance below amount plus fee) and PIX_DAILY_LIMIT_EXCEEDED (daily accumulated amount above daily limit); "Endpoints > POST /api/pix/cash-out" (externalId unique per account)
		Sandbox: an account opened with 10.00; PUT /_sandbox/accounts/{id}/settings {"dailyLimit":20.00,"fee":0.00} (limit values are Gap G-24)
		Description: With 10.00 available, no fee and a daily limit of 20.00, a cash-out of 10.01
		MUST be refused with PIX_INSUFFICIENT_BALANCE and leave available and blocked as they were;
		a cash-out of 10.00 with the same externalId MUST then be accepted and move exactly 10.00
		to blocked: the refusal took no part of the daily total (10.01 and 10.00 together are above
		20.00) and did not take the externalId.
	*/
	framework.SandboxIt("leaves the daily total as it was after a refused cash-out", func(ctx ginkgo.SpecContext) {
		putSettings(ctx, f, sandbox.SettingsUpdate{DailyLimit: "20.00", Fee: "0.00"})
		before := f.Balance(ctx)
		refused := cashOutRequest(f, "10.01")
		expectCashOutError(postCashOut(ctx, f, refused, ""), "PIX_INSUFFICIENT_BALANCE")
		expectBalance(f.Balance(ctx), before, "after the refused cash-out")
		again := cashOutRequest(f, "10.00")
		again["externalId"] = refused["externalId"]
		acceptCashOut(ctx, f, again, "")
		expectBalance(f.Balance(ctx), framework.Balance{Available: before.Available - 1000, Blocked: before.Blocked + 1000}, "after the cash-out of 10.00")
	})
})

var _ = ginkgo.Describe("POST /api/pix/cash-out", framework.Res("cash-out"), framework.FamilyStd, func() {
	f := framework.New("cash-out-end-to-end")

	/*
		Check: cash-out/end-to-end-id-value
		Gap G-29: the sandbox's end-to-end ids are E + the sandbox ISPB 13140088 + the UTC minute + 11 alphanumerics (docs/spec-gaps.md), the Central Bank's form (yyyyMMddHHmm is the UTC minute of submission)
		Sandbox: X-Sandbox-Scenario: SETTLEMENT_PENDING; POST /_sandbox/transactions/{id}/settle
		Description: A cash-out settled through the control plane MUST carry an endToEndId whose
		characters 2 to 9 are the sandbox's ISPB 13140088 and whose characters 10 to 21 are its
		processedAt in UTC as yyyyMMddHHmm: the value of each part, not only the id's form.
	*/
	framework.SandboxIt("writes the settlement's UTC minute and the payer's ISPB in the endToEndId", framework.SandboxChoice, func(ctx ginkgo.SpecContext) {
		tx, err := f.Sandbox.SettleTransaction(ctx, acceptCashOut(ctx, f, cashOutRequest(f, "10.00"), "SETTLEMENT_PENDING"))
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(tx.EndToEndID).To(gomega.MatchRegexp(endToEndPattern), "endToEndId of the settled cash-out")
		at, err := time.Parse(time.RFC3339Nano, tx.ProcessedAt)
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "processedAt %q", tx.ProcessedAt)
		gomega.Expect(tx.EndToEndID[1:9]).To(gomega.Equal("13140088"), "the ISPB in %s", tx.EndToEndID)
		gomega.Expect(tx.EndToEndID[9:21]).To(gomega.Equal(at.UTC().Format("200601021504")), "the minute in %s, processedAt %s", tx.EndToEndID, tx.ProcessedAt)
	})
})
