// The tests of this file use the package as another module's tests would:
// from package sandboxtest_test, through its exported API, the standard
// library and HTTP only.
package sandboxtest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/sandboxtest"
)

// cashOut is a body of POST /api/pix/cash-out to a key at another bank.
const cashOut = `{"value":25,"externalId":"order-42","details":{"key":"11987654321","keyType":"PHONE","name":"Fulano","document":"52998224725"}}`

// call sends a request and decodes its JSON answer into out (nil: none),
// failing the test unless the answer has status want.
func call(t *testing.T, c *http.Client, method, url, token, body string, want int, out any) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != want {
		t.Fatalf("%s %s answered %d, want %d: %s", method, url, resp.StatusCode, want, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %v: %s", method, url, err, b)
		}
	}
}

// dirEntries lists the names in dir.
func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(es))
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// goroutinesBackTo waits, up to a second of wall time, for the goroutines to
// be back to n at most; it returns how many there are.
func goroutinesBackTo(n int) int {
	deadline := time.Now().Add(time.Second)
	for {
		got := runtime.NumGoroutine()
		if got <= n || time.Now().After(deadline) {
			return got
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestCashOutSettles is the acceptance test of the embeddable sandbox: a
// sandbox started in a test, a token, a cash-out, a clock advance, and the
// cash-out read back settled, both from the PIX API and from the control
// plane, in under a second; when the test's sandbox is gone, no file is left
// (in the temporary directory or the working directory) and its goroutines
// are gone.
func TestCashOutSettles(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // os.TempDir, for anything that would write there
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	before := dirEntries(t, wd)
	http.DefaultClient.CloseIdleConnections()
	goroutines := runtime.NumGoroutine()

	start := time.Now()
	t.Run("sandbox", func(t *testing.T) {
		sb := sandboxtest.New(t)
		payer := sb.Accounts()[0]
		token := sb.Token(t, payer)

		var created struct{ TransactionID, ExternalID, Status string }
		call(t, http.DefaultClient, "POST", sb.URL()+"/api/pix/cash-out", token, cashOut, http.StatusCreated, &created)
		if created.Status != "PENDING" || created.TransactionID == "" {
			t.Fatalf("cash-out created %+v, want a PENDING transaction", created)
		}

		now := sb.Advance(5 * time.Second)
		if want := sandboxtest.DefaultClockStart.Add(5 * time.Second); !now.Equal(want) || !sb.Now().Equal(want) {
			t.Fatalf("after Advance the clock is at %s (Now %s), want %s", now, sb.Now(), want)
		}

		// The PIX API: the account's listing and balance.
		var list struct {
			Data []struct{ ExternalID, Status, EndToEndID string }
		}
		call(t, http.DefaultClient, "GET", sb.URL()+"/api/transactions?type=WITHDRAW", token, "", http.StatusOK, &list)
		if len(list.Data) != 1 || list.Data[0].ExternalID != "order-42" || list.Data[0].Status != "Confirmado" || list.Data[0].EndToEndID == "" {
			t.Fatalf("GET /api/transactions after the advance: %+v, want order-42 Confirmado with an endToEndId", list.Data)
		}
		var balance struct{ NetBalance json.Number }
		call(t, http.DefaultClient, "GET", sb.URL()+"/api/balance", token, "", http.StatusOK, &balance)
		if balance.NetBalance.String() != "9975.00" {
			t.Fatalf("net balance %s, want 9975.00 (10000.00 less the 25.00 sent)", balance.NetBalance)
		}

		// The control plane.
		var tx struct{ Status string }
		call(t, http.DefaultClient, "GET", sb.ControlURL()+"/transactions/"+created.TransactionID, "", "", http.StatusOK, &tx)
		if tx.Status != "CONFIRMED" {
			t.Fatalf("GET /_sandbox/transactions/%s: status %s, want CONFIRMED", created.TransactionID, tx.Status)
		}
	})
	elapsed := time.Since(start)
	t.Logf("sandbox started, token, cash-out, advance, settled, closed: %s", elapsed)
	if elapsed >= time.Second {
		t.Errorf("the test took %s, want under 1 s", elapsed)
	}
	if left := dirEntries(t, tmp); len(left) > 0 {
		t.Errorf("the sandbox left files in the temporary directory: %q", left)
	}
	if after := dirEntries(t, wd); !slices.Equal(before, after) {
		t.Errorf("the working directory changed: before %q, after %q", before, after)
	}
	http.DefaultClient.CloseIdleConnections()
	if got := goroutinesBackTo(goroutines); got > goroutines {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines after the sandbox closed, %d before:\n%s", got, goroutines, buf[:runtime.Stack(buf, true)])
	}
}

// TestClient: the client of an account carries its token to the sandbox,
// takes a new one when an advance expires it (a token taken before then is
// refused), and leaves requests to other hosts and requests with their own
// Authorization alone.
func TestClient(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.New(t)
	acct := sb.Accounts()[1]
	c := sb.Client(acct)
	old := sb.Token(t, acct)

	call(t, c, "GET", sb.URL()+"/api/balance", "", "", http.StatusOK, nil)
	sb.Advance(31 * time.Minute) // past the tokens' 30 minutes
	call(t, c, "GET", sb.URL()+"/api/balance", "", "", http.StatusOK, nil)
	call(t, http.DefaultClient, "GET", sb.URL()+"/api/balance", old, "", http.StatusUnauthorized, nil)
	call(t, c, "GET", sb.URL()+"/api/balance", old, "", http.StatusUnauthorized, nil) // its own header wins

	var seen []string
	var mu sync.Mutex
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"))
		mu.Unlock()
	}))
	defer other.Close()
	call(t, c, "GET", other.URL, "", "", http.StatusOK, nil)
	if len(seen) != 1 || seen[0] != "" {
		t.Fatalf("another host got Authorization %q, want none", seen)
	}
}

