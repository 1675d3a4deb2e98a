package state_test

import (
	"github.com/pixsandbox/pixsandbox/conformance/contract/internal/contracttest"
)

// The exchanges, deliveries and bodies the tests build, by the names they
// use, from the test kit of conformance/contract (internal/contracttest).
var (
	epoch        = contracttest.Epoch
	exch         = contracttest.Exch
	header       = contracttest.Header
	at           = contracttest.At
	hasFinding   = contracttest.HasFinding
	describe     = contracttest.Describe
	testToken    = contracttest.TestToken
	tokenWith    = contracttest.TokenWith
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
