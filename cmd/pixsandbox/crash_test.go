package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/pixsandbox/pixsandbox/fixtures"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// childEnv makes this test binary run a pixsandbox command (`serve …`)
// instead of the tests: the child processes' fallback where no go command
// builds the child binary (childCommand).
const childEnv = "PIXSANDBOX_TEST_CHILD_SERVE"

func TestMain(m *testing.M) {
	// The proxies this binary runs (the tests' own, and a child's `proxy`)
	// judge in a process of this binary, as the built binary's do in one of
	// its own.
	judgeProcess = func() *exec.Cmd {
		cmd := ownGroup(exec.Command(os.Args[0]))
		cmd.Env = append(os.Environ(), childEnv+"="+judgeCommand)
		return cmd
	}
	if args := os.Getenv(childEnv); args != "" {
		os.Exit(run(strings.Fields(args), os.Stdout, os.Stderr))
	}
	dir, err := os.MkdirTemp("", "pixsandbox-children-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	childBins.dir = dir
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// child is a server process on a data dir.
type child struct {
	cmd *exec.Cmd
	url string
}

func startChild(t *testing.T, dir string, flags ...string) *child {
	t.Helper()
	args := strings.Fields(strings.Join(append([]string{"serve --addr 127.0.0.1:0 --clock virtual --log-level error --data-dir " + dir}, flags...), " "))
	return startServe(t, childCommand(t, nil, args))
}

// startServe starts cmd, a childCommand running serve, and waits for its URL.
func startServe(t *testing.T, cmd *exec.Cmd) *child {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return &child{cmd: cmd, url: waitListening(t, out)}
}

// kill sends SIGKILL: no shutdown, no flush.
func (c *child) kill(t *testing.T) {
	t.Helper()
	if err := c.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = c.cmd.Wait()
}

func (c *child) do(t *testing.T, method, path, body string, h map[string]string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, c.url+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range h {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	_ = dec.Decode(&m)
	return resp.StatusCode, m
}

// fixtureBearer returns the Authorization value of a token of fixture account 1.
func (c *child) fixtureBearer(t *testing.T) string {
	t.Helper()
	set, _ := fixtures.Embedded()
	a := set.Accounts[0]
	pemBytes, _ := set.ReadFile(a.Certificate)
	st, tok := c.do(t, "POST", "/api/auth/token", `{"clientId":"`+a.ClientID+`","clientSecret":"`+a.ClientSecret+`"}`,
		map[string]string{"X-SSL-Client-Cert": pix.EncodeCertHeader(pemBytes)})
	if st != 201 {
		t.Fatalf("token: %d %v", st, tok)
	}
	return "Bearer " + tok["access_token"].(string)
}

// externalEmailKey is an email key of the DICT fixtures held outside the
// sandbox, with its holder's document.
func externalEmailKey(t *testing.T) (key, document string) {
	t.Helper()
	set, _ := fixtures.Embedded()
	for _, k := range set.DICT() {
		if k.Scenario == "" && k.Type == "EMAIL" {
			return k.Key, k.Document
		}
	}
	t.Fatal("no external email key in the fixtures")
	return "", ""
}

// TestCrash_PendingSettlesAfterRestart: SIGKILL between acceptance and
// settlement; after a restart on the same data dir the transfer and the cash-out
// settle and their webhooks are delivered.
func TestCrash_PendingSettlesAfterRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	dir := t.TempDir()
	var mu sync.Mutex
	var hooks []map[string]any
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		_ = json.NewDecoder(r.Body).Decode(&m)
		mu.Lock()
		hooks = append(hooks, m)
		mu.Unlock()
	}))
	defer receiver.Close()

	c := startChild(t, dir)
	auth := map[string]string{"Authorization": c.fixtureBearer(t)}
	if st, b := c.do(t, "POST", "/_sandbox/webhook-targets", `{"accountId":1,"eventType":"cash_out","url":"`+receiver.URL+`"}`, nil); st != 201 {
		t.Fatalf("target: %d %v", st, b)
	}
	key, doc := externalEmailKey(t)
	auth["x-idempotency-key"] = uuid.NewString()
	st, tr := c.do(t, "POST", "/dict/pix", `{"pixKey":"`+key+`","payment":{"currency":"BRL","amount":25}}`, auth)
	if st != 200 {
		t.Fatalf("transfer: %d %v", st, tr)
	}
	delete(auth, "x-idempotency-key")
	st, co := c.do(t, "POST", "/api/pix/cash-out", `{"value":10,"externalId":"crash-1","details":{"key":"`+key+`","keyType":"EMAIL","name":"X","document":"`+doc+`"}}`, auth)
	if st != 201 {
		t.Fatalf("cash-out: %d %v", st, co)
	}

	c.kill(t)
	c = startChild(t, dir)

	// Nothing acknowledged was lost: both are pending, the holds still taken.
	_, b := c.do(t, "GET", "/_sandbox/accounts/1", "", nil)
	if bal := b["balance"].(map[string]any); bal["blockedBalance"].(json.Number).String() != "35.00" {
		t.Fatalf("after SIGKILL, balance = %v", bal)
	}
	if st, c := c.do(t, "POST", "/_sandbox/clock/advance", `{"seconds":2}`, nil); st != 200 {
		t.Fatalf("advance: %d %v", st, c)
	}
	_, got := c.do(t, "GET", "/_sandbox/transactions/"+tr["id"].(json.Number).String(), "", nil)
	if got["type"] != "COMPLETED" {
		t.Fatalf("transfer after restart: %v", got)
	}
	_, got = c.do(t, "GET", "/_sandbox/transactions/"+co["transactionId"].(string), "", nil)
	if got["status"] != "CONFIRMED" {
		t.Fatalf("cash-out after restart: %v", got)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := len(hooks)
		mu.Unlock()
		if n >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("webhooks delivered after restart: %d, want 2", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	_, b = c.do(t, "GET", "/_sandbox/accounts/1", "", nil)
	if bal := b["balance"].(map[string]any); bal["blockedBalance"].(json.Number).String() != "0.00" || bal["netBalance"].(json.Number).String() != "9965.00" {
		t.Fatalf("balance after settlement = %v", bal)
	}
	if _, inv := c.do(t, "GET", "/_sandbox/invariants", "", nil); inv["ok"] != true {
		t.Fatalf("invariants: %v", inv)
	}
}

// TestCrash_KillMidBatch: SIGKILL while eight clients keep cash-outs in flight
// (the writer commits them in batches, some refused among them). After a
// restart every acknowledged cash-out is there exactly once, nothing refused
// is, and the ledger invariants hold: no batch was half applied. In every
// durability mode (--sync): a killed process loses nothing the kernel holds.
func TestCrash_KillMidBatch(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	t.Parallel() // child processes on data directories of their own
	for _, mode := range []string{"batch", "100ms", "false"} {
		t.Run("sync="+mode, func(t *testing.T) { killMidBatch(t, "--sync="+mode) })
	}
}

func killMidBatch(t *testing.T, syncFlag string) {
	dir := t.TempDir()
	c := startChild(t, dir, syncFlag)
	bearer := c.fixtureBearer(t)
	key, doc := externalEmailKey(t)
	var (
		mu      sync.Mutex
		acked   []string // 201
		refused []string // 400
		stop    = make(chan struct{})
		wg      sync.WaitGroup
	)
	client := &http.Client{Timeout: 30 * time.Second}
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				ext := fmt.Sprintf("kill-%d-%d", w, i)
				value := "1.00"
				if i%5 == 4 {
					value = "99999999.00" // above the balance: refused inside the batch
				}
				req, _ := http.NewRequest("POST", c.url+"/api/pix/cash-out", strings.NewReader(`{"value":`+value+`,"externalId":"`+ext+`","details":{"key":"`+key+`","keyType":"EMAIL","name":"X","document":"`+doc+`"}}`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", bearer)
				resp, err := client.Do(req)
				if err != nil {
					return // the server was killed
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				mu.Lock()
				switch resp.StatusCode {
				case http.StatusCreated:
					acked = append(acked, ext)
				case http.StatusBadRequest:
					refused = append(refused, ext)
				}
				mu.Unlock()
			}
		}()
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(5 * time.Millisecond) { // wall time: load before the kill
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		if n >= 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d cash-outs acknowledged before the kill", n)
		}
	}
	c.kill(t) // requests are in flight: some in a batch being applied or synced
	close(stop)
	wg.Wait()
	c = startChild(t, dir, syncFlag)
	auth := map[string]string{"Authorization": bearer}
	count := func(ext string) int {
		t.Helper()
		st, b := c.do(t, "GET", "/api/transactions?externalId="+ext, "", auth)
		if st != 200 {
			t.Fatalf("listing %s: %d %v", ext, st, b)
		}
		n, _ := b["metadata"].(map[string]any)["total"].(json.Number).Int64()
		return int(n)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, ext := range acked {
		if n := count(ext); n != 1 {
			t.Fatalf("acknowledged cash-out %s is present %d times after the kill", ext, n)
		}
	}
	for _, ext := range refused {
		if n := count(ext); n != 0 {
			t.Fatalf("refused cash-out %s is present after the kill", ext)
		}
	}
	if _, inv := c.do(t, "GET", "/_sandbox/invariants", "", nil); inv["ok"] != true {
		t.Fatalf("invariants after the kill: %v", inv)
	}
	t.Logf("%d acknowledged and %d refused before the kill", len(acked), len(refused))
}
