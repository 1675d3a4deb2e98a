//go:build e2e

package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestConsoleE2E_Faults drives the Faults tab: add a rule for account 1's
// cash-outs from the form, see a cash-out of account 1 faulted by it (counted
// in the rule's row and listed under the requests faulted), then remove it.
func TestConsoleE2E_Faults(t *testing.T) {
	chrome := findChromium(t)
	m := runE2EMain(t, "")
	b := openE2EBrowser(t, chrome, 2*time.Minute)
	tid := e2eTestID

	b.step("open the Faults tab with account 1 selected", 30*time.Second,
		chromedp.Navigate(m.URL()+"/_sandbox/console"),
		chromedp.WaitVisible(chromedp.CSS(`body[data-ready="true"]`)),
		chromedp.Click(chromedp.CSS(tid("account-select-1"))),
		chromedp.WaitVisible(chromedp.CSS(tid("account-row-1")+`.selected`)),
		chromedp.Click(chromedp.CSS(tid("tab-faults"))),
		chromedp.WaitVisible(chromedp.CSS(tid("panel-faults"))),
	)
	b.step("add a rule: account 1's cash-outs get status=503 once", 20*time.Second,
		chromedp.SetValue(chromedp.CSS(tid("fault-fault")), "status=503"),
		chromedp.Click(chromedp.CSS(tid("fault-account"))),
		chromedp.SetValue(chromedp.CSS(tid("fault-times")), "1"),
		chromedp.Click(chromedp.CSS(tid("fault-add"))),
		chromedp.WaitVisible(chromedp.CSS(tid("fault-rule-row"))),
	)
	if row := b.text(tid("fault-rule-row")); !strings.Contains(row, "POST /api/pix/cash-out") || !strings.Contains(row, "status=503") ||
		!strings.Contains(row, "account 1") || !strings.Contains(row, "1 of 1 left") {
		t.Errorf("the rule's row: %q", row)
	}

	token := fixtureToken(t, m)
	st, _ := rawCall(t, http.MethodPost, m.URL()+"/api/pix/cash-out",
		`{"value":1.00,"externalId":"console-fault-1","details":{"key":"12345678909","keyType":"DOCUMENT","name":"Ana","document":"12345678909"}}`,
		map[string]string{"Authorization": "Bearer " + token, "Content-Type": "application/json"})
	if st != http.StatusServiceUnavailable {
		t.Fatalf("the cash-out answered %d, want the rule's 503", st)
	}
	b.step("see the request faulted", 20*time.Second,
		chromedp.Click(chromedp.CSS(tid("fault-refresh"))),
		b.waitText(tid("fault-rule-applied"), "1"),
		chromedp.WaitVisible(chromedp.CSS(tid("fault-request-row"))),
	)
	b.shot("faults")
	if row := b.text(tid("fault-request-row")); !strings.Contains(row, "POST /api/pix/cash-out") || !strings.Contains(row, "status=503") ||
		!strings.Contains(row, "rule 1") {
		t.Errorf("the faulted request's row: %q", row)
	}
	b.step("remove the rule", 20*time.Second,
		chromedp.Click(chromedp.CSS(tid("fault-rule-delete"))),
		chromedp.WaitNotPresent(chromedp.CSS(tid("fault-rule-row"))),
	)
	b.checkNoErrors()
}
