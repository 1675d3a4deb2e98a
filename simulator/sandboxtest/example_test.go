package sandboxtest_test

import (
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/sandboxtest"
)

// A cash-out, settled by moving the clock. In a test, sandboxtest.New(t)
// replaces Start and the deferred Close.
func Example() {
	sb, err := sandboxtest.Start()
	if err != nil {
		log.Fatal(err)
	}
	defer sb.Close()

	acct := sb.Accounts()[0]
	client := sb.Client(acct) // its requests carry acct's bearer token

	resp, err := client.Post(sb.URL()+"/api/pix/cash-out", "application/json", strings.NewReader(
		`{"value":25,"externalId":"order-42","details":{"key":"11987654321","keyType":"PHONE","name":"Fulano","document":"52998224725"}}`))
	if err != nil {
		log.Fatal(err)
	}
	var created struct{ TransactionID, Status string }
	if err := json.NewDecoder(resp.Body).Decode(&created); err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()
	fmt.Println(resp.StatusCode, created.Status)

	sb.Advance(2 * time.Second) // a PIX sent settles 2 s after it is accepted

	resp, err = client.Get(sb.ControlURL() + "/transactions/" + created.TransactionID)
	if err != nil {
		log.Fatal(err)
	}
	var tx struct{ Status string }
	if err := json.NewDecoder(resp.Body).Decode(&tx); err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()
	fmt.Println(tx.Status)
	// Output:
	// 201 PENDING
	// CONFIRMED
}

// A test starts its own sandbox; it stops when the test ends.
func ExampleNew() {
	testBalance := func(t *testing.T) {
		sb := sandboxtest.New(t)
		acct := sb.Accounts()[0]

		req, _ := http.NewRequest("GET", sb.URL()+"/api/balance", nil)
		req.Header.Set("Authorization", "Bearer "+sb.Token(t, acct))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /api/balance answered %d", resp.StatusCode)
		}
	}
	_ = testBalance // a test function: func TestBalance(t *testing.T)
}

// The accounts of a new sandbox, with their credentials and keys.
func ExampleSandbox_Accounts() {
	sb, err := sandboxtest.Start()
	if err != nil {
		log.Fatal(err)
	}
	defer sb.Close()

	for _, a := range sb.Accounts() {
		fmt.Println(a.ID, a.Name, a.OpeningBalance, a.Key("EMAIL"))
	}
	// Output:
	// 1 Emanuel Howell 10000.00 emanuel.howell@example.com
	// 2 Hayes Tecnologia Ltda 250000.00 financeiro@hayes.example.com
	// 3 Dwight Schaefer 0.00 dwight.schaefer@example.com
}

// Moving the clock: a token lives 30 minutes of simulation time. The client
// of Client takes a new one when needed; a token taken before is refused.
func ExampleSandbox_Advance() {
	sb, err := sandboxtest.Start()
	if err != nil {
		log.Fatal(err)
	}
	defer sb.Close()

	client := sb.Client(sb.Accounts()[0])
	get := func() int {
		resp, err := client.Get(sb.URL() + "/api/balance")
		if err != nil {
			log.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}

	fmt.Println(sb.Now().Format(time.RFC3339), get())
	fmt.Println(sb.Advance(31*time.Minute).Format(time.RFC3339), get())
	sb.SetClock(time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC))
	fmt.Println(sb.Now().Format(time.RFC3339), get())
	// Output:
	// 2026-03-02T12:00:00Z 200
	// 2026-03-02T12:31:00Z 200
	// 2026-04-01T00:00:00Z 200
}

// Code under test that takes its own tokens gets an account's credentials:
// the token request of the contract.
func ExampleAccount_CertHeader() {
	sb, err := sandboxtest.Start()
	if err != nil {
		log.Fatal(err)
	}
	defer sb.Close()

	acct := sb.Accounts()[1]
	body := fmt.Sprintf(`{"clientId":%q,"clientSecret":%q}`, acct.ClientID, acct.ClientSecret)
	req, _ := http.NewRequest("POST", sb.URL()+"/api/auth/token", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-SSL-Client-Cert", acct.CertHeader())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	var tok struct {
		TokenType string `json:"token_type"`
		ExpiresIn int    `json:"expires_in"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tok); err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.StatusCode, tok.TokenType, tok.ExpiresIn)
	// Output:
	// 201 Bearer 1800
}

// Tests that share one server, started once for the package, each in a
// workspace of its own: its accounts, clock and data, deleted when the test
// ends.
func ExampleSandbox_Workspace() {
	var sb *sandboxtest.Sandbox // started in TestMain with sandboxtest.Start

	testRefund := func(t *testing.T) {
		t.Parallel()
		ws := sb.Workspace(t)
		client := ws.Client(ws.Accounts()[0]) // a token of this workspace
		ws.Advance(24 * time.Hour)            // this workspace's clock only
		_ = client
	}
	_ = testRefund // a test function: func TestRefund(t *testing.T)
}
