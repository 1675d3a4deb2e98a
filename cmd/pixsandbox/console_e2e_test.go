//go:build e2e

package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/pixsandbox/pixsandbox/simulator/sandboxclient"
	"github.com/pixsandbox/pixsandbox/simulator/wire"
)

// TestConsoleE2E drives the web console in headless Chromium against the
// simulator run in-process (in memory, virtual clock): select fixture account
// 1, create a cash-in charge, see its QR code, pay it, and see the webhook
// delivery in the deliveries view, while a local receiver gets the RECEIVE
// webhook. Run it with `make test-e2e`, which installs Debian's chromium when
// missing; PIXSANDBOX_CHROMIUM names another browser binary, and on failure a
// screenshot and the page's HTML go to PIXSANDBOX_E2E_ARTIFACTS (else a new
// temporary directory, named in the test log).
func TestConsoleE2E(t *testing.T) {
	chrome := findChromium(t)
	m := runE2EMain(t, "")

	recv := newE2EReceiver()
	srv := httptest.NewServer(recv)
	t.Cleanup(srv.Close)
	e2eControl(t, m, http.MethodPost, "/_sandbox/webhook-targets", map[string]any{"accountId": 1, "eventType": "cash_in", "url": srv.URL + "/hooks"}, http.StatusCreated, nil)

	// Every wait below is bounded: the whole test by this deadline (it also
	// ends the browser), each step by a shorter one.
	b := openE2EBrowser(t, chrome, 3*time.Minute)
	tab, step, text, attr, tid := b.tab, b.step, b.text, b.attr, e2eTestID

	start := time.Now() // wall time: the test's own runtime, logged
	step("open the console", 30*time.Second,
		chromedp.Navigate(m.URL()+"/_sandbox/console"),
		chromedp.WaitVisible(chromedp.CSS(`body[data-ready="true"]`)),
		chromedp.WaitVisible(chromedp.CSS(tid("account-row-1"))),
	)
	if got := text(tid("clock-mode")); got != "virtual" {
		t.Errorf("clock mode shown %q, want virtual", got)
	}

	step("select account 1", 20*time.Second,
		chromedp.Click(chromedp.CSS(tid("account-select-1"))),
		chromedp.WaitVisible(chromedp.CSS(tid("account-row-1")+`.selected`)),
	)
	if got := text(tid("account-balance-net-1")); got != "10000.00" {
		t.Errorf("account 1 net balance shown %q, want 10000.00 as the API renders it", got)
	}

	step("create a cash-in charge", 20*time.Second,
		chromedp.Click(chromedp.CSS(tid("tab-charges"))),
		chromedp.WaitVisible(chromedp.CSS(tid("cashin-form"))),
		chromedp.SetValue(chromedp.CSS(tid("cashin-value")), "12.30"),
		chromedp.SetValue(chromedp.CSS(tid("cashin-external-id")), "e2e-charge-1"),
		chromedp.Click(chromedp.CSS(tid("cashin-submit"))),
		chromedp.WaitVisible(chromedp.CSS(tid("charge-card")+` `+tid("charge-qr"))),
	)
	card := tid("charge-card")
	txID := attr(card, "data-transaction-id")
	if txID == "" {
		t.Fatalf("the charge card carries no transaction id%s", pageErrors(tab))
	}
	if got := text(card + " " + tid("charge-status")); got != "PENDING" {
		t.Errorf("new charge status %q, want PENDING", got)
	}
	if got := text(card + " " + tid("charge-amount")); got != "12.30" {
		t.Errorf("charge amount shown %q, want 12.30", got)
	}
	pixCode := evalString(t, tab, `document.querySelector(`+jsString(card+" "+tid("charge-pixcode"))+`)?.value ?? null`, "the copy-paste code")
	if !strings.HasPrefix(pixCode, "000201") {
		t.Errorf("copy-paste code %q is not a BR Code", pixCode)
	}

	// The QR code is an <img> whose data: URL holds a PNG that decodes, and
	// that the browser decoded too.
	src := attr(card+" "+tid("charge-qr"), "src")
	const prefix = "data:image/png;base64,"
	if !strings.HasPrefix(src, prefix) {
		t.Fatalf("QR image src %.60q, want a %s URL", src, prefix)
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(src, prefix))
	if err != nil {
		t.Fatalf("QR image: base64: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("QR image: PNG: %v", err)
	}
	if size := img.Bounds(); size.Dx() < 21 || size.Dy() < 21 {
		t.Errorf("QR image is %dx%d", size.Dx(), size.Dy())
	}
	step("the browser decodes the QR image", 10*time.Second,
		chromedp.Poll[chromedp.Void](`(() => { const i = document.querySelector('[data-testid="charge-card"] [data-testid="charge-qr"]'); return i && i.complete && i.naturalWidth > 0; })()`,
			chromedp.WithPollingTimeout(10*time.Second)),
	)

	step("pay the charge", 30*time.Second,
		chromedp.Click(chromedp.CSS(card+" "+tid("charge-pay"))),
		chromedp.WaitVisible(chromedp.CSS(card+`[data-status="CONFIRMED"]`)),
	)
	if got := text(card + " " + tid("charge-status")); got != "CONFIRMED" {
		t.Errorf("paid charge status %q, want CONFIRMED", got)
	}

	// The deliveries view refreshes every 3 s once asked to, so the delivery
	// shows up whenever the job runner has sent it.
	row := tid("delivery-row") + `[data-transaction-id="` + txID + `"][data-event-type="cash_in"][data-status="delivered"]`
	step("see the webhook delivery", 30*time.Second,
		chromedp.Click(chromedp.CSS(tid("tab-webhooks"))),
		chromedp.WaitVisible(chromedp.CSS(tid("panel-webhooks"))),
		chromedp.Click(chromedp.CSS(tid("deliveries-auto"))),
		chromedp.WaitVisible(chromedp.CSS(tid("delivery-list")+" "+row)),
		chromedp.Click(chromedp.CSS(tid("deliveries-auto"))), // stop refreshing before opening it
		chromedp.Click(chromedp.CSS(tid("delivery-list")+" "+row+" summary")),
		chromedp.WaitVisible(chromedp.CSS(tid("delivery-list")+" "+row+" "+tid("delivery-request-body"))),
	)
	reqBody := text(tid("delivery-list") + " " + row + " " + tid("delivery-request-body"))
	if !strings.Contains(reqBody, `"type": "RECEIVE"`) || !strings.Contains(reqBody, `"amount": "12.30"`) {
		t.Errorf("delivery request body shown:\n%s\nwant the V2 RECEIVE webhook with payment.amount 12.30", reqBody)
	}
	if resp := text(tid("delivery-list") + " " + row + " " + tid("delivery-response")); !strings.HasPrefix(resp, "HTTP 200") {
		t.Errorf("delivery response shown %q, want HTTP 200", resp)
	}

	// The transaction's history: created PENDING, CONFIRMED, and the webhook
	// attempt with the target's answer.
	step("read the transaction's history", 20*time.Second,
		chromedp.Click(chromedp.CSS(tid("tab-transactions"))),
		chromedp.WaitVisible(chromedp.CSS(tid("tx-row-"+txID))),
		chromedp.Click(chromedp.CSS(tid("tx-row-"+txID))),
		chromedp.WaitVisible(chromedp.CSS(tid("tx-detail-history"))),
	)
	history := text(tid("tx-detail-history"))
	for _, want := range []string{"created: PENDING", "CONFIRMED", "webhook cash_in attempt 1", "HTTP 200"} {
		if !strings.Contains(history, want) {
			t.Errorf("transaction history %q lacks %q", history, want)
		}
	}

	// The view is in the URL: Back and Forward move between the views, and
	// a link opens the same one in a fresh page.
	link := "#workspace=default&account=1&tx=" + txID
	if got := b.eval(`location.hash`); got != link {
		t.Errorf("URL fragment with the transaction open %q, want %q", got, link)
	}
	if got := attr(tid("docs-link"), "href"); got != "/_sandbox/docs?workspace=default&account=1" {
		t.Errorf("the API explorer link is %q, want it on account 1", got)
	}
	step("go back twice, to the webhooks tab", 20*time.Second,
		chromedp.Evaluate[chromedp.Void](`history.back()`),
		chromedp.WaitNotVisible(chromedp.CSS(tid("tx-detail"))),
		chromedp.Evaluate[chromedp.Void](`history.back()`),
		chromedp.WaitVisible(chromedp.CSS(tid("panel-webhooks"))),
	)
	step("go forward twice, to the transaction", 20*time.Second,
		chromedp.Evaluate[chromedp.Void](`history.go(2)`),
		chromedp.WaitVisible(chromedp.CSS(tid("tx-detail-history"))),
	)
	step("open the link in a fresh page", 30*time.Second,
		chromedp.Navigate("about:blank"),
		chromedp.Navigate(m.URL()+"/_sandbox/console"+link),
		chromedp.WaitVisible(chromedp.CSS(`body[data-ready="true"]`)),
		chromedp.WaitVisible(chromedp.CSS(tid("account-row-1")+`.selected`)),
		chromedp.WaitVisible(chromedp.CSS(tid("tx-detail-history"))),
	)
	if got := text(tid("tx-detail-history")); got != history {
		t.Errorf("the linked transaction's history %q, want %q", got, history)
	}

	// The receiver got the RECEIVE webhook of this charge (data.id is the
	// charge's transactionId).
	data := func(h e2eWebhook) map[string]any { d, _ := h.body["data"].(map[string]any); return d }
	hook, ok := recv.wait(tab, 10*time.Second, func(h e2eWebhook) bool { return fmt.Sprint(data(h)["id"]) == txID })
	if !ok {
		t.Fatalf("the receiver got no webhook for transaction %s; got %d other(s)", txID, recv.count())
	}
	if hook.body["type"] != "RECEIVE" || data(hook)["status"] != "LIQUIDATED" {
		t.Errorf("receiver got %v, want a RECEIVE LIQUIDATED of the charge", hook.body)
	}
	if hook.header.Get("webhook-id") == "" {
		t.Errorf("webhook without webhook-id header: %v", hook.header)
	}

	// Nothing went wrong on the way that the page showed or threw.
	b.checkNoErrors()
	t.Logf("console flow took %s in the browser", time.Since(start).Round(time.Millisecond))
}

// TestConsoleE2E_AdminToken opens the console of a server run with
// --admin-token: the page loads, the control plane's 401 is shown with what to
// do, and once the token is entered the accounts appear.
func TestConsoleE2E_AdminToken(t *testing.T) {
	chrome := findChromium(t)
	m := runE2EMain(t, "e2e-admin-secret")
	b := openE2EBrowser(t, chrome, 2*time.Minute)
	tid := e2eTestID

	b.step("open the console without the admin token", 30*time.Second,
		chromedp.Navigate(m.URL()+"/_sandbox/console"),
		chromedp.WaitVisible(chromedp.CSS(`body[data-ready="true"]`)),
		chromedp.WaitVisible(chromedp.CSS(tid("admin-token-required"))),
		chromedp.WaitVisible(chromedp.CSS(tid("error-item"))),
	)
	if msg := b.text(tid("error-list")); !strings.Contains(msg, "401") || !strings.Contains(msg, "admin token") {
		t.Errorf("error shown without the admin token: %q, want the 401 and what to do", msg)
	}
	b.step("enter the admin token", 30*time.Second,
		chromedp.SetValue(chromedp.CSS(tid("admin-token-input")), "e2e-admin-secret"),
		chromedp.Click(chromedp.CSS(tid("admin-token-save"))),
		chromedp.WaitVisible(chromedp.CSS(tid("account-row-1"))),
		chromedp.Click(chromedp.CSS(tid("account-select-1"))),
		chromedp.WaitVisible(chromedp.CSS(tid("account-row-1")+`.selected`)),
	)
	if evalString(t, b.tab, `String(document.querySelector(`+jsString(tid("admin-token-required"))+`).hidden)`, "the notice") != "true" {
		t.Errorf("the admin token notice is still shown after entering the token")
	}
	stored := evalString(t, b.tab, `sessionStorage.getItem('pixsandbox.console.adminToken')`, "sessionStorage")
	if stored != "e2e-admin-secret" {
		t.Errorf("sessionStorage holds %q, want the admin token", stored)
	}
}

// TestConsoleE2E_Workspaces drives the workspace picker: create a workspace
// from it, switch to it, see its own accounts and clock, advance its clock
// while the default workspace's stays where it was, see its requests in the
// journal, switch back, open a link naming it, and delete it after the
// confirmation.
func TestConsoleE2E_Workspaces(t *testing.T) {
	chrome := findChromium(t)
	m := runE2EMain(t, "")
	b := openE2EBrowser(t, chrome, 3*time.Minute)
	tid := e2eTestID

	var defaultClock e2eClock
	e2eControl(t, m, http.MethodGet, "/_sandbox/clock", nil, http.StatusOK, &defaultClock)
	b.step("open the console on the default workspace", 30*time.Second,
		chromedp.Navigate(m.URL()+"/_sandbox/console"),
		chromedp.WaitVisible(chromedp.CSS(`body[data-ready="true"]`)),
		chromedp.WaitVisible(chromedp.CSS(tid("account-row-3"))),
	)
	if got := b.value(tid("workspace-select")); got != "default" {
		t.Errorf("workspace picker shows %q, want default", got)
	}
	if got := b.text(tid("clock-now")); got != defaultClock.shown() {
		t.Errorf("default clock shown %q, want %q", got, defaultClock.shown())
	}

	b.step("create a workspace from the picker", 30*time.Second,
		chromedp.Click(chromedp.CSS(tid("workspace-new"))),
		chromedp.WaitVisible(chromedp.CSS(tid("workspace-create-form"))),
		chromedp.SetValue(chromedp.CSS(tid("workspace-create-name")), "e2e-ws"),
		chromedp.SetValue(chromedp.CSS(tid("workspace-create-accounts")), "2"),
	)
	b.shot("create-form")
	b.step("submit the creation", 30*time.Second,
		chromedp.Click(chromedp.CSS(tid("workspace-create-submit"))),
		chromedp.WaitVisible(chromedp.CSS(tid("workspace-created"))),
		chromedp.WaitNotVisible(chromedp.CSS(tid("workspace-create-form"))),
	)
	ws := e2eWorkspaceNamed(t, m, "e2e-ws")
	var accounts struct {
		Accounts []struct {
			ID        int64    `json:"id"`
			ClientIDs []string `json:"clientIds"`
		} `json:"accounts"`
	}
	e2eControl(t, m, http.MethodGet, "/_sandbox/workspaces/"+ws+"/accounts", nil, http.StatusOK, &accounts)
	if len(accounts.Accounts) != 2 {
		t.Fatalf("the workspace created from the picker has %d account(s), want 2", len(accounts.Accounts))
	}
	first := fmt.Sprint(accounts.Accounts[0].ID)
	b.step("switch to it", 30*time.Second,
		chromedp.WaitVisible(chromedp.CSS(tid("account-row-"+first))),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll('[data-testid^="account-row-"]').length === 2`, chromedp.WithPollingTimeout(20*time.Second)),
	)
	b.shot("workspace-created")
	if got := b.value(tid("workspace-select")); got != ws {
		t.Errorf("workspace picker shows %q, want the new workspace %s", got, ws)
	}
	if got := b.eval(`location.hash`); got != "#workspace="+ws {
		t.Errorf("URL fragment %q, want #workspace=%s", got, ws)
	}
	if got := b.eval(`sessionStorage.getItem('pixsandbox.console.adminToken.` + ws + `') || ''`); !strings.HasPrefix(got, "wst_") {
		t.Errorf("the new workspace's admin token is not kept in sessionStorage: %q", got)
	}
	if got := b.text(tid("workspace-created-token")); !strings.HasPrefix(got, "wst_") {
		t.Errorf("the creation box shows admin token %q", got)
	}
	for _, a := range accounts.Accounts {
		row := b.text(tid(fmt.Sprintf("account-row-%d", a.ID)))
		for _, id := range a.ClientIDs {
			if !strings.Contains(row, id) {
				t.Errorf("account %d's row %q lacks its client id %s", a.ID, row, id)
			}
		}
	}
	var wsClock e2eClock
	e2eControl(t, m, http.MethodGet, "/_sandbox/workspaces/"+ws+"/clock", nil, http.StatusOK, &wsClock)
	b.step("read its clock", 10*time.Second, b.waitText(tid("clock-now"), wsClock.shown()))

	b.step("advance its clock by a day", 20*time.Second,
		chromedp.Click(chromedp.CSS(tid("clock-advance-86400"))),
		chromedp.Poll[chromedp.Void](`document.querySelector('[data-testid="clock-result"]').textContent.startsWith('Advanced')`,
			chromedp.WithPollingTimeout(20*time.Second)),
	)
	var advanced, defaultAfter e2eClock
	e2eControl(t, m, http.MethodGet, "/_sandbox/workspaces/"+ws+"/clock", nil, http.StatusOK, &advanced)
	e2eControl(t, m, http.MethodGet, "/_sandbox/clock", nil, http.StatusOK, &defaultAfter)
	if advanced.Now == wsClock.Now {
		t.Errorf("the workspace's clock did not move: %s", advanced.Now)
	}
	if got := b.text(tid("clock-now")); got != advanced.shown() {
		t.Errorf("clock shown after +1 day %q, want the workspace's %q", got, advanced.shown())
	}
	if defaultAfter.Now != defaultClock.Now {
		t.Errorf("the default workspace's clock moved with the workspace's: %s, was %s", defaultAfter.Now, defaultClock.Now)
	}

	b.step("see the workspace's requests", 20*time.Second,
		chromedp.Click(chromedp.CSS(tid("tab-requests"))),
		chromedp.WaitVisible(chromedp.CSS(tid("request-row"))),
	)
	if other := b.eval(`String(document.querySelectorAll('[data-testid="request-row"]:not([data-workspace="` + ws + `"])').length)`); other != "0" {
		t.Errorf("the Requests tab of the workspace lists %s request(s) of another workspace", other)
	}
	if got := b.eval(`String(document.querySelector('[data-testid="requests-filter-workspace"]').disabled)`); got != "true" {
		t.Errorf("the Requests tab offers every workspace's requests from a workspace (disabled=%s)", got)
	}

	b.step("switch back to the default workspace", 30*time.Second,
		b.choose(tid("workspace-select"), "default"),
		chromedp.WaitVisible(chromedp.CSS(tid("account-row-3"))),
		b.waitText(tid("clock-now"), defaultClock.shown()),
	)
	b.shot("default-again")
	if got := b.eval(`new URLSearchParams(location.hash.slice(1)).get('workspace') + ' ' + localStorage.getItem('pixsandbox.console.workspace')`); got != "default default" {
		t.Errorf("URL fragment and localStorage: %q, want the default workspace", got)
	}
	b.step("list every workspace's requests", 20*time.Second,
		b.choose(tid("requests-filter-workspace"), "all"),
		chromedp.WaitVisible(chromedp.CSS(tid("request-row")+`[data-workspace="`+ws+`"]`)),
		chromedp.WaitVisible(chromedp.CSS(tid("request-row")+`[data-workspace="default"]`)),
	)
	b.shot("requests-all")
	if got := b.text(tid("request-row") + `[data-workspace="` + ws + `"] ` + tid("request-workspace")); !strings.Contains(got, "e2e-ws") {
		t.Errorf("a request of the workspace is labelled %q, want its name", got)
	}

	b.step("open a link naming the workspace", 30*time.Second,
		chromedp.Navigate("about:blank"),
		chromedp.Navigate(m.URL()+"/_sandbox/console#workspace="+ws),
		chromedp.WaitVisible(chromedp.CSS(`body[data-ready="true"]`)),
		chromedp.WaitVisible(chromedp.CSS(tid("account-row-"+first))),
		b.waitText(tid("clock-now"), advanced.shown()),
	)
	if got := b.value(tid("workspace-select")); got != ws {
		t.Errorf("workspace picker shows %q after opening the link, want %s", got, ws)
	}

	b.step("ask to delete it, and keep it", 20*time.Second,
		chromedp.Click(chromedp.CSS(tid("workspace-delete"))),
		chromedp.WaitVisible(chromedp.CSS(tid("workspace-delete-confirm"))),
	)
	b.shot("delete-confirm")
	if q := b.text(tid("workspace-delete-question")); !strings.Contains(q, "e2e-ws") {
		t.Errorf("the confirmation %q does not name the workspace", q)
	}
	b.step("keep it", 10*time.Second,
		chromedp.Click(chromedp.CSS(tid("workspace-delete-no"))),
		chromedp.WaitNotVisible(chromedp.CSS(tid("workspace-delete-confirm"))),
	)
	e2eControl(t, m, http.MethodGet, "/_sandbox/workspaces/"+ws, nil, http.StatusOK, nil)
	b.step("delete it", 30*time.Second,
		chromedp.Click(chromedp.CSS(tid("workspace-delete"))),
		chromedp.Click(chromedp.CSS(tid("workspace-delete-yes"))),
		chromedp.WaitVisible(chromedp.CSS(tid("account-row-3"))),
		b.waitText(tid("clock-now"), defaultClock.shown()),
	)
	if got := b.value(tid("workspace-select")); got != "default" {
		t.Errorf("workspace picker shows %q after the deletion, want default", got)
	}
	e2eControl(t, m, http.MethodGet, "/_sandbox/workspaces/"+ws, nil, http.StatusNotFound, nil)

	b.checkNoErrors()
}

// TestConsoleE2E_WorkspaceAdminToken opens a workspace's console on a server
// run with --admin-token, knowing only that workspace's own admin token: the
// workspace's control routes open, and the picker, which cannot list the
// workspaces without the server's token, shows the current one alone until
// the server's token is entered.
func TestConsoleE2E_WorkspaceAdminToken(t *testing.T) {
	chrome := findChromium(t)
	m := runE2EMain(t, "e2e-admin-secret")
	var ws struct {
		ID         string `json:"id"`
		AdminToken string `json:"adminToken"`
	}
	e2eControl(t, m, http.MethodPost, "/_sandbox/workspaces", map[string]any{"name": "mine", "accounts": 1}, http.StatusCreated, &ws)
	e2eControl(t, m, http.MethodPost, "/_sandbox/workspaces", map[string]any{"name": "theirs", "accounts": "none"}, http.StatusCreated, nil)
	b := openE2EBrowser(t, chrome, 2*time.Minute)
	tid := e2eTestID

	b.step("open the workspace's console without a token", 30*time.Second,
		chromedp.Navigate(m.URL()+"/_sandbox/console#workspace="+ws.ID),
		chromedp.WaitVisible(chromedp.CSS(`body[data-ready="true"]`)),
		chromedp.WaitVisible(chromedp.CSS(tid("admin-token-required"))),
	)
	b.step("enter the workspace's own admin token", 30*time.Second,
		b.choose(tid("admin-token-scope"), "workspace"),
		chromedp.SetValue(chromedp.CSS(tid("admin-token-input")), ws.AdminToken),
		chromedp.Click(chromedp.CSS(tid("admin-token-save"))),
		chromedp.WaitVisible(chromedp.CSS(tid("account-row-1000"))),
		chromedp.Poll[chromedp.Void](`document.querySelector('[data-testid="workspace-list-status"]').textContent.includes("server's admin token")`,
			chromedp.WithPollingTimeout(10*time.Second)),
	)
	b.shot("workspace-token")
	if got := b.eval(`Array.from(document.querySelector('[data-testid="workspace-select"]').options, (o) => o.value).join(' ')`); got != "default "+ws.ID {
		t.Errorf("picker options with the workspace's token only: %q, want the default and the current workspace", got)
	}
	if got := b.eval(`sessionStorage.getItem('pixsandbox.console.adminToken') || ''`); got != "" {
		t.Errorf("the workspace's token was kept as the server's: %q", got)
	}
	b.step("select its account", 20*time.Second,
		chromedp.Click(chromedp.CSS(tid("account-select-1000"))),
		chromedp.WaitVisible(chromedp.CSS(tid("account-row-1000")+`.selected`)),
	)

	b.step("enter the server's admin token", 30*time.Second,
		b.choose(tid("admin-token-scope"), "server"),
		chromedp.SetValue(chromedp.CSS(tid("admin-token-input")), "e2e-admin-secret"),
		chromedp.Click(chromedp.CSS(tid("admin-token-save"))),
		chromedp.Poll[chromedp.Void](`document.querySelector('[data-testid="workspace-select"]').options.length === 3`,
			chromedp.WithPollingTimeout(10*time.Second)),
	)
	if got := b.text(tid("workspace-list-status")); got != "" {
		t.Errorf("list status with the server's token: %q, want none", got)
	}
	// The 401s shown before the tokens went with them.
	if n := countErrors(t, b.tab); n != 0 {
		t.Errorf("the console shows %d error(s) once the tokens are entered%s", n, pageErrors(b.tab))
	}
}

// e2eClock is the answer of GET /_sandbox/clock.
type e2eClock struct {
	Now string `json:"now"`
}

// shown is the clock's now as the console shows it: at milliseconds, as the
// API writes every other time (wire.Time).
func (c e2eClock) shown() string {
	now, err := time.Parse(time.RFC3339Nano, c.Now)
	if err != nil {
		return c.Now
	}
	return wire.Time(now)
}

// e2eWorkspaceNamed returns the id of m's workspace named name.
func e2eWorkspaceNamed(t *testing.T, m *Main, name string) string {
	t.Helper()
	var list struct {
		Data []struct{ ID, Name string } `json:"data"`
	}
	e2eControl(t, m, http.MethodGet, "/_sandbox/workspaces", nil, http.StatusOK, &list)
	for _, w := range list.Data {
		if w.Name == name {
			return w.ID
		}
	}
	t.Fatalf("no workspace named %q: %+v", name, list.Data)
	return ""
}

// runE2EMain runs the serve command in-process, as TestConformance does: in
// memory, virtual clock, 127.0.0.1:0, with adminToken when not empty.
func runE2EMain(t *testing.T, adminToken string) *Main {
	t.Helper()
	m := NewMain(io.Discard, io.Discard)
	m.Config.Addr, m.Config.InMemory, m.Config.Clock, m.Config.LogLevel = "127.0.0.1:0", true, "virtual", "error"
	m.Config.AdminToken = adminToken
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	return m
}

func e2eTestID(id string) string { return `[data-testid="` + id + `"]` }

// e2eBrowser is one headless Chromium tab and what the page wrote to its
// console.
type e2eBrowser struct {
	t      *testing.T
	tab    context.Context
	cancel []context.CancelFunc

	mu       sync.Mutex
	messages []string
}

// openE2EBrowser starts Chromium for a test that must end within d (the
// deadline also ends the browser); the browser is closed, and a failure's
// artifacts kept, when the test ends.
func openE2EBrowser(t *testing.T, chrome string, d time.Duration, extra ...chromedp.ExecAllocatorOption) *e2eBrowser {
	t.Helper()
	root, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	b := startE2EBrowser(t, root, chrome, extra...)
	t.Cleanup(b.finish)
	return b
}

// startE2EBrowser starts Chromium under root's deadline, with the flags CI
// containers need and any extra ones.
func startE2EBrowser(t *testing.T, root context.Context, chrome string, extra ...chromedp.ExecAllocatorOption) *e2eBrowser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chrome),
		chromedp.Flag("headless", "new"),
		chromedp.NoSandbox, // CI containers run as root, where Chromium's sandbox cannot start
		chromedp.DisableGPU,
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1400, 1100),
	)
	opts = append(opts, extra...)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(root, opts...)
	tab, cancelTab := chromedp.NewContext(allocCtx)
	b := &e2eBrowser{t: t, tab: tab, cancel: []context.CancelFunc{cancelTab, cancelAlloc}}
	if err := chromedp.Do(tab); err != nil {
		b.finish()
		t.Fatalf("start Chromium (%s): %v", chrome, err)
	}
	go func() {
		for msg, err := range chromedp.Console(tab) {
			if err != nil {
				return
			}
			b.mu.Lock()
			b.messages = append(b.messages, fmt.Sprintf("%s %s:%d %s", msg.Type, msg.URL, msg.Line+1, msg))
			b.mu.Unlock()
		}
	}()
	return b
}

// finish keeps a failed run's screenshot, page and browser console, then
// closes the browser.
func (b *e2eBrowser) finish() {
	if b.t.Failed() {
		saveE2EArtifacts(b.t, b.tab)
		b.mu.Lock()
		for _, s := range b.messages {
			b.t.Logf("browser console: %s", s)
		}
		b.mu.Unlock()
	}
	for _, c := range b.cancel {
		c()
	}
}

// checkNoErrors fails the test for any error the console shows, and any
// exception or error the page logged.
func (b *e2eBrowser) checkNoErrors() {
	b.t.Helper()
	if n := countErrors(b.t, b.tab); n != 0 {
		b.t.Errorf("the console shows %d error(s)%s", n, pageErrors(b.tab))
	}
	b.checkConsole()
}

// checkConsole fails the test for any exception or error the page logged.
func (b *e2eBrowser) checkConsole() {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range b.messages {
		if strings.HasPrefix(s, "exception") || strings.HasPrefix(s, "error") {
			b.t.Errorf("browser console: %s", s)
		}
	}
}

// step runs actions within d.
func (b *e2eBrowser) step(name string, d time.Duration, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.tab, d)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.t.Fatalf("%s: %v%s", name, err, pageErrors(b.tab))
	}
}

// text and attr read through one JavaScript expression each, so that a part of
// the page the console re-renders meanwhile is read whole or not at all.
func (b *e2eBrowser) text(sel string) string {
	b.t.Helper()
	return evalString(b.t, b.tab, `(() => { const e = document.querySelector(`+jsString(sel)+`); return e ? e.textContent.trim() : null; })()`, sel)
}

func (b *e2eBrowser) attr(sel, name string) string {
	b.t.Helper()
	return evalString(b.t, b.tab, `(() => { const e = document.querySelector(`+jsString(sel)+`); return e ? e.getAttribute(`+jsString(name)+`) ?? '' : null; })()`, sel+"["+name+"]")
}

// value reads a form field's value.
func (b *e2eBrowser) value(sel string) string {
	b.t.Helper()
	return b.eval(`(() => { const e = document.querySelector(` + jsString(sel) + `); return e ? e.value : null; })()`)
}

// eval evaluates a JavaScript expression that yields a string.
func (b *e2eBrowser) eval(expr string) string {
	b.t.Helper()
	return evalString(b.t, b.tab, expr, expr)
}

// choose selects value in a <select> as a user does: the page hears the
// change.
func (b *e2eBrowser) choose(sel, value string) chromedp.Action[chromedp.Void] {
	return chromedp.Poll[chromedp.Void](`(() => { const e = document.querySelector(`+jsString(sel)+`);
		if (!e || e.disabled || !Array.from(e.options).some((o) => o.value === `+jsString(value)+` && !o.disabled)) { return false; }
		e.value = `+jsString(value)+`; e.dispatchEvent(new Event('change', { bubbles: true })); return true; })()`,
		chromedp.WithPollingTimeout(10*time.Second))
}

// waitText waits until the element's text is want.
func (b *e2eBrowser) waitText(sel, want string) chromedp.Action[chromedp.Void] {
	return chromedp.Poll[chromedp.Void](`(() => { const e = document.querySelector(`+jsString(sel)+`); return e !== null && e.textContent.trim() === `+jsString(want)+`; })()`,
		chromedp.WithPollingTimeout(20*time.Second))
}

// shot keeps a screenshot named name in $PIXSANDBOX_E2E_SHOTS, when set: a
// way to look at the console as the test sees it.
func (b *e2eBrowser) shot(name string) {
	b.t.Helper()
	dir := os.Getenv("PIXSANDBOX_E2E_SHOTS")
	if dir == "" {
		return
	}
	ctx, cancel := context.WithTimeout(b.tab, 15*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, b.t.Name()+"-"+name+".png"), png, 0o644)
	}
	if err != nil {
		b.t.Logf("screenshot %s: %v", name, err)
	}
}

// findChromium returns the browser to drive, failing with how to install one.
func findChromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("PIXSANDBOX_CHROMIUM"); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("PIXSANDBOX_CHROMIUM=%s: %v (unset it to use /usr/bin/chromium, which `make test-e2e` installs)", p, err)
		}
		return p
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("Chromium is not installed (no /usr/bin/chromium, nor chromium, chromium-browser, google-chrome or " +
		"headless-shell on PATH). Run `make test-e2e`, which installs Debian's chromium " +
		"(apt-get update && apt-get install -y chromium), or set PIXSANDBOX_CHROMIUM to a Chrome or Chromium binary.")
	return ""
}

// evalString evaluates expr, a JavaScript expression that yields a string, or
// null when the element it reads (what) is missing.
func evalString(t *testing.T, tab context.Context, expr, what string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, 10*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[*string](expr))
	if err != nil {
		t.Fatalf("read %s: %v%s", what, err, pageErrors(tab))
	}
	if v == nil {
		t.Fatalf("read %s: no such element%s", what, pageErrors(tab))
	}
	return *v
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func countErrors(t *testing.T, tab context.Context) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, 10*time.Second)
	defer cancel()
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="error-item"]').length`))
	if err != nil {
		t.Fatalf("count the errors shown: %v", err)
	}
	return n
}

