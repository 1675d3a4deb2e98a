package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/pixsandbox/pixsandbox/cmd/pixsandbox/internal/cmdline"
	"github.com/pixsandbox/pixsandbox/cmd/pixsandbox/internal/process"
	"github.com/pixsandbox/pixsandbox/fixtures"
	"github.com/pixsandbox/pixsandbox/simulator/httpapi"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

// Config is the serve command's configuration: defaults, then PIXSANDBOX_*
// environment variables, then flags.
type Config struct {
	Addr       string
	DataDir    string
	InMemory   bool
	Clock      string // real | virtual
	ClockStart time.Time
	Seed       uint64
	Fixtures   string // directory overriding the embedded fixtures; empty = embedded
	AdminToken string
	LogLevel   string
	LogFormat  string // text | json
	// ControlPlane mounts /_sandbox.
	ControlPlane bool
	// SettlementDelay is how long a PIX out waits before it settles.
	SettlementDelay time.Duration
	// MED deadlines on the simulation clock.
	MEDAcknowledge, MEDAnalysis, MEDRefund time.Duration
	// WebhookRegistration is "disabled" (as the spec says the routes are) or "enabled".
	WebhookRegistration string
	// JournalSize is how many requests GET /_sandbox/requests keeps; 0 none.
	JournalSize int
	// JournalBytes bounds the journal's entries' text together.
	JournalBytes int
	// MemoryLimit is the memory budget (internal/process/memory.go): Go's soft memory limit
	// and the store's memtables and caches are sized from it.
	MemoryLimit process.ByteSize
	// MaxWorkspaces and MaxAccounts bound the workspaces of the server and
	// the accounts a workspace is created with (docs/workspaces.md).
	MaxWorkspaces, MaxAccounts int
	// MaxSnapshotBytes bounds the snapshot a workspace is created from.
	MaxSnapshotBytes int64
	// WorkspaceUnloadAfter is how long a workspace stays in memory without
	// a request.
	WorkspaceUnloadAfter time.Duration
	// MetricsPublic serves /metrics without the admin token.
	MetricsPublic bool
	// WebhookDenyPrivate refuses webhook targets at private, loopback, link-local
	// and metadata addresses, checked on the dialed IP.
	WebhookDenyPrivate bool
	// WebhookTimeout bounds one webhook attempt (wall time).
	WebhookTimeout time.Duration
	// WebhookWorkers, WebhookPerTarget and WebhookPerAccount bound the
	// webhook attempts made at once: in the slots the server's accounts
	// share, for one target URL and for one account (Gap G-62).
	WebhookWorkers, WebhookPerTarget, WebhookPerAccount int
	// Sync is when acknowledged writes reach the disk (internal/process/durability.go).
	Sync process.SyncMode
	// CashInWebhook is the default shape of a cash-in charge's webhook:
	// RECEIVE (V2, the spec's) or CashIn (flat; Gap G-38).
	CashInWebhook string
}

// DefaultConfig returns the defaults of `pixsandbox serve`.
func DefaultConfig() Config {
	return Config{
		Addr:            "127.0.0.1:8080",
		DataDir:         "./.pixsandbox",
		Clock:           "real",
		ClockStart:      fixtures.Epoch,
		Seed:            fixtures.Seed,
		LogLevel:        "info",
		LogFormat:       "text",
		ControlPlane:    true,
		SettlementDelay: 2 * time.Second,
		MEDAcknowledge:  time.Hour,
		MEDAnalysis:     7 * 24 * time.Hour,
		MEDRefund:       24 * time.Hour,

		WebhookRegistration:  "disabled",
		WebhookTimeout:       webhook.DefaultTimeout,
		WebhookWorkers:       webhook.DefaultWorkers,
		WebhookPerTarget:     webhook.DefaultPerTarget,
		WebhookPerAccount:    webhook.DefaultPerOwner,
		Sync:                 process.DefaultSync,
		CashInWebhook:        "RECEIVE",
		JournalSize:          1000,
		JournalBytes:         httpapi.DefaultJournalBytes,
		MemoryLimit:          process.DefaultMemoryLimit,
		MaxWorkspaces:        10000,
		MaxAccounts:          1000,
		MaxSnapshotBytes:     64 << 20,
		WorkspaceUnloadAfter: 2 * time.Minute,
	}
}

