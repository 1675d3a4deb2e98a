// Package core is the application core of pixsandbox: each operation of
// the PIX API and of the control plane is one method of Simulator that reads
// the simulation clock once, applies the spec's rules, and writes state,
// ledger movements and future jobs in one store transaction before it
// returns. The files are named for the resource whose operations they hold,
// as in simulator/httpapi:
//
//	auth.go       IssueToken, Authenticate, SandboxToken (simulator/auth does the work)
//	account.go    CreateAccount, AddCertificate, Account, Accounts, CheckInvariants
//	balance.go    AccountBalance
//	settings.go   AccountSettings, SetAccountSettings
//	cob.go        CreateCob, Cob, RemoveCob, paying a cob, its expiry job
//	cashin.go     CreateCashIn, CashInCharge, paying a charge, its expiry job
//	payment.go    Pay, PixIn (the control plane's payers), receiving a PIX, the scenario payer
//	cashout.go    CreateCashOut and the hold of a PIX out
//	transfer.go   CreateTransfer (DICT, idempotency key)
//	splits.go     the splits of a paid charge and the split schedule
//	settle.go     the settlement of a PIX out (job, SettleTransaction, FailTransaction)
//	refund.go     CreateRefund, RefundOf (simulator/refund does the work)
//	med.go        OpenMED and the MED steps, ListMEDs, GetMED (simulator/med does the work)
//	listing.go    ListTransactions, Transaction
//	webhook.go    webhook targets, deliveries, resend, registration switch, the outcome webhooks
//	dict.go       DictKey, RegisterDictKey, Banks
//	clock.go      ClockNow, AdvanceClock, SetClock, the persisted clock
//	jobs.go       the job handlers, ScheduleMarker, Job, PendingJobs, JobBacklog
//	reset.go      Reset
//	rules.go      the rules the self-check bends (rules_faults.go, faults build tag)
//	simulator.go  Config, New, Start, Stop, Clock
//
// Procedures that stand on their own are packages under simulator/, below
// the core: auth (tokens, certificate headers, the test CA), webhook/outbox
// (events and deliveries stored with the state change, attempts, resend),
// refund, med, limits, seed (what a new
// data dir starts with), invariants (the ledger and history checker),
// ratelimit and refs (journal causes and counters).
//
// The core speaks neither HTTP nor Badger: httpapi and sandboxapi call it
// through the interfaces they declare (Services, Sandbox), and it keeps its
// state through storage.Store. Code outside simulator/ reaches it through the
// package simulator, a facade that names the few things an embedder needs
// (Config, New, NewShared, Simulator).
package core
