package contract_test

import (
	"github.com/pixsandbox/pixsandbox/conformance/contract"
	"github.com/pixsandbox/pixsandbox/conformance/contract/internal/contracttest"
)

// The exchanges, deliveries and bodies the tests build, by the names they
// use, from the package's test kit (internal/contracttest).
var (
	exch         = contracttest.Exch
	header       = contracttest.Header
	hasFinding   = contracttest.HasFinding
	describe     = contracttest.Describe
	brCode       = contracttest.BRCode
	itoa         = contracttest.Itoa
	mut          = contracttest.Mut
	idem         = contracttest.Idem
	tokenReq     = contracttest.TokenReq
	tokenOK      = contracttest.TokenOK
	balanceOK    = contracttest.BalanceOK
	stdBalOK     = contracttest.StdBalOK
	transferReq  = contracttest.TransferReq
	transferOK   = contracttest.TransferOK
	cashOutReq   = contracttest.CashOutReq
	cashOutOK    = contracttest.CashOutOK
	cashInReq    = contracttest.CashInReq
	cashInOK     = contracttest.CashInOK
	cobReq       = contracttest.CobReq
	cobOK        = contracttest.CobOK
	cobPath      = contracttest.CobPath
	e2e          = contracttest.E2E
	refundPath   = contracttest.RefundPath
	refundReq    = contracttest.RefundReq
	refundOK     = contracttest.RefundOK
	refundInOK   = contracttest.RefundInOK
	listingOK    = contracttest.ListingOK
	medOK        = contracttest.MedOK
	minimalErr   = contracttest.MinimalErr
	extErr       = contracttest.ExtErr
	cashOutHook  = contracttest.CashOutHook
	cashInHook   = contracttest.CashInHook
	transferHook = contracttest.TransferHook
	receiveHook  = contracttest.ReceiveHook
	refundHook   = contracttest.RefundHook
	medHook      = contracttest.MedHook
	delivery     = contracttest.Delivery
)

func respHeader(name, value string) func(*contract.Exchange) {
	return func(ex *contract.Exchange) { ex.RespHeader.Set(name, value) }
}

func ofKind(fs []contract.Finding, k contract.Kind) []contract.Finding {
	var out []contract.Finding
	for _, f := range fs {
		if f.Kind == k {
			out = append(out, f)
		}
	}
	return out
}
