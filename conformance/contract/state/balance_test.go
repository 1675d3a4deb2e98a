package state_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
	"github.com/pixsandbox/pixsandbox/conformance/contract/state"
)

// observeQuiet feeds the exchanges to a new model with quiet accounts.
func observeQuiet(exs ...*contract.Exchange) []contract.Finding {
	m := state.NewModel(state.Bounds{})
	m.QuietAccounts(true)
	var out []contract.Finding
	for _, ex := range exs {
		out = append(out, m.Observe(ex)...)
	}
	return out
}

// alone marks an exchange no other overlapped; every helper below is.
func alone(ex *contract.Exchange) { ex.Alone = true }

func beside(ex *contract.Exchange) *contract.Exchange {
	ex.Alone = false
	return ex
}

// bal is GET /accounts/balances answering available and blocked.
func bal(seq uint64, available, blocked string) *contract.Exchange {
	body := mut(mut(balanceOK, "data[0].balanceAmount.available", available), "data[0].balanceAmount.blocked", blocked)
	return exch("GET /accounts/balances", "", 200, body, at(seq, time.Duration(seq)*time.Second), alone)
}

// stdBal is GET /balance answering net and blocked (gross their sum).
func stdBal(seq uint64, net, blocked string) *contract.Exchange {
	var n, b float64
	fmt.Sscan(net, &n)
	fmt.Sscan(blocked, &b)
	body := mut(mut(mut(stdBalOK, "netBalance", net), "blockedBalance", blocked), "grossBalance", fmt.Sprintf("%.2f", n+b))
	return exch("GET /balance", "", 200, body, at(seq, time.Duration(seq)*time.Second), alone)
}

// cashOutOf is an accepted cash-out of value.
func cashOutOf(seq uint64, value string, opts ...func(*contract.Exchange)) *contract.Exchange {
	req := mut(mut(cashOutReq, "value", value), "externalId", fmt.Sprintf(`"e%d"`, seq))
	resp := mut(mut(cashOutOK, "transactionId", fmt.Sprintf(`"6f1c1f3e-1b7a-4c1e-9d2a-%012d"`, seq)), "externalId", fmt.Sprintf(`"e%d"`, seq))
	return exch("POST /api/pix/cash-out", req, 201, resp, append([]func(*contract.Exchange){at(seq, time.Duration(seq)*time.Second), alone}, opts...)...)
}

// transferOf is an accepted DICT transfer of amount, transfer id.
func transferOf(seq uint64, amount string, id int) *contract.Exchange {
	return exch("POST /dict/pix", mut(transferReq, "payment.amount", amount), 200, mut(mut(transferOK, "payment.amount", amount), "id", fmt.Sprint(id)),
		header("X-Idempotency-Key", fmt.Sprintf("6f1c1f3e-1b7a-4c1e-9d2a-%012d", id)), at(seq, time.Duration(seq)*time.Second), alone)
}

// refundOf is an accepted refund r<seq> of valor.
func refundOf(seq uint64, valor string) *contract.Exchange {
	id := fmt.Sprintf("r%d", seq)
	body := mut(mut(refundOK, "id", `"`+id+`"`), "valor", `"`+valor+`"`)
	return exch("PUT /pix/"+e2e+"/devolucao/"+id, `{"valor":"`+valor+`"}`, 201, body, at(seq, time.Duration(seq)*time.Second), alone)
}

// control is a control-plane write answered 200.
func control(seq uint64, path string) *contract.Exchange {
	return exch("POST "+path, `{}`, 200, `{}`, at(seq, time.Duration(seq)*time.Second), header("Authorization", ""), alone)
}

