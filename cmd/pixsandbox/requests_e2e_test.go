//go:build e2e

package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestConsoleE2E_Requests: the console's Requests tab lists the requests the
// simulator answered with their bodies, secrets masked, and a transaction's
// detail links to the requests that named it.
func TestConsoleE2E_Requests(t *testing.T) {
	chrome := findChromium(t)
	m := runE2EMain(t, "")
	token := fixtureToken(t, m) // POST /api/auth/token with the fixture's clientSecret
	secret := m.fixtures.Accounts[0].ClientSecret
	st, ci := call(t, "POST", m.URL()+"/api/pix/cash-in", `{"transaction":{"value":7.5,"description":"journal","externalId":"e2e-journal-1"},
		"payer":{"fullName":"Ana","document":"52998224725"}}`, map[string]string{"Authorization": "Bearer " + token, "Content-Type": "application/json"})
	if st != 201 {
		t.Fatalf("cash-in: %d %v", st, ci)
	}
	txID := ci["transactionId"].(string)

	b := openE2EBrowser(t, chrome, 2*time.Minute)
	tid := e2eTestID
	tokenRow := tid("request-row") + `[data-path="/api/auth/token"]`
	b.step("open the Requests tab", 30*time.Second,
		chromedp.Navigate(m.URL()+"/_sandbox/console"),
		chromedp.WaitVisible(chromedp.CSS(`body[data-ready="true"]`)),
		chromedp.Click(chromedp.CSS(tid("tab-requests"))),
		chromedp.WaitVisible(chromedp.CSS(tid("request-list")+" "+tokenRow)),
		chromedp.Click(chromedp.CSS(tokenRow+" summary")),
		chromedp.WaitVisible(chromedp.CSS(tokenRow+" "+tid("request-body"))),
	)
	body := b.text(tokenRow + " " + tid("request-body"))
	if !strings.Contains(body, `"clientSecret": "***"`) || strings.Contains(body, secret) {
		t.Errorf("the token request's body shown:\n%s\nwant clientSecret masked", body)
	}
	if h := b.text(tokenRow + " " + tid("request-headers")); !strings.Contains(h, "X-Ssl-Client-Cert: ***") {
		t.Errorf("the token request's headers shown:\n%s\nwant the certificate masked", h)
	}
	if resp := b.text(tokenRow + " " + tid("response-body")); !strings.Contains(resp, `"access_token": "***"`) || strings.Contains(resp, token) {
		t.Errorf("the token response shown:\n%s\nwant access_token masked", resp)
	}
	if got := b.text(tokenRow + " " + tid("request-status")); got != "201" {
		t.Errorf("token request status shown %q, want 201", got)
	}

	cashIn := tid("request-row") + `[data-path="/api/pix/cash-in"]`
	b.step("from a transaction to its requests", 30*time.Second,
		chromedp.Click(chromedp.CSS(tid("account-select-1"))),
		chromedp.WaitVisible(chromedp.CSS(tid("account-row-1")+`.selected`)),
		chromedp.Click(chromedp.CSS(tid("tab-transactions"))),
		chromedp.WaitVisible(chromedp.CSS(tid("tx-row-"+txID))),
		chromedp.Click(chromedp.CSS(tid("tx-row-"+txID))),
		chromedp.WaitVisible(chromedp.CSS(tid("tx-detail-requests"))),
		chromedp.Click(chromedp.CSS(tid("tx-detail-requests"))),
		// The Requests tab still shows the earlier, unfiltered list until the
		// filtered one is loaded: wait for the filter to be shown.
		chromedp.Poll[chromedp.Void](`(() => { const e = document.querySelector(`+jsString(tid("requests-ref"))+`); return !!e && e.textContent.includes(`+jsString(txID)+`); })()`,
			chromedp.WithPollingTimeout(20*time.Second)),
		chromedp.WaitVisible(chromedp.CSS(tid("panel-requests")+" "+cashIn)),
	)
	if ref := b.text(tid("requests-ref")); !strings.Contains(ref, txID) {
		t.Errorf("the filter shown %q does not name transaction %s", ref, txID)
	}
	if n := evalString(t, b.tab, `String(document.querySelectorAll(`+jsString(tid("request-list")+" "+tokenRow)+`).length)`, "token rows"); n != "0" {
		t.Errorf("the token request is listed among the transaction's requests")
	}
	b.checkNoErrors()
}

