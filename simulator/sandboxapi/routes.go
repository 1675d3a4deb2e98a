package sandboxapi

import (
	"net/http"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi"
)

// routes is the /_sandbox control plane on one screen: it drives what the real
// world would do. Every row answers errors in the minimal shape, needs no
// bearer token, and needs the admin token when the server has one (Admin).
// docs/openapi.yaml must list every route (httpapi's openapi_test.go reads
// this table too).
func (cp *ControlPlane) routes() []*httpapi.Route {
	rts := []*httpapi.Route{
		// Clock (clock.go).
		{Name: "sandbox.clock.get", Method: http.MethodGet, Path: "/_sandbox/clock", Success: http.StatusOK, Handle: cp.handleClockGet},
		{Name: "sandbox.clock.set", Method: http.MethodPost, Path: "/_sandbox/clock", Success: http.StatusOK, Handle: cp.handleClockSet},
		{Name: "sandbox.clock.advance", Method: http.MethodPost, Path: "/_sandbox/clock/advance", Success: http.StatusOK, Handle: cp.handleClockAdvance},
		// Accounts, their tokens and certificates (account.go), and the reset of every record (reset.go).
		{Name: "sandbox.accounts.create", Method: http.MethodPost, Path: "/_sandbox/accounts", Success: http.StatusCreated, Handle: cp.handleAccountCreate},
		{Name: "sandbox.accounts.list", Method: http.MethodGet, Path: "/_sandbox/accounts", Success: http.StatusOK, Handle: cp.handleAccountList},
		{Name: "sandbox.accounts.get", Method: http.MethodGet, Path: "/_sandbox/accounts/{id}", Success: http.StatusOK, Handle: cp.handleAccountGet},
		{Name: "sandbox.accounts.token", Method: http.MethodPost, Path: "/_sandbox/accounts/{id}/token", Success: http.StatusCreated, Handle: cp.handleAccountToken},
		{Name: "sandbox.certificates.create", Method: http.MethodPost, Path: "/_sandbox/accounts/{id}/certificates", Success: http.StatusCreated, Handle: cp.handleCertificateCreate},
		{Name: "sandbox.reset", Method: http.MethodPost, Path: "/_sandbox/reset", Success: http.StatusOK, Handle: cp.handleReset, Exclusive: true},
		// Account limits, fees and the rest of their settings (settings.go).
		{Name: "sandbox.settings.get", Method: http.MethodGet, Path: "/_sandbox/accounts/{id}/settings", Success: http.StatusOK, Handle: cp.handleSettingsGet},
		{Name: "sandbox.settings.put", Method: http.MethodPut, Path: "/_sandbox/accounts/{id}/settings", Success: http.StatusOK, Handle: cp.handleSettingsPut},
		// Scheduled jobs (job.go), the scenario catalogue (scenario.go), the ledger invariants (invariants.go).
		{Name: "sandbox.jobs.create", Method: http.MethodPost, Path: "/_sandbox/jobs", Success: http.StatusCreated, Handle: cp.handleJobCreate},
		{Name: "sandbox.jobs.list", Method: http.MethodGet, Path: "/_sandbox/jobs", Success: http.StatusOK, Handle: cp.handleJobList},
		{Name: "sandbox.jobs.get", Method: http.MethodGet, Path: "/_sandbox/jobs/{id}", Success: http.StatusOK, Handle: cp.handleJobGet},
		{Name: "sandbox.scenarios.list", Method: http.MethodGet, Path: "/_sandbox/scenarios", Success: http.StatusOK, Handle: cp.handleScenarios},
		{Name: "sandbox.invariants", Method: http.MethodGet, Path: "/_sandbox/invariants", Success: http.StatusOK, Handle: cp.handleInvariants},
		// Transactions: read, force settlement or failure (transaction.go).
		{Name: "sandbox.transactions.get", Method: http.MethodGet, Path: "/_sandbox/transactions/{id}", Success: http.StatusOK, Handle: cp.handleTransactionGet},
		{Name: "sandbox.transactions.settle", Method: http.MethodPost, Path: "/_sandbox/transactions/{id}/settle", Success: http.StatusOK, Handle: cp.handleTransactionSettle},
		{Name: "sandbox.transactions.fail", Method: http.MethodPost, Path: "/_sandbox/transactions/{id}/fail", Success: http.StatusOK, Handle: cp.handleTransactionFail},
		// The DICT directory (dict.go) and the participant banks (bank.go).
		{Name: "sandbox.dict.create", Method: http.MethodPost, Path: "/_sandbox/dict/keys", Success: http.StatusCreated, Handle: cp.handleDictCreate},
		{Name: "sandbox.dict.get", Method: http.MethodGet, Path: "/_sandbox/dict/keys/{key}", Success: http.StatusOK, Handle: cp.handleDictGet},
		{Name: "sandbox.banks.list", Method: http.MethodGet, Path: "/_sandbox/banks", Success: http.StatusOK, Handle: cp.handleBanks},
		// A payer outside the sandbox: charges paid, PIX received by key (payment.go); QR codes (qrcode.go).
		{Name: "sandbox.payments.create", Method: http.MethodPost, Path: "/_sandbox/payments", Success: http.StatusCreated, Handle: cp.handlePayment},
		{Name: "sandbox.pixin.create", Method: http.MethodPost, Path: "/_sandbox/pix-in", Success: http.StatusCreated, Handle: cp.handlePixIn},
		{Name: "sandbox.qrcode.create", Method: http.MethodPost, Path: "/_sandbox/qrcode", Success: http.StatusOK, Handle: cp.handleQRCode},
		// Every webhook on request: the recipes of simulator/events (event.go).
		{Name: "sandbox.events.list", Method: http.MethodGet, Path: "/_sandbox/events", Success: http.StatusOK, Handle: cp.handleEventList},
		{Name: "sandbox.events.trigger", Method: http.MethodPost, Path: "/_sandbox/events/{event}", Success: http.StatusCreated, Handle: cp.handleEventTrigger},
		// MED: the payer's bank opens one; its steps can be forced (med.go).
		{Name: "sandbox.med.create", Method: http.MethodPost, Path: "/_sandbox/med", Success: http.StatusCreated, Handle: cp.handleMEDCreate},
		{Name: "sandbox.med.get", Method: http.MethodGet, Path: "/_sandbox/med/{id}", Success: http.StatusOK, Handle: cp.handleMEDGet},
		{Name: "sandbox.med.receive", Method: http.MethodPost, Path: "/_sandbox/med/{id}/receive", Success: http.StatusOK, Handle: cp.medAction(Sandbox.ReceiveMED)},
		{Name: "sandbox.med.analyze", Method: http.MethodPost, Path: "/_sandbox/med/{id}/analyze", Success: http.StatusOK, Handle: cp.handleMEDAnalyze},
		{Name: "sandbox.med.cancel", Method: http.MethodPost, Path: "/_sandbox/med/{id}/cancel", Success: http.StatusOK, Handle: cp.medAction(Sandbox.CancelMED)},
		{Name: "sandbox.med.refund", Method: http.MethodPost, Path: "/_sandbox/med/{id}/refund", Success: http.StatusOK, Handle: cp.medAction(Sandbox.RefundMED)},
		// Webhook targets, deliveries and whether the public registration routes act (webhook.go; rotate-secret: rotation.go).
		{Name: "sandbox.webhooktargets.create", Method: http.MethodPost, Path: "/_sandbox/webhook-targets", Success: http.StatusCreated, Handle: cp.handleTargetCreate},
		{Name: "sandbox.webhooktargets.list", Method: http.MethodGet, Path: "/_sandbox/webhook-targets", Success: http.StatusOK, Handle: cp.handleTargetList},
		{Name: "sandbox.webhooktargets.delete", Method: http.MethodDelete, Path: "/_sandbox/webhook-targets/{id}", Success: http.StatusOK, Handle: cp.handleTargetDelete},
		{Name: "sandbox.webhooktargets.rotate", Method: http.MethodPost, Path: "/_sandbox/webhook-targets/{id}/rotate-secret", Success: http.StatusOK, Handle: cp.handleTargetRotate},
		{Name: "sandbox.webhookdeliveries.list", Method: http.MethodGet, Path: "/_sandbox/webhook-deliveries", Success: http.StatusOK, Handle: cp.handleDeliveries},
		{Name: "sandbox.registration.get", Method: http.MethodGet, Path: "/_sandbox/webhook-registration", Success: http.StatusOK, Handle: cp.handleRegistration},
		{Name: "sandbox.registration.put", Method: http.MethodPut, Path: "/_sandbox/webhook-registration", Success: http.StatusOK, Handle: cp.handleRegistration},
		// Listeners of pixsandbox listen: leased webhook targets (listener.go; rotate-secret: rotation.go).
		{Name: "sandbox.listeners.create", Method: http.MethodPost, Path: "/_sandbox/listeners", Success: http.StatusCreated, Handle: cp.handleListenerCreate},
		{Name: "sandbox.listeners.list", Method: http.MethodGet, Path: "/_sandbox/listeners", Success: http.StatusOK, Handle: cp.handleListenerList},
		{Name: "sandbox.listeners.renew", Method: http.MethodPost, Path: "/_sandbox/listeners/{id}/renew", Success: http.StatusOK, Handle: cp.handleListenerRenew, NoJournal: true},
		{Name: "sandbox.listeners.delete", Method: http.MethodDelete, Path: "/_sandbox/listeners/{id}", Success: http.StatusOK, Handle: cp.handleListenerDelete},
		{Name: "sandbox.listeners.rotate", Method: http.MethodPost, Path: "/_sandbox/listeners/{id}/rotate-secret", Success: http.StatusOK, Handle: cp.handleListenerRotate},
		// The webhook receiver check of a partner (receivercheck.go; docs/receiver-check.md).
		{Name: "sandbox.checkreceiver.run", Method: http.MethodPost, Path: "/_sandbox/check-receiver", Success: http.StatusOK, Handle: cp.handleCheckReceiver},
		// Network fault rules of the PIX API's routes (fault.go; docs/faults.md).
		{Name: "sandbox.faults.create", Method: http.MethodPost, Path: "/_sandbox/faults", Success: http.StatusCreated, Handle: cp.handleFaultCreate},
		{Name: "sandbox.faults.list", Method: http.MethodGet, Path: "/_sandbox/faults", Success: http.StatusOK, Handle: cp.handleFaultList},
		{Name: "sandbox.faults.clear", Method: http.MethodDelete, Path: "/_sandbox/faults", Success: http.StatusOK, Handle: cp.handleFaultClear},
		{Name: "sandbox.faults.delete", Method: http.MethodDelete, Path: "/_sandbox/faults/{id}", Success: http.StatusOK, Handle: cp.handleFaultDelete},
		// The request journal (journal.go): left out of the journal themselves, so
		// polling it does not fill it.
		{Name: "sandbox.requests.list", Method: http.MethodGet, Path: "/_sandbox/requests", Success: http.StatusOK, Handle: cp.handleRequestList, NoJournal: true},
		{Name: "sandbox.requests.clear", Method: http.MethodDelete, Path: "/_sandbox/requests", Success: http.StatusOK, Handle: cp.handleRequestClear, NoJournal: true},
	}
	if cp.spaces != nil {
		rts = append(rts, cp.workspaceRoutes(rts)...)
	}
	for _, rt := range rts {
		rt.Public, rt.Admin = true, true
	}
	return rts
}

// pages are the control plane's static files, outside the route table (not
// JSON): the web console (console.go), and the API document with its explorer
// and reference page (docs.go; the reference before the explorer's assets,
// whose {asset} would match it too).
func (cp *ControlPlane) pages() []httpapi.Page {
	return []httpapi.Page{
		{Name: "sandbox.console", Path: "/_sandbox/console", Handler: cp.handleConsolePage()},
		{Name: "sandbox.console.asset", Path: "/_sandbox/console/{asset}", Handler: cp.handleConsoleAsset()},
		{Name: "sandbox.openapi", Path: "/_sandbox/openapi.yaml", Handler: cp.handleOpenAPIDocument()},
		{Name: "sandbox.docs", Path: "/_sandbox/docs", Handler: cp.handleAPIExplorer()},
		{Name: "sandbox.docs.reference", Path: "/_sandbox/docs/reference", Handler: cp.handleAPIReference()},
		{Name: "sandbox.docs.asset", Path: "/_sandbox/docs/{asset}", Handler: cp.handleAPIExplorerAsset()},
	}
}