func TestModel_BalanceRule(t *testing.T) {
	const bacenBlocked, bacenAvail = "data[0].balanceAmount.blocked", "data[0].balanceAmount.available"
	tests := []struct {
		name  string
		exs   []*contract.Exchange
		rule  string // "" = no finding
		on    uint64
		field string
	}{
		{"a cash-out's fee left blocked at settlement", []*contract.Exchange{bal(1, "100.00", "0"), cashOutOf(2, "10.00"), bal(3, "88.50", "11.50"),
			control(4, "/_sandbox/clock/advance"), bal(5, "88.50", "1.50")}, "state.balance-mismatch", 5, bacenBlocked},
		{"a cash-out settled with its fee", []*contract.Exchange{bal(1, "100.00", "0"), cashOutOf(2, "10.00"), bal(3, "88.50", "11.50"),
			control(4, "/_sandbox/clock/advance"), bal(5, "88.50", "0")}, "", 0, ""},
		{"a cash-out failed, its hold given back", []*contract.Exchange{bal(1, "100.00", "0"), cashOutOf(2, "10.00"), bal(3, "88.50", "11.50"), bal(4, "100.00", "0")}, "", 0, ""},
		{"a cash-out's ending taking from available", []*contract.Exchange{bal(1, "100.00", "0"), cashOutOf(2, "10.00"), bal(3, "88.50", "11.50"), bal(4, "80.00", "0")}, "state.balance-mismatch", 4, bacenAvail},
		{"a cash-out still pending", []*contract.Exchange{bal(1, "100.00", "0"), cashOutOf(2, "10.00"), bal(3, "88.50", "11.50"), bal(4, "88.50", "11.50")}, "", 0, ""},
		{"a cash-out settled before the next read", []*contract.Exchange{bal(1, "100.00", "0"), cashOutOf(2, "10.00"), bal(3, "88.50", "0")}, "", 0, ""},
		{"a cash-out holding less than its value", []*contract.Exchange{bal(1, "100.00", "0"), cashOutOf(2, "10.00"), bal(3, "91.00", "9.00")}, "state.balance-mismatch", 3, bacenBlocked},
		{"blocked moved by nothing", []*contract.Exchange{bal(1, "100.00", "0"), bal(2, "100.00", "5.00")}, "state.balance-mismatch", 2, bacenBlocked},
		{"available taken by nothing", []*contract.Exchange{bal(1, "100.00", "0"), bal(2, "90.00", "0")}, "state.balance-mismatch", 2, bacenAvail},
		{"a PIX received adds to available", []*contract.Exchange{bal(1, "100.00", "0"), bal(2, "150.00", "0")}, "", 0, ""},
		{"a transfer holds its amount", []*contract.Exchange{bal(1, "100.00", "0"), transferOf(2, "12.34", 7), bal(3, "87.66", "12.34")}, "", 0, ""},
		{"a transfer holding more than its amount", []*contract.Exchange{bal(1, "100.00", "0"), transferOf(2, "12.34", 7), bal(3, "87.00", "13.00")}, "state.balance-mismatch", 3, bacenBlocked},
		{"a transfer taking more than it holds", []*contract.Exchange{bal(1, "100.00", "0"), transferOf(2, "12.34", 7), bal(3, "85.00", "12.34")}, "state.balance-mismatch", 3, bacenAvail},
		{"a replayed transfer is one", []*contract.Exchange{bal(1, "100.00", "0"), transferOf(2, "12.34", 7), transferOf(3, "12.34", 7), bal(4, "87.66", "12.34")}, "", 0, ""},
		{"a replay answered with a second hold", []*contract.Exchange{bal(1, "100.00", "0"), transferOf(2, "12.34", 7), transferOf(3, "12.34", 7), bal(4, "75.32", "24.68")}, "state.balance-mismatch", 4, bacenBlocked},
		{"a refund taken at once", []*contract.Exchange{bal(1, "100.00", "0"), refundOf(2, "10.00"), bal(3, "90.00", "0")}, "", 0, ""},
		{"a refund held, then given back", []*contract.Exchange{bal(1, "100.00", "0"), refundOf(2, "10.00"), bal(3, "90.00", "10.00"), bal(4, "100.00", "0")}, "", 0, ""},
		{"a refund held twice its value", []*contract.Exchange{bal(1, "100.00", "0"), refundOf(2, "10.00"), bal(3, "80.00", "20.00")}, "state.balance-mismatch", 3, bacenBlocked},
		{"a refused cash-out moves nothing", []*contract.Exchange{bal(1, "100.00", "0"),
			exch("POST /api/pix/cash-out", cashOutReq, 400, extErr, at(2, 2*time.Second), alone), bal(3, "89.50", "10.50")}, "state.balance-mismatch", 3, bacenBlocked},
		{"the standard read, blockedBalance", []*contract.Exchange{bal(1, "100.00", "0"), stdBal(2, "100.00", "5.00")}, "state.balance-mismatch", 2, "blockedBalance"},
		{"the standard read, netBalance", []*contract.Exchange{stdBal(1, "100.00", "0"), stdBal(2, "90.00", "0")}, "state.balance-mismatch", 2, "netBalance"},
		{"the two routes agree", []*contract.Exchange{bal(1, "100.00", "0"), transferOf(2, "12.34", 7), stdBal(3, "87.66", "12.34"), bal(4, "87.66", "0")}, "", 0, ""},
		{"blocked held before the first read may be released", []*contract.Exchange{bal(1, "100.00", "20.00"), bal(2, "100.00", "5.00")}, "", 0, ""},
		{"but not grow", []*contract.Exchange{bal(1, "100.00", "20.00"), bal(2, "100.00", "5.00"), bal(3, "100.00", "25.00")}, "state.balance-mismatch", 3, bacenBlocked},
		{"two cash-outs of fees not known are not judged", []*contract.Exchange{bal(1, "100.00", "0"), cashOutOf(2, "10.00"), cashOutOf(3, "20.00"), bal(4, "60.00", "40.00")}, "", 0, ""},
		{"a clock move leaves the rule on", []*contract.Exchange{bal(1, "100.00", "0"), control(2, "/_sandbox/workspaces/w1/clock/advance"), bal(3, "100.00", "5.00")}, "state.balance-mismatch", 3, bacenBlocked},
		{"a read beside another exchange is not judged", []*contract.Exchange{bal(1, "100.00", "0"), beside(bal(2, "100.00", "5.00"))}, "", 0, ""},
		{"nor taken as the next base", []*contract.Exchange{bal(1, "100.00", "0"), beside(bal(2, "100.00", "5.00")), bal(3, "100.00", "0")}, "", 0, ""},
		{"an X-Sandbox-Scenario ends the account's judging", []*contract.Exchange{bal(1, "100.00", "0"),
			cashOutOf(2, "10.00", header("X-Sandbox-Scenario", "SETTLEMENT_PENDING")), bal(3, "100.00", "5.00")}, "", 0, ""},
		{"a charge with splits ends the account's judging", []*contract.Exchange{bal(1, "100.00", "0"),
			exch("POST /api/pix/cash-in", mut(cashInReq, "splits", `[{"pixKey":"k","pixKeyType":"EMAIL","name":"n","document":"52998224725","type":"FIXED","value":1}]`), 201, cashInOK, at(2, 2*time.Second), alone),
			bal(3, "100.00", "5.00")}, "", 0, ""},
		{"a MED through the control plane ends the rule", []*contract.Exchange{bal(1, "100.00", "0"), control(2, "/_sandbox/med"), bal(3, "100.00", "5.00")}, "state.balance-unjudged", 2, "quiet accounts"},
		{"a MED of the account ends its judging", []*contract.Exchange{bal(1, "100.00", "0"),
			exch("POST /_sandbox/med", `{"accountId":1,"endToEndId":"`+e2e+`"}`, 201, `{"id":3,"accountId":1}`, at(2, 2*time.Second), header("Authorization", ""), alone),
			bal(3, "100.00", "5.00")}, "", 0, ""},
		{"a MED of another account leaves it judged", []*contract.Exchange{bal(1, "100.00", "0"),
			exch("POST /_sandbox/workspaces/w1/med/3/receive", `{}`, 200, `{"id":3,"accountId":1}`, at(2, 2*time.Second), header("Authorization", ""), alone),
			bal(3, "100.00", "5.00")}, "state.balance-mismatch", 3, bacenBlocked},
		{"a reset starts the accounts again", []*contract.Exchange{bal(1, "100.00", "0"), control(2, "/_sandbox/reset"), bal(3, "1000.00", "5.00"), bal(4, "1000.00", "5.00")}, "", 0, ""},
		{"another account's operations", []*contract.Exchange{bal(1, "100.00", "0"), func() *contract.Exchange {
			ex := transferOf(2, "12.34", 7)
			tokenOf("2", epoch)(ex)
			return ex
		}(), bal(3, "100.00", "0")}, "", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := observeQuiet(tt.exs...)
			if tt.rule == "" {
				if len(fs) > 0 {
					t.Fatalf("findings:%s", describe(fs))
				}
				return
			}
			if len(fs) != 1 || fs[0].Rule != tt.rule || fs[0].Exchange != tt.on || fs[0].Field != tt.field {
				t.Fatalf("want one %s finding on exchange %d, field %s; got:%s", tt.rule, tt.on, tt.field, describe(fs))
			}
			if f := fs[0]; !f.Notice && (f.Expected == "" || f.Seen == "" || len(f.Related) == 0) {
				t.Errorf("finding without its evidence: %+v", f)
			}
		})
	}
}

