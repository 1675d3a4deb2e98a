//go:build e2e

package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// TestExplorerE2E opens the API explorer (/_sandbox/docs) in headless Chromium
// with the network off: Swagger UI renders from the server's own files, the
// account chosen in the bar is authorised, and "Try it out" on
// GET /accounts/balances answers 200 with that account's balance; in a
// workspace, "Try it out" on a control route acts on that workspace. No
// request of the browser leaves the loopback server.
func TestExplorerE2E(t *testing.T) {
	chrome := findChromium(t)
	m := runE2EMain(t, "")

	// The network is off: every request not to a loopback address goes to a
	// proxy on a loopback port where nothing listens, so it fails (Chromium
	// always sends loopback addresses direct). Offline emulation would cut
	// the loopback server too.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	nowhere := ln.Addr().String()
	_ = ln.Close()
	b := openE2EBrowser(t, chrome, 3*time.Minute, chromedp.ProxyServer("http://"+nowhere))
	var (
		mu   sync.Mutex
		urls []string
	)
	go func() {
		for ev, err := range chromedp.Events(b.tab, network.RequestWillBeSent) {
			if err != nil {
				return
			}
			mu.Lock()
			urls = append(urls, ev.Request.URL)
			mu.Unlock()
		}
	}()

	var accounts struct {
		Accounts []struct {
			ID      int64 `json:"id"`
			Balance struct {
				NetBalance json.Number `json:"netBalance"`
			} `json:"balance"`
		} `json:"accounts"`
	}
	e2eControl(t, m, http.MethodGet, "/_sandbox/accounts", nil, http.StatusOK, &accounts)
	second := accounts.Accounts[1]
	tid := e2eTestID

	start := time.Now() // wall time: the test's own runtime, logged
	b.step("open the explorer", 90*time.Second,
		chromedp.Navigate(m.URL()+"/_sandbox/docs"),
		b.shown(`body[data-ready="true"][data-account="1"]`),
		b.shown(`#operations-balance-balanceBacen`),
	)
	if got := b.eval(`location.search`); got != "?workspace=default&account=1" {
		t.Errorf("the explorer's URL query is %q, want the default workspace and its first account", got)
	}
	b.step(fmt.Sprintf("choose account %d", second.ID), 60*time.Second,
		b.choose(tid("explorer-account"), fmt.Sprint(second.ID)),
		b.shown(fmt.Sprintf(`body[data-account="%d"]`, second.ID)),
	)
	status, body, curl := b.tryIt("#operations-balance-balanceBacen")
	b.shot("balances")
	if status != "200" {
		t.Fatalf("Try it out on GET /accounts/balances answered %q, want 200: %s", status, body)
	}
	if !strings.Contains(curl, "Authorization: Bearer ey") {
		t.Errorf("the request shown carries no bearer token: %s", curl)
	}
	// The body is shown as the server wrote it (250000.00, not 250000).
	if want := `"available": ` + second.Balance.NetBalance.String() + ","; !strings.Contains(body, want) {
		t.Errorf("GET /accounts/balances answered %s, want account %d's balance (%s)", body, second.ID, want)
	}

	// In a workspace, the bar shows its accounts and "Try it out" on the
	// control plane acts there.
	var ws struct {
		ID string `json:"id"`
	}
	e2eControl(t, m, http.MethodPost, "/_sandbox/workspaces", map[string]any{"name": "explorer", "accounts": 1}, http.StatusCreated, &ws)
	var wsAccounts struct {
		Accounts []struct {
			ID int64 `json:"id"`
		} `json:"accounts"`
	}
	e2eControl(t, m, http.MethodGet, "/_sandbox/workspaces/"+ws.ID+"/accounts", nil, http.StatusOK, &wsAccounts)
	own := fmt.Sprint(wsAccounts.Accounts[0].ID)
	b.step("open the explorer on a workspace", 90*time.Second,
		chromedp.Navigate(m.URL()+"/_sandbox/docs?workspace="+ws.ID),
		b.shown(`body[data-ready="true"][data-account="`+own+`"]`),
		b.shown(`#operations-sandbox-sandboxAccountsList`),
	)
	if got := b.value(tid("explorer-workspace")); got != ws.ID {
		t.Errorf("the workspace picker shows %q, want %s", got, ws.ID)
	}
	status, body, curl = b.tryIt("#operations-sandbox-sandboxAccountsList")
	if status != "200" || !strings.Contains(body, `"id": `+own) || strings.Contains(body, `"id": 1,`) {
		t.Errorf("Try it out on GET /_sandbox/accounts in workspace %s: %s %s, want its account %s only", ws.ID, status, body, own)
	}
	if !strings.Contains(curl, "X-Sandbox-Workspace: "+ws.ID) {
		t.Errorf("the control-plane request shown does not name the workspace: %s", curl)
	}

	b.checkConsole()
	mu.Lock()
	defer mu.Unlock()
	for _, u := range urls {
		if !strings.HasPrefix(u, m.URL()+"/") && !strings.HasPrefix(u, "data:") {
			t.Errorf("the browser asked for %s, outside the loopback server", u)
		}
	}
	if len(urls) < 5 {
		t.Errorf("saw %d request(s); the network listener missed them: %v", len(urls), urls)
	}
	t.Logf("explorer flow took %s in the browser, %d requests, all to the loopback server", time.Since(start).Round(time.Millisecond), len(urls))
}

// tryIt opens the operation block sel of Swagger UI, presses "Try it out" and
// "Execute", and returns the status and body of the answer and the curl
// command shown.
func (b *e2eBrowser) tryIt(sel string) (status, body, curl string) {
	b.t.Helper()
	b.step("try "+sel, 90*time.Second,
		b.press(sel+" .opblock-summary-control"),
		b.press(sel+" .try-out__btn"),
		b.press(sel+" .execute"),
		b.shown(sel+" .live-responses-table tbody .response-col_status"),
	)
	status = b.text(sel + " .live-responses-table tbody .response-col_status")
	body = b.text(sel + " .live-responses-table tbody .response-col_description pre")
	curl = b.text(sel + " .curl-command")
	return strings.Fields(status + " ")[0], body, curl
}

// shown waits until an element matching sel is on the page and laid out.
// Swagger UI's page is too large for chromedp's DOM queries
// (chromedp.WaitVisible) to keep up with, so the explorer's test asks the
// page itself.
func (b *e2eBrowser) shown(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.Poll[chromedp.Void](`(() => { const e = document.querySelector(`+jsString(sel)+`); return e !== null && e.getClientRects().length > 0; })()`,
		chromedp.WithPollingTimeout(60*time.Second))
}

// press clicks the element matching sel once it is shown and enabled.
func (b *e2eBrowser) press(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.Poll[chromedp.Void](`(() => { const e = document.querySelector(`+jsString(sel)+`);
		if (e === null || e.getClientRects().length === 0 || e.disabled) { return false; } e.click(); return true; })()`,
		chromedp.WithPollingTimeout(60*time.Second))
}
