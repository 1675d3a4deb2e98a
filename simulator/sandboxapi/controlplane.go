// Package sandboxapi serves the /_sandbox control plane: what the real world
// would do to the simulated PIX service (the simulation clock, accounts and
// their credentials, payers outside the sandbox, the DICT directory, MEDs
// forced step by step, webhook targets and deliveries, listeners, network
// fault rules, the request journal, the receiver check) and the web console. It has no counterpart in
// the contract.
//
// It is a second route table mounted on httpapi's server (Config.ControlPlane):
// its routes run through the same wrapper as the contract's (request id,
// metrics, request journal, the admin token on /_sandbox, the minimal error
// shape), and it uses httpapi's exported decoding and static-file pieces. It
// calls the application core through the Sandbox interface, which the core
// implements.
//
// One file per resource: routes.go is the route table on one screen; clock.go,
// account.go, settings.go, reset.go, job.go, scenario.go, invariants.go,
// transaction.go, dict.go, bank.go, payment.go, qrcode.go, event.go, med.go,
// webhook.go, listener.go, rotation.go (the secret rotation of both),
// receivercheck.go, fault.go (the network fault rules of simulator/netfault),
// journal.go (the request journal's viewer),
// console.go and docs.go serve them; params.go reads path, query and body
// parameters.
package sandboxapi

