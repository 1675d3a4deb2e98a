package conformance

import (
	"encoding/json"
	"net/http"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/pixsandbox/pixsandbox/conformance/framework"
)

// sandboxEvent is an event of GET /_sandbox/events.
type sandboxEvent struct {
	Name       string   `json:"name"`
	EventType  string   `json:"eventType"`
	Payloads   []string `json:"payloads"`
	Status     string   `json:"status"`
	MovesClock bool     `json:"movesClock"`
}

// eventResult is the answer of POST /_sandbox/events/{event}.
type eventResult struct {
	Event             string      `json:"event"`
	EventType         string      `json:"eventType"`
	AccountID         json.Number `json:"accountId"`
	ClockMovedSeconds json.Number `json:"clockMovedSeconds"`
	Deliveries        []struct {
		EventID string `json:"eventId"`
		URL     string `json:"url"`
	} `json:"deliveries"`
}

var _ = ginkgo.Describe("Sandbox events", framework.Res("sandbox-events"), framework.Sandbox, func() {
	f := framework.New("sandbox-events")

	// events lists GET /_sandbox/events.
	events := func(ctx ginkgo.SpecContext) []sandboxEvent {
		ginkgo.GinkgoHelper()
		r, err := f.Sandbox.Do(ctx, http.MethodGet, "/_sandbox/events", nil)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(r).To(framework.HaveStatus(http.StatusOK))
		var list struct {
			Data []sandboxEvent `json:"data"`
		}
		gomega.Expect(json.Unmarshal(r.Body, &list)).To(gomega.Succeed())
		return list.Data
	}

	// trigger triggers ev for the spec's account, whose every event type has
	// a target at inbox, and checks the webhook reaches it.
	trigger := func(ctx ginkgo.SpecContext, inbox *framework.Inbox, ev sandboxEvent) eventResult {
		ginkgo.GinkgoHelper()
		r, err := f.Sandbox.Do(ctx, http.MethodPost, "/_sandbox/events/"+ev.Name, map[string]any{"accountId": json.Number(f.Identity.ID)})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(r).To(framework.HaveStatus(http.StatusCreated), "POST /_sandbox/events/%s", ev.Name)
		var res eventResult
		gomega.Expect(json.Unmarshal(r.Body, &res)).To(gomega.Succeed())
		gomega.Expect(res.Event).To(gomega.Equal(ev.Name))
		gomega.Expect(res.EventType).To(gomega.Equal(ev.EventType))
		gomega.Expect(res.AccountID.String()).To(gomega.Equal(f.Identity.ID))
		gomega.Expect(res.Deliveries).To(gomega.HaveLen(1), "%s: one delivery, to the account's %s target", ev.Name, ev.EventType)
		gomega.Expect(res.Deliveries[0].URL).To(gomega.Equal(inbox.URL()))
		id := res.Deliveries[0].EventID
		f.Eventually(ctx, func(g gomega.Gomega) {
			var got *framework.Delivery
			for _, d := range inbox.Deliveries() {
				if d.Header.Get(framework.HeaderWebhookID) == id {
					got = &d
				}
			}
			g.Expect(got).NotTo(gomega.BeNil(), "%s: webhook %s has not arrived", ev.Name, id)
			var body map[string]any
			g.Expect(json.Unmarshal(got.Body, &body)).To(gomega.Succeed())
			kind := body["type"] // V2 envelope
			if kind == nil && body["med"] != nil {
				kind = "MED"
			} else if kind == nil {
				kind = body["event"] // CashOut, CashIn
			}
			g.Expect(ev.Payloads).To(gomega.ContainElement(kind), "%s: the payload's kind", ev.Name)
		})
		return res
	}

	// targets registers inbox as the spec's account's target of every event
	// type the events name.
	targets := func(ctx ginkgo.SpecContext, evs []sandboxEvent) *framework.Inbox {
		ginkgo.GinkgoHelper()
		inbox := f.Webhooks.Receiver.NewInbox()
		done := map[string]bool{}
		for _, ev := range evs {
			if !done[ev.EventType] {
				registerTarget(ctx, f, f.Identity.ID, ev.EventType, inbox, "")
				done[ev.EventType] = true
			}
		}
		return inbox
	}

	/*
		Check: sandbox/events-every-webhook
		Gap G-70: POST /_sandbox/events/{event} makes a real transaction whose webhook goes to the account's targets
		Sandbox: GET /_sandbox/events; POST /_sandbox/events/{event}; POST /_sandbox/webhook-targets
		Description: GET /_sandbox/events MUST answer 200 with events whose event types cover every
		registration event type (cash_in, cash_out, refund_in, refund_out, med_created, med_accepted,
		med_rejected). For each event that leaves the clock alone, POST /_sandbox/events/{event} for
		the spec's account, which has a target at the suite's receiver for every event type, MUST
		answer 201 with clockMovedSeconds 0 and one delivery to that target, and the receiver MUST
		get that delivery's webhook-id with a payload of one of the event's kinds.
	*/
	framework.SandboxIt("produces every webhook on request and delivers it to the account's target", framework.Webhook, func(ctx ginkgo.SpecContext) {
		evs := events(ctx)
		var types []string
		for _, ev := range evs {
			types = append(types, ev.EventType)
		}
		gomega.Expect(types).To(gomega.ContainElements("cash_in", "cash_out", "refund_in", "refund_out", "med_created", "med_accepted", "med_rejected"))
		inbox := targets(ctx, evs)
		for _, ev := range evs {
			if ev.MovesClock {
				continue
			}
			res := trigger(ctx, inbox, ev)
			gomega.Expect(res.ClockMovedSeconds.String()).To(gomega.Equal("0"), "%s leaves the clock alone", ev.Name)
		}
	})

	/*
		Check: sandbox/events-clock
		Gap G-70: an event that moves the clock moves it by no more than it says
		Sandbox: GET /_sandbox/events; POST /_sandbox/events/{event}; GET /_sandbox/clock
		Description: For each event GET /_sandbox/events marks movesClock, POST
		/_sandbox/events/{event} MUST answer 201 with clockMovedSeconds above 0, GET /_sandbox/clock
		MUST then read at least that much later than before (and, on a virtual clock, exactly that
		much), and the receiver MUST get the webhook.
	*/
	framework.SandboxIt("moves the clock only as far as an event says", framework.Webhook, ginkgo.Serial, func(ctx ginkgo.SpecContext) {
		evs := events(ctx)
		inbox := targets(ctx, evs)
		for _, ev := range evs {
			if !ev.MovesClock {
				continue
			}
			before, err := f.Sandbox.Clock(ctx)
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			res := trigger(ctx, inbox, ev)
			after, err := f.Sandbox.Clock(ctx)
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			moved, err := res.ClockMovedSeconds.Int64()
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			gomega.Expect(moved).To(gomega.BeNumerically(">", 0))
			d := after.Now.Sub(before.Now).Seconds()
			gomega.Expect(d).To(gomega.BeNumerically(">=", float64(moved)))
			if after.Virtual() {
				gomega.Expect(d).To(gomega.BeNumerically("==", float64(moved)), "a virtual clock moves by clockMovedSeconds exactly")
			}
		}
	})

	/*
		Check: sandbox/refund-forced
		Gap G-71: the control plane settles or fails a refund in processing at once
		Sandbox: POST /_sandbox/pix-in; POST /_sandbox/transactions/{id}/settle; POST /_sandbox/transactions/{id}/fail
		Description: Of two refunds of 10.00 of a PIX of 20.00 made with POST /api/pix/refund-in/{id},
		both EM_PROCESSAMENTO, POST /_sandbox/transactions/{id}/settle on the first's transactionId
		MUST answer 200 with status CONFIRMED and leave it DEVOLVIDO, and POST
		/_sandbox/transactions/{id}/fail with ACCOUNT_CLOSED on the second's MUST answer 200 with
		status ERROR and errorCode ACCOUNT_CLOSED and leave it NAO_REALIZADO with a motivo, without
		moving the clock; settling the first again MUST answer 409.
	*/
	framework.SandboxIt("settles and fails a refund in processing at once", func(ctx ginkgo.SpecContext) {
		p := receivePIX(ctx, f, "20.00")
		var ids, txns []string
		for range 2 {
			body := refundInBody(f, "10.00")
			r := createRefundIn(ctx, f, p.txID, body)
			ids, txns = append(ids, body["externalId"].(string)), append(txns, stringField(r, "transactionId"))
			gomega.Expect(getRefundAs(ctx, f, f.Token(ctx), p.e2e, ids[len(ids)-1])).To(framework.HaveJSONField("status", refundEmProcessamento))
		}
		before, err := f.Sandbox.Clock(ctx)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		settled, err := f.Sandbox.SettleTransaction(ctx, txns[0])
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(settled.Status).To(gomega.Equal("CONFIRMED"))
		gomega.Expect(getRefundAs(ctx, f, f.Token(ctx), p.e2e, ids[0])).To(framework.HaveJSONField("status", refundDevolvido))

		failed, err := f.Sandbox.FailTransaction(ctx, txns[1], "ACCOUNT_CLOSED")
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(failed.Status).To(gomega.Equal("ERROR"))
		gomega.Expect(failed.ErrorCode).To(gomega.Equal("ACCOUNT_CLOSED"))
		r := getRefundAs(ctx, f, f.Token(ctx), p.e2e, ids[1])
		gomega.Expect(r).To(framework.HaveJSONField("status", refundNaoRealizado))
		gomega.Expect(stringField(r, "motivo")).NotTo(gomega.BeEmpty(), "motivo")

		after, err := f.Sandbox.Clock(ctx)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		if after.Virtual() {
			gomega.Expect(after.Now).To(gomega.Equal(before.Now), "the clock did not move")
		}
		again, err := f.Sandbox.Do(ctx, http.MethodPost, "/_sandbox/transactions/"+txns[0]+"/settle", map[string]any{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(again).To(framework.HaveStatus(http.StatusConflict))
	})

	/*
		Check: sandbox/events-errors
		Gap G-70: the route's errors
		Sandbox: POST /_sandbox/events/{event}
		Description: POST /_sandbox/events/{event} MUST answer 404 in the minimal shape for an unknown
		event, 400 naming amount for an amount with 3 decimals, 400 naming errorCode for an unknown
		errorCode, and 422 naming the step for a cash-out above the account's balance; none of them
		MUST deliver anything.
	*/
	framework.SandboxIt("refuses bad events and parameters in the minimal shape", func(ctx ginkgo.SpecContext) {
		for _, tc := range []struct {
			event  string
			body   map[string]any
			status int
			says   string
		}{
			{"cashout.never", nil, http.StatusNotFound, "unknown event"},
			{"cashout.confirmed", map[string]any{"amount": json.Number("1.005")}, http.StatusBadRequest, "amount"},
			{"cashout.failed", map[string]any{"errorCode": "NOT_A_CODE"}, http.StatusBadRequest, "errorCode"},
			{"cashout.confirmed", map[string]any{"accountId": json.Number(f.Identity.ID), "amount": json.Number("5000.00")}, http.StatusUnprocessableEntity, "POST /api/pix/cash-out"},
		} {
			r, err := f.Sandbox.Do(ctx, http.MethodPost, "/_sandbox/events/"+tc.event, tc.body)
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			gomega.Expect(r).To(framework.HaveStatus(tc.status), "POST /_sandbox/events/%s %v", tc.event, tc.body)
			gomega.Expect(r).To(framework.HaveMinimalErrorShape())
			gomega.Expect(messageText(r)).To(gomega.ContainSubstring(tc.says))
		}
	})
})