// TestWorkspace: a workspace has accounts of its own (same ids and keys, its
// own credentials), a clock of its own, and data of its own; it is deleted
// when its test ends, and its client then fails with an error saying so.
func TestWorkspace(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.New(t)
	var id string
	var client *http.Client
	t.Run("isolated", func(t *testing.T) {
		ws := sb.Workspace(t)
		id = ws.ID()
		client = ws.Client(ws.Accounts()[0])
		if id == sb.ID() || sb.ID() != "default" {
			t.Fatalf("workspace id %q, server's %q", id, sb.ID())
		}
		a, wa := sb.Accounts()[0], ws.Accounts()[0]
		if a.ID != wa.ID || a.Key("EMAIL") != wa.Key("EMAIL") || a.ClientID == wa.ClientID || a.ClientSecret == wa.ClientSecret {
			t.Fatalf("server's account %+v, workspace's %+v: want the same id and keys, other credentials", a, wa)
		}
		if ws.URL() != sb.URL() || ws.ControlURL() != sb.URL()+"/_sandbox/workspaces/"+id {
			t.Fatalf("workspace URL %s, control URL %s", ws.URL(), ws.ControlURL())
		}

		call(t, ws.Client(wa), "POST", ws.URL()+"/api/pix/cash-out", "", cashOut, http.StatusCreated, nil)
		ws.Advance(time.Hour)
		if !sb.Now().Equal(sandboxtest.DefaultClockStart) || !ws.Now().Equal(sandboxtest.DefaultClockStart.Add(time.Hour)) {
			t.Fatalf("server's clock %s, workspace's %s: only the workspace's moved", sb.Now(), ws.Now())
		}
		var wsBal, bal struct{ NetBalance json.Number }
		call(t, ws.Client(wa), "GET", ws.URL()+"/api/balance", "", "", http.StatusOK, &wsBal)
		call(t, sb.Client(a), "GET", sb.URL()+"/api/balance", "", "", http.StatusOK, &bal)
		if wsBal.NetBalance.String() != "9975.00" || bal.NetBalance.String() != "10000.00" {
			t.Fatalf("balances: workspace %s, server %s; want 9975.00 and 10000.00", wsBal.NetBalance, bal.NetBalance)
		}
		var clock struct{ Now string }
		call(t, http.DefaultClient, "GET", ws.ControlURL()+"/clock", "", "", http.StatusOK, &clock)
		if clock.Now != "2026-03-02T13:00:00Z" {
			t.Fatalf("the workspace's control plane reads the clock at %s", clock.Now)
		}
	})
	call(t, http.DefaultClient, "GET", sb.URL()+"/_sandbox/workspaces/"+id, "", "", http.StatusNotFound, nil)
	if _, err := client.Get(sb.URL() + "/api/balance"); err == nil || !strings.Contains(err.Error(), "deleted") {
		t.Fatalf("a deleted workspace's client: %v, want an error saying the workspace was deleted", err)
	}
}