// TestModel_BalanceRuleOff: without quiet accounts the rule judges nothing.
func TestModel_BalanceRuleOff(t *testing.T) {
	fs := observeAll(state.Bounds{}, bal(1, "100.00", "0"), bal(2, "90.00", "7.00"), control(3, "/_sandbox/med"))
	if len(fs) > 0 {
		t.Fatalf("findings:%s", describe(fs))
	}
}

// TestModel_BalanceMessage: the finding names the read it rests on, the
// operations since and what they may leave.
func TestModel_BalanceMessage(t *testing.T) {
	fs := observeQuiet(bal(1, "100.00", "0"), cashOutOf(2, "10.00"), bal(3, "88.50", "11.50"), bal(4, "88.50", "1.50"))
	if len(fs) != 1 {
		t.Fatalf("findings:%s", describe(fs))
	}
	f := fs[0]
	for _, want := range []string{"exchange 3", "cash-out 6f1c1f3e-1b7a-4c1e-9d2a-000000000002 of 11.50", "1.50"} {
		if !strings.Contains(f.Message, want) {
			t.Errorf("message %q lacks %q", f.Message, want)
		}
	}
	if f.Expected != "one of 11.50, 0.00" || f.Seen != "1.50" || fmt.Sprint(f.Related) != "[3 2]" {
		t.Errorf("expected %q, seen %q, related %v", f.Expected, f.Seen, f.Related)
	}
}

// TestModel_BalanceBounded: past maxBalanceOps pending operations the
// account starts again from its next read, and the ledgers are bounded by
// Bounds.Accounts.
func TestModel_BalanceBounded(t *testing.T) {
	m := state.NewModel(state.Bounds{Accounts: 2})
	m.QuietAccounts(true)
	exs := []*contract.Exchange{bal(1, "1000.00", "0")}
	for i := range 9 {
		exs = append(exs, transferOf(uint64(2+i), "1.00", 100+i))
	}
	exs = append(exs, bal(11, "991.00", "9.00"), bal(12, "991.00", "3.00"))
	for _, ex := range exs {
		if fs := m.Observe(ex); len(fs) > 0 {
			t.Fatalf("exchange %d:%s", ex.Seq, describe(fs))
		}
	}
	for i := range 5 {
		ex := bal(uint64(20+i), "1.00", "0")
		tokenOf(fmt.Sprint(i+10), epoch)(ex)
		m.Observe(ex)
	}
	if n := m.Size()["balances"]; n != 2 {
		t.Fatalf("%d balances kept, want 2", n)
	}
}
