package simulator

import (
	"context"

	"github.com/pixsandbox/pixsandbox/fixtures"
	"github.com/pixsandbox/pixsandbox/simulator/core"
)

// Simulator is one isolated world: its accounts, clock, jobs and webhooks.
// Its methods are the operations of the PIX API and of the control plane
// (go doc ./simulator/core Simulator).
type Simulator = core.Simulator

// Config configures a Simulator (go doc ./simulator/core Config).
type Config = core.Config

// Shared is what the simulators of one server read of their fixtures, parsed
// once (the banks, the fixture accounts, the sandbox test CA), and the
// scheduler their webhook attempts share.
type Shared = core.Shared

// DefaultSettlementDelay is the settlement delay when Config leaves it zero.
const DefaultSettlementDelay = core.DefaultSettlementDelay

// New opens a simulator over cfg.Store: it restores (or creates) the clock
// and the token signing key, seeds the fixture accounts into a new data dir
// and registers the job handlers. Call Start to run scheduled jobs.
func New(ctx context.Context, cfg Config) (*Simulator, error) { return core.New(ctx, cfg) }

// NewShared parses what simulators read of set.
func NewShared(set *fixtures.Set) (*Shared, error) { return core.NewShared(set) }