import (
	"context"
	"log/slog"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/events"
	"github.com/pixsandbox/pixsandbox/simulator/httpapi"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/receivercheck"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

// Sandbox is what the /_sandbox control plane needs from the application core
// (*simulator.Simulator).
//
// Each method that returns an error ends its comment with an Errors line in
// the form of httpapi.Services: each pix Kind followed by the codes it comes
// with, "KindInternal only" when the method returns no *pix.Error. The
// control plane answers in the minimal shape, which carries no code: the kind
// decides the status and the message says why. A test
// (simulator/core/errdoc_test.go) keeps the lines in step with the core.
type Sandbox interface {
	// Core is the public operations the event recipes drive (event.go); its
	// methods are the core's own, each with its Errors line where the
	// interfaces above list them.
	events.Core
	// ClockNow reports the simulation clock.
	ClockNow() pix.ClockReport
	// AdvanceClock moves the clock forward by d, running the jobs due on the
	// way.
	//
	// Errors: KindInvalid: CodeInvalidRequest (negative, or past the latest
	// simulation time).
	AdvanceClock(ctx context.Context, d time.Duration, wait pix.ClockWait) (pix.ClockReport, error)
	// SetClock moves the clock forward to t, as AdvanceClock does.
	//
	// Errors: KindInvalid: CodeInvalidRequest (backwards, or past the latest
	// simulation time).
	SetClock(ctx context.Context, t time.Time, wait pix.ClockWait) (pix.ClockReport, error)
	// CreateAccount creates an account with its credentials and certificate.
	//
	// Errors: KindInvalid: CodeInvalidRequest.
	CreateAccount(ctx context.Context, in pix.NewAccount) (pix.CreatedAccount, error)
	// AddCertificate issues and registers a certificate for an account.
	//
	// Errors: KindInvalid: CodeInvalidRequest; KindNotFound: CodeNotFound.
	AddCertificate(ctx context.Context, id pix.AccountID, in pix.NewCertificate) (pix.IssuedCertificate, error)
	// Account returns an account and its balance.
	//
	// Errors: KindNotFound: CodeNotFound.
	Account(ctx context.Context, id pix.AccountID) (pix.Account, pix.BalanceReport, error)
	// Accounts lists every account with its balance and client ids.
	//
	// Errors: KindInternal only.
	Accounts(ctx context.Context) ([]pix.AccountOverview, error)
	// SandboxToken issues an access token for an account without credentials.
	//
	// Errors: KindNotFound: CodeNotFound.
	SandboxToken(ctx context.Context, id pix.AccountID) (pix.Token, error)
	// Reset drops every record and seeds the fixtures again.
	//
	// Errors: KindInternal only.
	Reset(ctx context.Context) error
	// ScheduleMarker schedules a marker job delay from now.
	//
	// Errors: KindInvalid: CodeInvalidRequest (a negative delay).
	ScheduleMarker(ctx context.Context, delay time.Duration, note string) (pix.JobReport, error)
	// Job reports a pending or finished job.
	//
	// Errors: KindNotFound: CodeNotFound.
	Job(ctx context.Context, id string) (pix.JobReport, error)
	// PendingJobs lists pending jobs in due order.
	//
	// Errors: KindInternal only.
	PendingJobs(ctx context.Context, limit int) ([]pix.JobReport, error)
	// JobBacklog reports the jobs due and not yet run.
	//
	// Errors: KindInternal only.
	JobBacklog(ctx context.Context) (pix.JobBacklog, error)
	// CheckInvariants checks the ledger and the history; a broken invariant is
	// in the report, not an error.
	//
	// Errors: KindInternal only.
	CheckInvariants(ctx context.Context) (pix.InvariantReport, error)

	// Transaction returns a transaction by number or UUID.
	//
	// Errors: KindNotFound: CodeNotFound.
	Transaction(ctx context.Context, ref string) (pix.Transaction, error)
	// SettleTransaction settles a pending PIX out now.
	//
	// Errors: KindNotFound: CodeNotFound; KindConflict:
	// CodeTransactionNotSettleable.
	SettleTransaction(ctx context.Context, ref string) (pix.Transaction, error)
	// FailTransaction fails a pending PIX out now with code.
	//
	// Errors: KindInvalid: CodeInvalidRequest (code is not a settlement
	// failure); KindNotFound: CodeNotFound; KindConflict:
	// CodeTransactionNotSettleable.
	FailTransaction(ctx context.Context, ref string, code pix.Code) (pix.Transaction, error)
	// DictKey looks a key up in the DICT directory.
	//
	// Errors: KindNotFound: CodeNotFound.
	DictKey(ctx context.Context, key string) (pix.DictEntry, error)
	// RegisterDictKey adds or replaces a key held outside the sandbox.
	//
	// Errors: KindInvalid: CodeInvalidRequest; KindConflict: CodeInvalidRequest
	// (a key of a sandbox account).
	RegisterDictKey(ctx context.Context, e pix.DictEntry) (pix.DictEntry, error)
	// Banks lists the participants the sandbox knows.
	Banks() []pix.Bank
	// AccountSettings returns an account's limits and fees.
	//
	// Errors: KindNotFound: CodeNotFound.
	AccountSettings(ctx context.Context, id pix.AccountID) (pix.Settings, error)
	// SetAccountSettings replaces an account's limits and fees.
	//
	// Errors: KindInvalid: CodeInvalidRequest; KindNotFound: CodeNotFound.
	SetAccountSettings(ctx context.Context, id pix.AccountID, st pix.Settings) (pix.Settings, error)
	// RegisterWebhookTarget registers or updates a target.
	//
	// Errors: KindInvalid: CodeInvalidRequest (the target, or a fourth active
	// URL for its event type); KindNotFound: CodeNotFound (no such account).
	RegisterWebhookTarget(ctx context.Context, t webhook.Target, requireHTTPS bool) (webhook.Target, bool, error)
	// WebhookTargets lists an account's webhook targets.
	//
	// Errors: KindNotFound: CodeNotFound (no such account).
	WebhookTargets(ctx context.Context, id pix.AccountID) ([]webhook.Target, error)
	// DeleteWebhookTarget removes a target.
	//
	// Errors: KindNotFound: CodeNotFound.
	DeleteWebhookTarget(ctx context.Context, id int64) error
	// RotateWebhookSecrets gives targets a new secret ("" for a fresh one),
	// each one's old secret signing too for overlap (wall time; Gap G-67).
	//
	// Errors: KindInvalid: CodeInvalidRequest (secret not a Standard Webhooks
	// secret or the current one; overlap out of range); KindNotFound:
	// CodeNotFound (no target of ids).
	RotateWebhookSecrets(ctx context.Context, ids []int64, secret string, overlap time.Duration) ([]webhook.Target, error)
	// WebhookDeliveries lists deliveries with their attempts, newest first.
	//
	// Errors: KindInternal only.
	WebhookDeliveries(ctx context.Context, id pix.AccountID, txID int64, limit int) ([]webhook.Delivery, error)
	// WebhookDeliveriesAfterAttempt lists the deliveries with an attempt newer
	// than after.
	//
	// Errors: KindInternal only.
	WebhookDeliveriesAfterAttempt(ctx context.Context, id pix.AccountID, after int64, limit int) ([]webhook.Delivery, error)
	// Pay pays a charge as a payer outside the sandbox would.
	//
	// Errors: KindInvalid: CodeInvalidRequest; KindNotFound: CodeNotFound (no
	// such charge); KindConflict: CodeInvalidRequest (the charge takes no
	// payment, or a txid of several accounts); KindUnprocessable:
	// CodeInvalidRequest (another amount than the charge's).
	Pay(ctx context.Context, p pix.Payment) (pix.PaymentResult, error)
	// PixIn credits the sandbox account holding a key with a PIX received.
	//
	// Errors: KindInvalid: CodeInvalidRequest; KindNotFound: CodeDictKeyNotFound
	// (no sandbox account holds the key).
	PixIn(ctx context.Context, p pix.Payment) (pix.PaymentResult, error)
	// CashInCharge returns a cash-in charge by its transaction.
	//
	// Errors: KindNotFound: CodeNotFound.
	CashInCharge(ctx context.Context, id int64) (pix.Charge, error)
	// OpenMED opens a MED against a PIX an account received.
	//
	// Errors: KindInvalid: CodeInvalidRequest; KindNotFound: CodeNotFound (no
	// such account).
	OpenMED(ctx context.Context, in pix.MEDOpen) (pix.MED, error)
	// GetMED returns a MED.
	//
	// Errors: KindNotFound: CodeNotFound.
	GetMED(ctx context.Context, id int64) (pix.MED, error)
	// ReceiveMED acknowledges a MED and blocks the contested amount.
	//
	// Errors: KindNotFound: CodeNotFound; KindConflict: CodeInvalidRequest (its
	// status forbids the step).
	ReceiveMED(ctx context.Context, id int64) (pix.MED, error)
	// AnalyzeMED closes the analysis of a MED with result.
	//
	// Errors: KindInvalid: CodeInvalidRequest (result); KindNotFound:
	// CodeNotFound; KindConflict: CodeInvalidRequest (its status forbids the
	// step).
	AnalyzeMED(ctx context.Context, id int64, result, details string) (pix.MED, error)
	// CancelMED withdraws a MED not yet analysed.
	//
	// Errors: KindNotFound: CodeNotFound; KindConflict: CodeInvalidRequest (its
	// status forbids the step).
	CancelMED(ctx context.Context, id int64) (pix.MED, error)
	// RefundMED refunds the payer of an approved MED now.
	//
	// Errors: KindNotFound: CodeNotFound; KindConflict: CodeInvalidRequest (not
	// approved, already refunded, or no received PIX to refund).
	RefundMED(ctx context.Context, id int64) (pix.MED, error)
	// WebhookRegistration reports whether POST/GET /api/webhooks act;
	// SetWebhookRegistration switches them.
	WebhookRegistration() bool
	SetWebhookRegistration(enabled bool)
	// CheckReceiver sends a partner's webhook receiver the spec's payloads and
	// the hard cases and reports each; a receiver that fails is in the report.
	//
	// Errors: KindInvalid: CodeInvalidRequest (naming the bad field).
	CheckReceiver(ctx context.Context, cfg receivercheck.Config) (receivercheck.Report, error)
}

// Workspaces is what the control plane needs of a server of many
// workspaces (package workspace's Manager, through cmd/pixsandbox): each
// one's Sandbox, and their creation, listing and deletion (workspace.go).
type Workspaces interface {
	// Sandbox returns workspace id's Sandbox ("" for the default).
	Sandbox(id string) (Sandbox, bool)
	CreateWorkspace(ctx context.Context, in pix.NewWorkspace) (pix.CreatedWorkspace, error)
	Workspace(ctx context.Context, id string) (pix.WorkspaceInfo, error)
	Workspaces(ctx context.Context, page, size int) ([]pix.WorkspaceInfo, int)
	DeleteWorkspace(ctx context.Context, id string) error
	// Snapshot exports a workspace as one JSON document ("" the default);
	// CreateFromSnapshot creates a workspace from such a document.
	Snapshot(ctx context.Context, id string) (any, error)
	CreateFromSnapshot(ctx context.Context, in pix.NewWorkspace, snapshot []byte) (pix.CreatedWorkspace, error)
}

// ControlPlane is the /_sandbox control plane over a Sandbox: an
// httpapi.ControlPlane, mounted by setting it as httpapi.Config.ControlPlane.
type ControlPlane struct {
	sandbox Sandbox    // the default workspace's
	spaces  Workspaces // nil: one world, no /_sandbox/workspaces routes
	// SnapshotLimit is the largest creation body (a snapshot) read; 0 takes
	// DefaultSnapshotLimit. Set it before the control plane is mounted.
	SnapshotLimit int64
	srv           *httpapi.Server // the server it is mounted on (Mount)
	log           *slog.Logger
	// listeners are the leases of pixsandbox listen (listener.go).
	listeners *listenerSet
}

// New returns the control plane of sb, to mount on one httpapi.Server.
func New(sb Sandbox) *ControlPlane {
	return &ControlPlane{sandbox: sb, listeners: &listenerSet{byID: map[string]*listener{}}}
}

// WithWorkspaces returns the control plane of a server of many workspaces:
// sb is the default's, and every route also answers under
// /_sandbox/workspaces/{workspace}/ for the others.
func WithWorkspaces(sb Sandbox, ws Workspaces) *ControlPlane {
	cp := New(sb)
	cp.spaces = ws
	return cp
}

// sb returns the Sandbox of the workspace ctx acts on; the server's wrapper
// has checked that it exists (httpapi scope).
func (cp *ControlPlane) sb(ctx context.Context) Sandbox {
	if id := pix.WorkspaceOf(ctx); id != "" && cp.spaces != nil {
		if s, ok := cp.spaces.Sandbox(id); ok {
			return s
		}
	}
	return cp.sandbox
}

// Mount implements httpapi.ControlPlane: the route table and the pages, served
// by s.
func (cp *ControlPlane) Mount(s *httpapi.Server) ([]*httpapi.Route, []httpapi.Page) {
	cp.srv, cp.log = s, s.Logger()
	return cp.routes(), cp.pages()
}