// pageErrors is the text of the errors the console shows, for failure messages.
func pageErrors(tab context.Context) string {
	ctx, cancel := context.WithTimeout(tab, 5*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](
		`Array.from(document.querySelectorAll('[data-testid="error-item"] .error-text')).map((e) => e.textContent).join('\n')`))
	if err != nil || s == "" {
		return ""
	}
	return "\nthe console shows:\n" + s
}

// saveE2EArtifacts keeps a screenshot and the page's HTML of a failed run.
func saveE2EArtifacts(t *testing.T, tab context.Context) {
	if !t.Failed() {
		return
	}
	dir := os.Getenv("PIXSANDBOX_E2E_ARTIFACTS")
	var err error
	if dir != "" {
		err = os.MkdirAll(dir, 0o755)
	} else {
		dir, err = os.MkdirTemp("", "pixsandbox-console-e2e-")
	}
	if err != nil {
		t.Logf("no artifacts directory: %v", err)
		return
	}
	ctx, cancel := context.WithTimeout(tab, 15*time.Second)
	defer cancel()
	if shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err != nil {
		t.Logf("screenshot: %v", err)
	} else if err := os.WriteFile(filepath.Join(dir, "console-e2e.png"), shot, 0o644); err != nil {
		t.Logf("screenshot: %v", err)
	}
	if html, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.documentElement.outerHTML`)); err != nil {
		t.Logf("page HTML: %v", err)
	} else if err := os.WriteFile(filepath.Join(dir, "console-e2e.html"), []byte(html), 0o644); err != nil {
		t.Logf("page HTML: %v", err)
	}
	t.Logf("screenshot and page HTML of the failure: %s", dir)
}

// e2eClient is a control-plane client of m (with its admin token).
func e2eClient(m *Main) *sandboxclient.Client {
	return sandboxclient.New(m.URL(), m.Config.AdminToken)
}

// e2eControl calls the control plane of m and decodes the answer into out
// (nil: not read), failing the test unless it answers want.
func e2eControl(t *testing.T, m *Main, method, path string, body any, want int, out any) {
	t.Helper()
	var err error
	if out == nil {
		_, err = e2eClient(m).Call(context.Background(), method, path, body, nil, want)
	} else {
		_, err = e2eClient(m).CallJSON(context.Background(), method, path, body, nil, out, want)
	}
	if err != nil {
		t.Fatal(err)
	}
}

type e2eWebhook struct {
	header http.Header
	body   map[string]any
}

// e2eReceiver is a webhook receiver that answers 200 and keeps what it got.
type e2eReceiver struct {
	mu     sync.Mutex
	got    []e2eWebhook
	notify chan struct{}
}

func newE2EReceiver() *e2eReceiver { return &e2eReceiver{notify: make(chan struct{}, 1)} }

func (r *e2eReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	raw, _ := io.ReadAll(req.Body)
	var body map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	_ = dec.Decode(&body)
	r.mu.Lock()
	r.got = append(r.got, e2eWebhook{header: req.Header.Clone(), body: body})
	r.mu.Unlock()
	select {
	case r.notify <- struct{}{}:
	default:
	}
	w.WriteHeader(http.StatusOK)
}

func (r *e2eReceiver) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.got)
}

// wait returns the first webhook match accepts, waiting at most d.
func (r *e2eReceiver) wait(ctx context.Context, d time.Duration, match func(e2eWebhook) bool) (e2eWebhook, bool) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	for {
		r.mu.Lock()
		for _, h := range r.got {
			if match(h) {
				r.mu.Unlock()
				return h, true
			}
		}
		r.mu.Unlock()
		select {
		case <-r.notify:
		case <-ctx.Done():
			return e2eWebhook{}, false
		}
	}
}
