// Package sandboxapi serves the /_sandbox control plane: what the real world
// would do to the simulated PIX service (the simulation clock, accounts and
// their credentials, payers outside the sandbox, the DICT directory, MEDs
// forced step by step, webhook targets and deliveries, listeners, the request
// journal, the receiver check) and the web console. It has no counterpart in
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
// transaction.go, dict.go, bank.go, payment.go, qrcode.go, med.go, webhook.go,
// listener.go, receivercheck.go, journal.go (the request journal's viewer),
// console.go and docs.go serve them; params.go reads path, query and body
// parameters.
package sandboxapi

import (
	"context"
	"log/slog"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/receivercheck"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

// Sandbox is what the /_sandbox control plane needs from the application core.
type Sandbox interface {
	ClockNow() pix.ClockReport
	AdvanceClock(ctx context.Context, d time.Duration, wait pix.ClockWait) (pix.ClockReport, error)
	SetClock(ctx context.Context, t time.Time, wait pix.ClockWait) (pix.ClockReport, error)
	CreateAccount(ctx context.Context, in pix.NewAccount) (pix.CreatedAccount, error)
	AddCertificate(ctx context.Context, id pix.AccountID, in pix.NewCertificate) (pix.IssuedCertificate, error)
	Account(ctx context.Context, id pix.AccountID) (pix.Account, pix.BalanceReport, error)
	Accounts(ctx context.Context) ([]pix.AccountOverview, error)
	SandboxToken(ctx context.Context, id pix.AccountID) (pix.Token, error)
	Reset(ctx context.Context) error
	ScheduleMarker(ctx context.Context, delay time.Duration, note string) (pix.JobReport, error)
	Job(ctx context.Context, id string) (pix.JobReport, error)
	PendingJobs(ctx context.Context, limit int) ([]pix.JobReport, error)
	JobBacklog(ctx context.Context) (pix.JobBacklog, error)
	CheckInvariants(ctx context.Context) (pix.InvariantReport, error)

	Transaction(ctx context.Context, ref string) (pix.Transaction, error)
	SettleTransaction(ctx context.Context, ref string) (pix.Transaction, error)
	FailTransaction(ctx context.Context, ref string, code pix.Code) (pix.Transaction, error)
	DictKey(ctx context.Context, key string) (pix.DictEntry, error)
	RegisterDictKey(ctx context.Context, e pix.DictEntry) (pix.DictEntry, error)
	Banks() []pix.Bank
	AccountSettings(ctx context.Context, id pix.AccountID) (pix.Settings, error)
	SetAccountSettings(ctx context.Context, id pix.AccountID, st pix.Settings) (pix.Settings, error)
	RegisterWebhookTarget(ctx context.Context, t webhook.Target, requireHTTPS bool) (webhook.Target, bool, error)
	WebhookTargets(ctx context.Context, id pix.AccountID) ([]webhook.Target, error)
	DeleteWebhookTarget(ctx context.Context, id int64) error
	WebhookDeliveries(ctx context.Context, id pix.AccountID, txID int64, limit int) ([]webhook.Delivery, error)
	WebhookDeliveriesAfterAttempt(ctx context.Context, id pix.AccountID, after int64, limit int) ([]webhook.Delivery, error)
	Pay(ctx context.Context, p pix.Payment) (pix.PaymentResult, error)
	PixIn(ctx context.Context, p pix.Payment) (pix.PaymentResult, error)
	CashInCharge(ctx context.Context, id int64) (pix.Charge, error)
	OpenMED(ctx context.Context, in pix.MEDOpen) (pix.MED, error)
	GetMED(ctx context.Context, id int64) (pix.MED, error)
	ReceiveMED(ctx context.Context, id int64) (pix.MED, error)
	AnalyzeMED(ctx context.Context, id int64, result, details string) (pix.MED, error)
	CancelMED(ctx context.Context, id int64) (pix.MED, error)
	RefundMED(ctx context.Context, id int64) (pix.MED, error)
	// WebhookRegistration reports whether POST/GET /api/webhooks act;
	// SetWebhookRegistration switches them.
	WebhookRegistration() bool
	SetWebhookRegistration(enabled bool)
	// CheckReceiver sends a partner's webhook receiver the spec's payloads and
	// the hard cases and reports each (KindInvalid naming the bad field).
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