// RegisterFlags binds c to fs. Each flag's default comes from its environment
// variable when set, so flags win over the environment.
func (c *Config) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.Addr, "addr", c.Addr, "listen address (host:port; port 0 picks a free one)")
	fs.StringVar(&c.DataDir, "data-dir", c.DataDir, "Badger data directory (state survives restarts)")
	fs.BoolVar(&c.InMemory, "in-memory", c.InMemory, "keep state in memory only (a throwaway run; --data-dir is ignored)")
	fs.StringVar(&c.Clock, "clock", c.Clock, "simulation clock: real (wall time plus an offset) or virtual (moves only when advanced)")
	fs.Func("clock-start", "first instant of a virtual clock on a new data dir (RFC 3339; default "+c.ClockStart.Format(time.RFC3339)+")", func(v string) error {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return fmt.Errorf("must be RFC 3339, e.g. 2026-03-02T12:00:00Z")
		}
		c.ClockStart = t.UTC()
		return nil
	})
	fs.Uint64Var(&c.Seed, "seed", c.Seed, "seed of the fake data generator")
	fs.StringVar(&c.Fixtures, "fixtures", c.Fixtures, "directory with accounts.json, banks.json, dict.json and certs/ replacing the embedded fixtures")
	fs.DurationVar(&c.SettlementDelay, "settlement-delay", c.SettlementDelay, "simulation time from acceptance to settlement of a PIX out")
	fs.DurationVar(&c.MEDAcknowledge, "med-acknowledge", c.MEDAcknowledge, "simulation time from a MED's opening to RECEIVED (the block)")
	fs.DurationVar(&c.MEDAnalysis, "med-analysis", c.MEDAnalysis, "simulation time from a MED's opening to its analysis (APPROVED by default)")
	fs.DurationVar(&c.MEDRefund, "med-refund", c.MEDRefund, "simulation time from a MED's approval to its refund")
	fs.StringVar(&c.WebhookRegistration, "webhook-registration", c.WebhookRegistration, "POST/GET /api/webhooks: disabled (as the spec says they currently are) or enabled (the intended shape)")
	fs.StringVar(&c.CashInWebhook, "cash-in-webhook", c.CashInWebhook, "webhook of a paid or expired cash-in charge: RECEIVE (the V2 envelope) or CashIn (a flat payload like CashOut); accounts may override it in their settings")
	fs.BoolVar(&c.WebhookDenyPrivate, "webhook-deny-private", c.WebhookDenyPrivate, "refuse webhook targets at private, loopback, link-local and metadata addresses (checked on the dialed IP)")
	fs.DurationVar(&c.WebhookTimeout, "webhook-timeout", c.WebhookTimeout, "bound of one webhook attempt, from sending to reading the answer (wall time)")
	fs.IntVar(&c.WebhookWorkers, "webhook-workers", c.WebhookWorkers, "webhook attempts made at once in the slots all workspaces' accounts share, freed slots going to the waiting accounts in turn; an account with none under way always starts one in a slot of its own")
	fs.IntVar(&c.WebhookPerTarget, "webhook-per-target", c.WebhookPerTarget, "webhook attempts made at once to one target URL of a workspace (a receiver that hangs holds only these)")
	fs.IntVar(&c.WebhookPerAccount, "webhook-per-account", c.WebhookPerAccount, "webhook attempts made at once for one account of a workspace, over all its URLs (an account whose receivers all hang holds only these)")
	fs.Var(&c.Sync, "sync", process.SyncUsage)
	fs.IntVar(&c.MaxWorkspaces, "max-workspaces", c.MaxWorkspaces, "how many workspaces the server holds besides the default (POST /_sandbox/workspaces; docs/workspaces.md)")
	fs.IntVar(&c.MaxAccounts, "max-accounts", c.MaxAccounts, "how many accounts a workspace may be created with (or hold in a snapshot it is created from)")
	fs.BoolVar(&c.MetricsPublic, "metrics-public", c.MetricsPublic, "serve /metrics without X-Sandbox-Admin-Token even when --admin-token is set (by default the token guards it)")
	fs.DurationVar(&c.WorkspaceUnloadAfter, "workspace-unload-after", c.WorkspaceUnloadAfter, "how long a workspace's simulator stays in memory without a request (it loads again on the next; a real clock with a pending job stays)")
	fs.Int64Var(&c.MaxSnapshotBytes, "max-snapshot-bytes", c.MaxSnapshotBytes, "the largest snapshot a workspace is created from (POST /_sandbox/workspaces)")
	fs.IntVar(&c.JournalSize, "journal-size", c.JournalSize, "how many requests the request journal keeps in memory (GET /_sandbox/requests, pixsandbox requests); 0 keeps none")
	fs.Var(&c.MemoryLimit, "memory-limit", "the memory budget: the server's own memory stays about under it under any sustained load (Go's soft memory limit is set to it less a quarter, at least 48MiB, for the store's mapped files, unless GOMEMLIMIT is set; under 512MiB the store takes a lean profile, 8MiB memtables and 2MiB uncompressed tables, which lowers the peak by about a third but lets sustained writes stall for up to a second every 25-30s; from 512MiB 16MiB memtables and 12MiB compressed tables); its caches are a 64th and a 128th of it")
	fs.IntVar(&c.JournalBytes, "journal-bytes", c.JournalBytes, "the request journal's byte budget: its entries' headers, bodies, path and query together (each entry keeps at most 8 KiB of headers and 16 KiB of each body); the oldest go first")
	fs.StringVar(&c.AdminToken, "admin-token", c.AdminToken, "token required in X-Sandbox-Admin-Token on /_sandbox (mandatory when --addr is not loopback)")
	fs.StringVar(&c.LogLevel, "log-level", c.LogLevel, "debug, info, warn or error")
	fs.StringVar(&c.LogFormat, "log-format", c.LogFormat, "text or json")
	fs.BoolVar(&c.ControlPlane, "control-plane", c.ControlPlane, "mount the /_sandbox control plane")
}