// TestAdvanceWaitsForWebhooks: when Advance returns, the webhooks of what
// settled on the way have reached their receiver.
func TestAdvanceWaitsForWebhooks(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []string
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, string(b))
		mu.Unlock()
	}))
	defer receiver.Close()
	sb := sandboxtest.New(t)
	acct := sb.Accounts()[0]
	call(t, http.DefaultClient, "POST", sb.ControlURL()+"/webhook-targets", "",
		`{"accountId":1,"eventType":"cash_out","url":"`+receiver.URL+`"}`, http.StatusCreated, nil)
	call(t, sb.Client(acct), "POST", sb.URL()+"/api/pix/cash-out", "", cashOut, http.StatusCreated, nil)
	sb.Advance(2 * time.Second)
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || !strings.Contains(got[0], "order-42") {
		t.Fatalf("the receiver got %q when Advance returned, want the cash-out's webhook", got)
	}
}

// TestSetClock: SetClock moves the clock forward to an instant, and panics
// when asked to move it back.
func TestSetClock(t *testing.T) {
	t.Parallel()
	start := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	sb := sandboxtest.New(t, sandboxtest.WithClockStart(start))
	if !sb.Now().Equal(start) {
		t.Fatalf("clock starts at %s, want %s", sb.Now(), start)
	}
	later := start.Add(48 * time.Hour)
	sb.SetClock(later)
	if !sb.Now().Equal(later) {
		t.Fatalf("after SetClock the clock is at %s, want %s", sb.Now(), later)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "only moves forward") {
			t.Fatalf("SetClock backwards: recovered %v, want a panic saying the clock only moves forward", r)
		}
	}()
	sb.SetClock(start)
}

// TestStartOptions: Start refuses an unknown cash-in webhook shape; the
// sandbox Start returns closes with Close, more than once.
func TestStartOptions(t *testing.T) {
	t.Parallel()
	if _, err := sandboxtest.Start(sandboxtest.WithCashInWebhook("Receive")); err == nil || !strings.Contains(err.Error(), "CashIn") {
		t.Fatalf("Start with cash-in webhook shape Receive: %v, want an error naming the shapes", err)
	}
	sb, err := sandboxtest.Start(sandboxtest.WithCashInWebhook("CashIn"), sandboxtest.WithSeed(7), sandboxtest.WithSettlementDelay(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	c := sb.Client(sb.Accounts()[1])
	call(t, c, "POST", sb.URL()+"/api/pix/cash-out", "", cashOut, http.StatusCreated, nil)
	sb.Advance(59 * time.Second)
	var tx struct{ Data []struct{ Status string } }
	call(t, c, "GET", sb.URL()+"/api/transactions", "", "", http.StatusOK, &tx)
	if len(tx.Data) != 1 || tx.Data[0].Status != "Pendente" {
		t.Fatalf("with a 1 min settlement delay, after 59 s: %+v, want one Pendente", tx.Data)
	}
	sb.Close()
	sb.Close()
	if _, err := c.Get(sb.URL() + "/api/balance"); err == nil {
		t.Fatal("the sandbox still answers after Close")
	}
}