// TestConsoleE2E_DocsOffline: /_sandbox/docs/reference, the API reference
// without JavaScript, renders in Chromium with every host name unresolvable
// (no network beyond the sandbox's 127.0.0.1) and loads no resource of its
// own: no script, style sheet, font or image. (The explorer at
// /_sandbox/docs: TestExplorerE2E.)
func TestConsoleE2E_DocsOffline(t *testing.T) {
	chrome := findChromium(t)
	m := runE2EMain(t, "")
	b := openE2EBrowser(t, chrome, 2*time.Minute, chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"))
	b.step("open the API reference", 30*time.Second,
		chromedp.Navigate(m.URL()+"/_sandbox/docs/reference"),
		chromedp.WaitVisible(chromedp.CSS(`#op-authToken`)),
		chromedp.WaitVisible(chromedp.CSS(`#schema-TokenRequest`)),
	)
	if got := b.text(`#op-authToken h3`); !strings.Contains(got, "POST") || !strings.Contains(got, "/api/auth/token") {
		t.Errorf("the token operation's heading reads %q", got)
	}
	resources := evalString(t, b.tab, `JSON.stringify(performance.getEntriesByType('resource').map(e => e.name))`, "resources")
	if resources != "[]" {
		t.Errorf("the reference page loaded %s; it must load nothing", resources)
	}
	// The styles in the page apply: the navigation is a sticky column.
	if pos := evalString(t, b.tab, `getComputedStyle(document.querySelector('nav')).position`, "nav style"); pos != "sticky" {
		t.Errorf("nav position %q: the page's own styles did not apply", pos)
	}
	b.step("follow a schema link", 10*time.Second,
		chromedp.Click(chromedp.CSS(`#op-authToken a[href="#schema-TokenRequest"]`)),
		chromedp.Poll[chromedp.Void](`location.hash === '#schema-TokenRequest'`, chromedp.WithPollingTimeout(5*time.Second)),
	)
	b.checkConsole()
}

// TestConsoleE2E_AccountsAndMED: the accounts list searches and pages (a
// conformance run leaves hundreds), and a MED's buttons are enabled only in
// the states where the server allows the step.
func TestConsoleE2E_AccountsAndMED(t *testing.T) {
	chrome := findChromium(t)
	m := runE2EMain(t, "")
	for i := range 24 {
		name := "Conta Extra"
		if i == 17 {
			name = "Zuleica Procurada"
		}
		e2eControl(t, m, http.MethodPost, "/_sandbox/accounts", map[string]any{"name": name, "balance": 10}, http.StatusCreated, nil)
	}
	ctx := context.Background()
	var acct struct {
		PixKeys []struct {
			Key string `json:"key"`
		} `json:"pixKeys"`
	}
	if err := e2eClient(m).Account(ctx, 1, &acct); err != nil || len(acct.PixKeys) == 0 {
		t.Fatalf("account 1: %v %+v", err, acct)
	}
	in, err := e2eClient(m).PixIn(ctx, map[string]any{"key": acct.PixKeys[0].Key, "amount": 20})
	if err != nil {
		t.Fatalf("pix-in: %v", err)
	}
	var med map[string]any
	e2eControl(t, m, http.MethodPost, "/_sandbox/med", map[string]any{"accountId": 1, "endToEndId": in.EndToEndID}, http.StatusCreated, &med)

	b := openE2EBrowser(t, chrome, 2*time.Minute)
	tid := e2eTestID
	b.step("open the console", 30*time.Second,
		chromedp.Navigate(m.URL()+"/_sandbox/console"),
		chromedp.WaitVisible(chromedp.CSS(`body[data-ready="true"]`)),
		chromedp.WaitVisible(chromedp.CSS(tid("account-row-1"))),
	)
	total := len(m.fixtures.Accounts) + 24
	if got := b.text(tid("accounts-page-info")); !strings.HasPrefix(got, strconv.Itoa(total)+" of "+strconv.Itoa(total)) || !strings.HasSuffix(got, "page 1 of 2") {
		t.Errorf("accounts pager reads %q, want %d accounts on 2 pages", got, total)
	}
	rows := func() string {
		return evalString(t, b.tab, `String(document.querySelectorAll('[data-testid="accounts-body"] tr[data-testid^="account-row-"]').length)`, "account rows")
	}
	if n := rows(); n != "20" {
		t.Errorf("%s account rows on page 1, want 20", n)
	}
	b.step("next page", 10*time.Second, chromedp.Click(chromedp.CSS(tid("accounts-next"))),
		chromedp.Poll[chromedp.Void](`document.querySelector('[data-testid="accounts-page-info"]').textContent.endsWith('page 2 of 2')`, chromedp.WithPollingTimeout(5*time.Second)))
	if n, want := rows(), strconv.Itoa(total-20); n != want {
		t.Errorf("%s account rows on page 2, want %s", n, want)
	}
	b.step("search", 10*time.Second, chromedp.SendKeys(chromedp.CSS(tid("accounts-search")), "zuleica proc"),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll('[data-testid="accounts-body"] tr[data-testid^="account-row-"]').length === 1`, chromedp.WithPollingTimeout(5*time.Second)))
	if got := b.text(tid("accounts-body")); !strings.Contains(got, "Zuleica Procurada") {
		t.Errorf("the search shows %q", got)
	}

	row := tid("med-row") + `[data-med-id="` + med["id"].(json.Number).String() + `"]`
	disabled := func(button string) string {
		return evalString(t, b.tab, `String(document.querySelector(`+jsString(row+" "+tid(button))+`).disabled)`, button)
	}
	b.step("the MED tab", 20*time.Second,
		chromedp.Poll[chromedp.Void](`(() => { const e = document.querySelector('[data-testid="accounts-search"]'); e.value = ''; e.dispatchEvent(new Event('input')); return true; })()`,
			chromedp.WithPollingTimeout(5*time.Second)),
		chromedp.WaitVisible(chromedp.CSS(tid("account-select-1"))),
		chromedp.Click(chromedp.CSS(tid("account-select-1"))),
		chromedp.WaitVisible(chromedp.CSS(tid("account-row-1")+`.selected`)),
		chromedp.Click(chromedp.CSS(tid("tab-meds"))),
		chromedp.WaitVisible(chromedp.CSS(row+`[data-status="OPEN"]`)),
	)
	for button, want := range map[string]string{"med-receive": "false", "med-analyze-approve": "false", "med-cancel": "false", "med-refund": "true"} {
		if got := disabled(button); got != want {
			t.Errorf("OPEN MED: %s disabled = %s, want %s", button, got, want)
		}
	}
	b.step("approve it", 20*time.Second,
		chromedp.Click(chromedp.CSS(row+" "+tid("med-analyze-approve"))),
		chromedp.WaitVisible(chromedp.CSS(row+`[data-status="ANALYZED"]`)),
	)
	for button, want := range map[string]string{"med-receive": "true", "med-analyze-approve": "true", "med-cancel": "true", "med-refund": "false"} {
		if got := disabled(button); got != want {
			t.Errorf("APPROVED MED: %s disabled = %s, want %s", button, got, want)
		}
	}
	b.checkNoErrors()
}

// TestConsoleE2E_TriggerScenario: the Scenarios tab triggers a scenario as the
// selected account: a cash-out with TAX_ID_MISMATCH opens in the
// transaction's detail, and fails with that errorCode once the clock moves.
func TestConsoleE2E_TriggerScenario(t *testing.T) {
	chrome := findChromium(t)
	m := runE2EMain(t, "")
	b := openE2EBrowser(t, chrome, 2*time.Minute)
	tid := e2eTestID
	button := tid("scenario-row") + `[data-name="TAX_ID_MISMATCH"] ` + tid("scenario-trigger") + `[data-operation="cashout.create"]`
	b.step("trigger TAX_ID_MISMATCH as account 1", 30*time.Second,
		chromedp.Navigate(m.URL()+"/_sandbox/console"),
		chromedp.WaitVisible(chromedp.CSS(`body[data-ready="true"]`)),
		chromedp.Click(chromedp.CSS(tid("account-select-1"))),
		chromedp.WaitVisible(chromedp.CSS(tid("account-row-1")+`.selected`)),
		chromedp.Click(chromedp.CSS(tid("tab-scenarios"))),
		chromedp.WaitVisible(chromedp.CSS(button)),
		chromedp.Click(chromedp.CSS(button)),
		chromedp.WaitVisible(chromedp.CSS(tid("tx-detail-history"))),
	)
	if got := b.text(tid("tx-detail")); !strings.Contains(got, "TAX_ID_MISMATCH") || !strings.Contains(got, "PENDING") {
		t.Errorf("the triggered transaction's detail reads %q, want a PENDING cash-out with the scenario", got)
	}
	b.step("move the clock", 30*time.Second,
		chromedp.Click(chromedp.CSS(tid("clock-advance-60"))),
		chromedp.Poll[chromedp.Void](`(document.querySelector('[data-testid="tx-detail"]')?.textContent || '').includes('ERROR: TAX_ID_MISMATCH')`,
			chromedp.WithPollingTimeout(20*time.Second)),
	)
	b.checkNoErrors()
}