// Validate rejects contradictory settings with a message that says the fix.
func (c Config) Validate() error {
	var errs []error
	if c.Clock != "real" && c.Clock != "virtual" {
		errs = append(errs, fmt.Errorf("--clock must be real or virtual, not %q", c.Clock))
	}
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		errs = append(errs, fmt.Errorf("--addr %q must be host:port: %v", c.Addr, err))
	} else if c.ControlPlane && !isLoopback(c.Addr) && c.AdminToken == "" {
		errs = append(errs, fmt.Errorf("--addr %s is not a loopback address: the control plane would be open to the network; set --admin-token (or %s), or --control-plane=false", c.Addr, cmdline.EnvName("admin-token")))
	}
	if !c.InMemory && strings.TrimSpace(c.DataDir) == "" {
		errs = append(errs, errors.New("--data-dir is empty; give a directory or use --in-memory"))
	}
	if c.MEDAcknowledge <= 0 || c.MEDAnalysis <= 0 || c.MEDRefund <= 0 {
		errs = append(errs, errors.New("--med-acknowledge, --med-analysis and --med-refund must be positive"))
	}
	if c.WebhookRegistration != "disabled" && c.WebhookRegistration != "enabled" {
		errs = append(errs, fmt.Errorf("--webhook-registration must be disabled or enabled, not %q", c.WebhookRegistration))
	}
	if c.CashInWebhook != "RECEIVE" && c.CashInWebhook != "CashIn" {
		errs = append(errs, fmt.Errorf("--cash-in-webhook must be RECEIVE or CashIn, not %q", c.CashInWebhook))
	}
	if c.WorkspaceUnloadAfter < time.Second {
		errs = append(errs, fmt.Errorf("--workspace-unload-after must be at least 1s"))
	}
	if c.SettlementDelay <= 0 {
		errs = append(errs, fmt.Errorf("--settlement-delay must be positive, not %s", c.SettlementDelay))
	}
	errs = append(errs, c.validateSizes()...)
	errs = append(errs, c.validateDelivery()...)
	errs = append(errs, c.validateLog()...)
	return errors.Join(errs...)
}

// validateSizes checks the bounds of what the server holds: workspaces,
// memory, the journal.
func (c Config) validateSizes() []error {
	var errs []error
	if c.MaxWorkspaces < 0 || c.MaxAccounts < 1 || c.MaxSnapshotBytes < 1<<20 {
		errs = append(errs, fmt.Errorf("--max-workspaces must be 0 or more, --max-accounts 1 or more and --max-snapshot-bytes 1048576 or more"))
	}
	if c.MemoryLimit < process.MinMemoryLimit {
		errs = append(errs, fmt.Errorf("--memory-limit must be at least 128MiB, not %s", c.MemoryLimit.String()))
	}
	if c.JournalBytes < 1<<20 || c.JournalBytes > 4<<30 {
		errs = append(errs, fmt.Errorf("--journal-bytes must be 1 MiB (1048576) to 4 GiB, not %d", c.JournalBytes))
	}
	if c.JournalSize < 0 || c.JournalSize > 1_000_000 {
		errs = append(errs, fmt.Errorf("--journal-size must be 0 (no journal) to 1000000, not %d", c.JournalSize))
	}
	return errs
}

// validateDelivery checks the bounds of webhook delivery.
func (c Config) validateDelivery() []error {
	var errs []error
	if c.WebhookTimeout <= 0 {
		errs = append(errs, fmt.Errorf("--webhook-timeout must be positive, not %s", c.WebhookTimeout))
	}
	if c.WebhookWorkers < 1 || c.WebhookPerTarget < 1 || c.WebhookPerTarget > c.WebhookWorkers {
		errs = append(errs, fmt.Errorf("--webhook-workers (%d) and --webhook-per-target (%d) must be at least 1, and per target at most the workers", c.WebhookWorkers, c.WebhookPerTarget))
	}
	if c.WebhookPerAccount < 1 {
		errs = append(errs, fmt.Errorf("--webhook-per-account must be at least 1, not %d", c.WebhookPerAccount))
	}
	return errs
}

// validateLog checks the log settings.
func (c Config) validateLog() []error {
	var errs []error
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		errs = append(errs, fmt.Errorf("--log-level must be debug, info, warn or error, not %q", c.LogLevel))
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		errs = append(errs, fmt.Errorf("--log-format must be text or json, not %q", c.LogFormat))
	}
	return errs
}

// isLoopback reports whether host:port binds only the loopback interface.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// envLookup reads the process environment.
func envLookup(k string) (string, bool) { return os.LookupEnv(k) }
