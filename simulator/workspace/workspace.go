// Package workspace keeps the many isolated PIX worlds of one server: the
// default workspace and any number of others, each a *simulator.Simulator
// over its own slice of the one store (its key prefix), with its own clock,
// agenda, accounts, credentials and token signing key. It creates, opens,
// lists, expires and deletes them, and tells the transport which workspace a
// client id, a token or an id names (docs/workspaces.md).
//
// Each workspace's simulator gets that workspace's whole store. The manager's
// own reads of a workspace's records, for one not loaded, are its credentials
// (storage.CredentialTx: which workspace a client id names), its clock in the
// metadata and its accounts (storage.MetaTx, storage.AccountTx: a listing);
// a snapshot copies the records as stored (Engine.Records, ImportSpace).
package workspace

import (
	"cmp"
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/pixsandbox/pixsandbox/fixtures"
	"github.com/pixsandbox/pixsandbox/simulator"
	"github.com/pixsandbox/pixsandbox/simulator/auth"
	"github.com/pixsandbox/pixsandbox/simulator/clock"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

// Engine is the store's side of workspaces (badgerstore.Store through an
// adapter): a Store per workspace over one database, and the registry of
// workspace records.
type Engine interface {
	Space(id string) storage.Store
	Spaces() ([]string, error)
	DropSpace(ctx context.Context, id string) error
	PutSpaceRecord(ctx context.Context, id string, rec []byte) error
	DeleteSpaceRecord(ctx context.Context, id string) error
	SpaceRecords(ctx context.Context) (map[string][]byte, error)
	// Records reads every record of workspace id ("" the default) at one
	// instant; ImportSpace writes records into a new workspace; CheckRecord
	// says what is wrong with a record of a snapshot.
	Records(ctx context.Context, id string) ([]storage.Record, error)
	ImportSpace(ctx context.Context, id string, records []storage.Record) error
	CheckRecord(key string, val []byte) error
}

// Limits bound what workspaces may hold (all configurable by serve flags).
type Limits struct {
	Workspaces int // per server, besides the default (default 10,000)
	Accounts   int // per workspace at creation (default 1,000)
}

// Defaults of the zero fields of Limits and of a workspace's TTL.
const (
	DefaultMaxWorkspaces = 10000
	DefaultMaxAccounts   = 1000
	DefaultTTL           = 24 * time.Hour
	// DefaultUnloadAfter is how long a workspace's simulator stays in memory
	// without a request.
	DefaultUnloadAfter = 2 * time.Minute
)

// Config configures a Manager.
type Config struct {
	Engine  Engine
	Default *simulator.Simulator
	// Base is what every workspace's simulator is configured with; Store,
	// Workspace, ClockMode, ClockStart, Seed and Accounts are set per
	// workspace.
	Base     simulator.Config
	Fixtures *fixtures.Set
	Limits   Limits
	// Wall is the wall clock of expiry (a workspace's TTL counts wall time
	// without a request) and of unloading; nil means neither runs.
	Wall func() time.Time
	// UnloadAfter is how long a workspace stays loaded without a request
	// (0 takes DefaultUnloadAfter).
	UnloadAfter time.Duration
	Logger      *slog.Logger
	// OnDelete, when set, is told the id of each workspace deleted (by a
	// request or on expiry), once it is gone: what the transport keeps of
	// it in memory (its network fault rules) goes too.
	OnDelete func(id string)
}

// record is what the registry keeps of a workspace.
type record struct {
	ID         string        `json:"id"`
	Name       string        `json:"name"`
	AdminToken string        `json:"adminToken"`
	Clock      string        `json:"clock"`
	ClockStart time.Time     `json:"clockStart"`
	Seed       uint64        `json:"seed"`
	Accounts   string        `json:"accounts"` // what a reset seeds again: "fixtures" or "none"
	TTL        time.Duration `json:"ttl"`
	CreatedAt  time.Time     `json:"createdAt"`
}

// entry is a workspace of the server. Its simulator is loaded on use and
// unloaded when idle (UnloadIdle): an idle workspace costs its registry
// record and its data on disk.
type entry struct {
	rec      record
	lastUsed atomic.Int64 // wall Unix nanoseconds

	mu    sync.Mutex
	sim   *simulator.Simulator // nil while unloaded
	users int                  // requests holding sim (Acquire)
}

// Manager holds the workspaces of one server.
type Manager struct {
	cfg Config
	log *slog.Logger

	mu      sync.RWMutex
	ws      map[string]*entry
	clients map[string][]string // client id (lowercase) → the workspaces that have it (copies of a snapshot share them)
	runCtx  context.Context
	stop    context.CancelFunc
	wg      sync.WaitGroup
	// drops deletes the keys of deleted workspaces in the background
	// (dropLater); Stop cancels it, and the next Open finishes the work.
	dropCtx  context.Context
	dropStop context.CancelFunc
	drops    sync.WaitGroup
	stopping chan struct{} // closed by Stop: second drop passes are skipped
	stopOnce sync.Once
	dropping atomic.Int64 // deleted workspaces whose keys are still being dropped
	// creating counts creations under way, so the limit holds for them too.
	creating int
}

// Open opens every workspace the registry records and drops the keys of any
// workspace it does not (one whose creation or deletion a crash cut short).
func Open(ctx context.Context, cfg Config) (*Manager, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	cfg.Limits.Workspaces = cmp.Or(cfg.Limits.Workspaces, DefaultMaxWorkspaces)
	cfg.Limits.Accounts = cmp.Or(cfg.Limits.Accounts, DefaultMaxAccounts)
	if cfg.Base.Shared == nil { // one parse of the fixtures for every workspace
		sh, err := simulator.NewShared(cfg.Fixtures)
		if err != nil {
			return nil, err
		}
		cfg.Base.Shared = sh
	}
	m := &Manager{cfg: cfg, log: cfg.Logger, ws: map[string]*entry{}, clients: map[string][]string{}}
	m.dropCtx, m.dropStop = context.WithCancel(context.WithoutCancel(ctx))
	m.stopping = make(chan struct{})
	recs, err := cfg.Engine.SpaceRecords(ctx)
	if err != nil {
		return nil, fmt.Errorf("workspaces: read the registry: %w", err)
	}
	spaces, err := cfg.Engine.Spaces()
	if err != nil {
		return nil, fmt.Errorf("workspaces: list: %w", err)
	}
	for _, id := range spaces {
		if _, ok := recs[id]; !ok {
			m.log.Info("workspace: dropping the keys of an unfinished creation or deletion", "workspace", id)
			m.dropLater(id)
		}
	}
	ids := make([]string, 0, len(recs))
	for id := range recs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		var rec record
		if err := json.Unmarshal(recs[id], &rec); err != nil {
			return nil, fmt.Errorf("workspace %s: registry record: %w", id, err)
		}
		e := &entry{rec: rec}
		e.lastUsed.Store(m.wallNow().UnixNano())
		m.ws[id] = e
		// A real clock runs its jobs when they fall due: such a workspace
		// with a pending job is loaded now; the others on their first use.
		if rec.Clock == string(clock.ModeReal) {
			if _, pending, err := cfg.Engine.Space(id).NextJob(ctx); err != nil {
				return nil, fmt.Errorf("workspace %s: %w", id, err)
			} else if pending {
				if _, err := m.load(ctx, e, false); err != nil {
					return nil, fmt.Errorf("workspace %s: %w", id, err)
				}
			}
		}
	}
	return m, nil
}

// load returns e's simulator, opening (and starting) it when unloaded; hold
// counts a user of it in the same step, so UnloadIdle never takes it
// between the two.
func (m *Manager) load(ctx context.Context, e *entry, hold bool) (*simulator.Simulator, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if hold {
		e.users++
	}
	if e.sim != nil {
		return e.sim, nil
	}
	sim, err := m.newSimulator(context.WithoutCancel(ctx), e.rec)
	if err != nil {
		if hold {
			e.users--
		}
		return nil, err
	}
	m.mu.RLock()
	run := m.runCtx
	m.mu.RUnlock()
	if run != nil {
		sim.Start(run)
	}
	e.sim = sim
	return sim, nil
}

func (m *Manager) wallNow() time.Time {
	if m.cfg.Wall == nil {
		return time.Unix(0, 0)
	}
	return m.cfg.Wall()
}

func (m *Manager) newSimulator(ctx context.Context, rec record) (*simulator.Simulator, error) {
	c := m.cfg.Base
	c.Store = m.cfg.Engine.Space(rec.ID)
	c.Workspace = rec.ID
	c.ClockMode = clock.Mode(rec.Clock)
	c.ClockStart = rec.ClockStart
	c.Seed = rec.Seed
	c.Accounts = rec.Accounts
	if c.Logger != nil {
		c.Logger = c.Logger.With("workspace", rec.ID)
	}
	return simulator.New(ctx, c)
}

// Start runs every workspace's jobs and, with a wall clock, the expiry of
// idle workspaces. ctx is the runners' context.
func (m *Manager) Start(ctx context.Context) {
	m.mu.Lock()
	m.runCtx, m.stop = context.WithCancel(ctx)
	for _, e := range m.ws {
		e.mu.Lock()
		if e.sim != nil {
			e.sim.Start(m.runCtx)
		}
		e.mu.Unlock()
	}
	m.mu.Unlock()
	if m.cfg.Wall != nil {
		m.wg.Add(1)
		go m.expireLoop(m.runCtx)
	}
}

// Stop stops every workspace's jobs (not the default's).
func (m *Manager) Stop() {
	m.mu.Lock()
	if m.stop != nil {
		m.stop()
	}
	sims := make([]*simulator.Simulator, 0, len(m.ws))
	for _, e := range m.ws {
		e.mu.Lock()
		if e.sim != nil {
			sims = append(sims, e.sim)
		}
		e.mu.Unlock()
	}
	m.runCtx = nil
	m.mu.Unlock()
	m.stopOnce.Do(func() { close(m.stopping) })
	// Deletions under way get a while to finish; what is left then, the
	// next Open drops.
	wait, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	_ = m.WaitDropped(wait)
	cancel()
	m.dropStop()
	m.drops.Wait()
	m.wg.Wait()
	for _, s := range sims {
		s.Stop()
	}
}

// ValidID reports whether id has the form of a workspace id: DefaultWorkspace
// or a UUID.
func ValidID(id string) bool {
	if id == pix.DefaultWorkspace {
		return true
	}
	u, err := uuid.Parse(id)
	return err == nil && u.String() == id
}

// Simulator returns workspace id's simulator ("" or DefaultWorkspace for the
// default), loading it when unloaded, and counts the use against its expiry.
// A request holds it with Acquire instead, so it is not unloaded under the
// request.
func (m *Manager) Simulator(id string) (*simulator.Simulator, bool) {
	sim, release, ok := m.Acquire(id)
	if ok {
		release()
	}
	return sim, ok
}

// Acquire returns workspace id's simulator as Simulator does, held until
// release is called: a held workspace is never unloaded.
func (m *Manager) Acquire(id string) (sim *simulator.Simulator, release func(), ok bool) {
	if id == "" || id == pix.DefaultWorkspace {
		return m.cfg.Default, func() {}, true
	}
	m.mu.RLock()
	e, ok := m.ws[id]
	m.mu.RUnlock()
	if !ok {
		return nil, nil, false
	}
	e.lastUsed.Store(m.wallNow().UnixNano())
	sim, err := m.load(context.Background(), e, true)
	if err != nil {
		m.log.Error("workspace: load", "workspace", id, "error", err)
		return nil, nil, false
	}
	return sim, func() {
		e.mu.Lock()
		e.users--
		e.mu.Unlock()
		e.lastUsed.Store(m.wallNow().UnixNano())
	}, true
}

// UnloadIdle unloads the workspaces that no request holds and none used for
// UnloadAfter, whose clock is virtual or that have no pending job (a real
// clock's jobs must run when they fall due), and with no webhook attempt
// under way. It returns how many it unloaded.
func (m *Manager) UnloadIdle(ctx context.Context) int {
	after := cmp.Or(m.cfg.UnloadAfter, DefaultUnloadAfter)
	now := m.wallNow().UnixNano()
	m.mu.RLock()
	entries := make([]*entry, 0, len(m.ws))
	for _, e := range m.ws {
		entries = append(entries, e)
	}
	m.mu.RUnlock()
	n := 0
	for _, e := range entries {
		if now-e.lastUsed.Load() < int64(after) {
			continue
		}
		e.mu.Lock()
		if e.sim != nil && e.users == 0 && now-e.lastUsed.Load() >= int64(after) && !e.sim.Busy(ctx) {
			e.sim.Release()
			e.sim = nil
			n++
		}
		e.mu.Unlock()
	}
	return n
}

// Loaded is how many workspaces have their simulator in memory.
func (m *Manager) Loaded() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	n := 0
	for _, e := range m.ws {
		e.mu.Lock()
		if e.sim != nil {
			n++
		}
		e.mu.Unlock()
	}
	return n
}

// AdminToken returns workspace id's own admin token ("" for the default,
// which has none but the server's).
func (m *Manager) AdminToken(id string) string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if e, ok := m.ws[id]; ok {
		return e.rec.AdminToken
	}
	return ""
}

// TokenWorkspace returns the workspace a bearer token names ("" for the
// default); the workspace verifies the token.
func (m *Manager) TokenWorkspace(token string) string { return auth.TokenWorkspace(token) }

// ClientWorkspaces returns the workspaces whose accounts have clientID (""
// for the default), none when no workspace has it. New accounts get fresh
// client ids, so a client id names one workspace, unless workspaces were
// created from one snapshot (credentials kept): then it names each copy.
func (m *Manager) ClientWorkspaces(ctx context.Context, clientID string) []string {
	key := strings.ToLower(clientID)
	m.mu.RLock()
	var live []string
	for _, id := range m.clients[key] {
		if _, ok := m.ws[id]; ok {
			live = append(live, id)
		}
	}
	m.mu.RUnlock()
	if len(live) > 0 {
		return live
	}
	if found, _ := m.cfg.Default.HasClient(ctx, clientID); found {
		return []string{""}
	}
	// A miss: accounts created or reset since. Ask each workspace once.
	m.mu.RLock()
	entries := make([]*entry, 0, len(m.ws))
	for _, e := range m.ws {
		entries = append(entries, e)
	}
	m.mu.RUnlock()
	for _, e := range entries { // from the store: a workspace is not loaded for this
		err := m.cfg.Engine.Space(e.rec.ID).View(ctx, func(tx storage.Tx) error {
			_, err := tx.Credential(clientID)
			return err
		})
		if err == nil {
			live = append(live, e.rec.ID)
		}
	}
	if len(live) > 0 {
		m.mu.Lock()
		m.clients[key] = live
		m.mu.Unlock()
	}
	return live
}

// Create makes a workspace: its simulator, its accounts, then its registry
// record, written last, so a crash before it leaves keys that the next Open
// drops, and nothing reachable.
func (m *Manager) Create(ctx context.Context, in pix.NewWorkspace) (pix.CreatedWorkspace, error) {
	rec, err := m.validate(in)
	if err != nil {
		return pix.CreatedWorkspace{}, err
	}
	if err := m.reserve(); err != nil {
		return pix.CreatedWorkspace{}, err
	}
	defer m.release()
	out, sim, err := m.build(ctx, rec, in)
	if err != nil {
		_ = m.cfg.Engine.DropSpace(context.WithoutCancel(ctx), rec.ID)
		return pix.CreatedWorkspace{}, err
	}
	return m.publish(ctx, rec, sim, out)
}

// reserve counts a creation against the limit of workspaces; release ends it.
func (m *Manager) reserve() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.ws)+m.creating >= m.cfg.Limits.Workspaces {
		return pix.Errorf(pix.KindConflict, pix.CodeInvalidRequest,
			"the server holds %d workspaces, its limit (--max-workspaces)", m.cfg.Limits.Workspaces)
	}
	m.creating++
	return nil
}

func (m *Manager) release() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.creating--
}

// publish makes a built workspace reachable: its registry record, written
// last, then the server's maps, its jobs running. out's accounts are those
// the creation returns; when it has none, the workspace's accounts are
// listed (without secrets: a snapshot's clients keep theirs).
func (m *Manager) publish(ctx context.Context, rec record, sim *simulator.Simulator, out pix.CreatedWorkspace) (pix.CreatedWorkspace, error) {
	b, _ := json.Marshal(rec)
	if err := m.cfg.Engine.PutSpaceRecord(ctx, rec.ID, b); err != nil {
		_ = m.cfg.Engine.DropSpace(context.WithoutCancel(ctx), rec.ID)
		return pix.CreatedWorkspace{}, err
	}
	clients := make([]string, 0, len(out.Accounts))
	for _, a := range out.Accounts {
		clients = append(clients, a.ClientID)
	}
	if out.Accounts == nil {
		accts, err := sim.Accounts(ctx)
		if err != nil {
			return pix.CreatedWorkspace{}, err
		}
		for _, a := range accts {
			out.Accounts = append(out.Accounts, pix.CreatedAccount{Account: a.Account, ClientID: firstOf(a.ClientIDs),
				Balance: a.Balance.Available + a.Balance.Blocked})
			clients = append(clients, a.ClientIDs...)
		}
	}
	e := &entry{rec: rec, sim: sim}
	e.lastUsed.Store(m.wallNow().UnixNano())
	m.mu.Lock()
	m.ws[rec.ID] = e
	for _, c := range clients {
		key := strings.ToLower(c)
		m.clients[key] = append(m.clients[key], rec.ID)
	}
	if m.runCtx != nil {
		sim.Start(m.runCtx)
	}
	m.mu.Unlock()
	out.Info = m.info(ctx, e)
	out.AdminToken = rec.AdminToken
	return out, nil
}

func firstOf(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// build opens the new workspace's simulator and creates its accounts.
func (m *Manager) build(ctx context.Context, rec record, in pix.NewWorkspace) (pix.CreatedWorkspace, *simulator.Simulator, error) {
	sim, err := m.newSimulator(ctx, rec)
	if err != nil {
		return pix.CreatedWorkspace{}, nil, err
	}
	var out pix.CreatedWorkspace
	if rec.Accounts == "fixtures" {
		keys := map[int64][]byte{}
		for _, a := range m.cfg.Fixtures.Accounts {
			if b, err := m.cfg.Fixtures.ReadFile(a.Key); err == nil {
				keys[a.ID] = b
			}
		}
		for _, c := range sim.SeedCredentials() {
			out.Accounts = append(out.Accounts, pix.CreatedAccount{Account: c.Account, ClientID: c.ClientID,
				ClientSecret: c.ClientSecret, Balance: pix.Cents(c.Balance),
				Certificate: pix.IssuedCertificate{CertificatePEM: c.CertificatePEM, PrivateKeyPEM: keys[int64(c.Account.ID)]}})
		}
	}
	rng := rand.New(rand.NewPCG(rec.Seed, rec.Seed^0x5851f42d4c957f2d))
	for range in.AccountCount {
		// Same seed, same balances: 1,000.00 to 100,000.00 in whole reais.
		balance := pix.Cents(rng.IntN(99001)+1000) * 100
		a, err := sim.CreateAccount(ctx, pix.NewAccount{Balance: balance})
		if err != nil {
			return pix.CreatedWorkspace{}, nil, err
		}
		out.Accounts = append(out.Accounts, a)
	}
	return out, sim, nil
}

// validate checks a creation request and fills its defaults.
func (m *Manager) validate(in pix.NewWorkspace) (record, error) {
	var vs []pix.Violation
	if len(in.Name) > 100 {
		vs = append(vs, pix.Violation{Field: "name", Message: "must be at most 100 characters"})
	}
	mode := cmp.Or(in.Clock, string(clock.ModeVirtual))
	if mode != string(clock.ModeVirtual) && mode != string(clock.ModeReal) {
		vs = append(vs, pix.Violation{Field: "clock", Message: `must be "virtual" or "real"`})
	}
	if !in.ClockStart.IsZero() && mode == string(clock.ModeReal) {
		vs = append(vs, pix.Violation{Field: "clockStart", Message: `applies to a "virtual" clock only`})
	}
	if !in.ClockStart.IsZero() && in.ClockStart.After(pix.MaxClockTime) {
		vs = append(vs, pix.Violation{Field: "clockStart", Message: "must not be after " + pix.MaxClockTime.Format(time.RFC3339)})
	}
	accounts := cmp.Or(in.Accounts, "fixtures")
	switch {
	case in.AccountCount < 0 || in.AccountCount > m.cfg.Limits.Accounts:
		vs = append(vs, pix.Violation{Field: "accounts", Message: fmt.Sprintf("must be a number from 0 to %d (--max-accounts), \"fixtures\" or \"none\"", m.cfg.Limits.Accounts)})
	case in.AccountCount > 0:
		accounts = "none"
	case accounts != "fixtures" && accounts != "none":
		vs = append(vs, pix.Violation{Field: "accounts", Message: `must be a number, "fixtures" or "none"`})
	}
	ttl := DefaultTTL
	if in.HasTTL {
		ttl = in.TTL
	}
	if ttl < 0 {
		vs = append(vs, pix.Violation{Field: "ttl", Message: "must not be negative"})
	}
	if len(vs) > 0 {
		return record{}, pix.Invalid(pix.CodeInvalidRequest, vs...)
	}
	start := in.ClockStart
	if start.IsZero() {
		start = m.cfg.Base.ClockStart
	}
	if start.IsZero() {
		start = m.cfg.Default.ClockNow().Now
	}
	seed := in.Seed
	if !in.HasSeed {
		seed = randomSeed()
	}
	return record{ID: uuid.NewString(), Name: in.Name, AdminToken: randomToken(), Clock: mode, ClockStart: start.UTC(),
		Seed: seed, Accounts: accounts, TTL: ttl, CreatedAt: m.wallNow().UTC()}, nil
}

func randomToken() string {
	var b [24]byte
	_, _ = crand.Read(b[:])
	return "wst_" + hex.EncodeToString(b[:])
}

func randomSeed() uint64 {
	var b [8]byte
	_, _ = crand.Read(b[:])
	var n uint64
	for _, c := range b {
		n = n<<8 | uint64(c)
	}
	return n
}

// NotFound is the error of an unknown workspace id.
func NotFound(id string) error {
	return pix.Errorf(pix.KindNotFound, pix.CodeNotFound, "workspace %s not found", id)
}

// Info describes workspace id.
func (m *Manager) Info(ctx context.Context, id string) (pix.WorkspaceInfo, error) {
	m.mu.RLock()
	e, ok := m.ws[id]
	m.mu.RUnlock()
	if !ok {
		return pix.WorkspaceInfo{}, NotFound(id)
	}
	return m.info(ctx, e), nil
}

func (m *Manager) info(ctx context.Context, e *entry) pix.WorkspaceInfo {
	c, n := m.peek(ctx, e)
	last := time.Unix(0, e.lastUsed.Load()).UTC()
	info := pix.WorkspaceInfo{ID: e.rec.ID, Name: e.rec.Name, ClockMode: c.Mode, Now: c.Now, Accounts: n, TTL: e.rec.TTL,
		CreatedAt: e.rec.CreatedAt, LastUsedAt: last}
	if e.rec.TTL > 0 && m.cfg.Wall != nil {
		info.ExpiresAt = last.Add(e.rec.TTL)
	}
	return info
}

// List returns a page (1-based) of the workspaces in creation order, and
// their total.
func (m *Manager) List(ctx context.Context, page, size int) ([]pix.WorkspaceInfo, int) {
	m.mu.RLock()
	entries := make([]*entry, 0, len(m.ws))
	for _, e := range m.ws {
		entries = append(entries, e)
	}
	m.mu.RUnlock()
	slices.SortFunc(entries, func(a, b *entry) int {
		return cmp.Or(a.rec.CreatedAt.Compare(b.rec.CreatedAt), strings.Compare(a.rec.ID, b.rec.ID))
	})
	total := len(entries)
	from := min((page-1)*size, total)
	to := min(from+size, total)
	out := make([]pix.WorkspaceInfo, 0, to-from)
	for _, e := range entries[from:to] {
		out = append(out, m.info(ctx, e))
	}
	return out, total
}

// Delete removes workspace id: it is gone once Delete returns (its registry
// record goes first, in one synced write; its tokens and routes answer as
// for an unknown workspace), its jobs stop, and its keys are deleted in the
// background, in batches that share the writer with the other workspaces. A
// crash before they are gone leaves keys without a record, which the next
// Open drops: all or nothing.
func (m *Manager) Delete(ctx context.Context, id string) error {
	m.mu.Lock()
	e, ok := m.ws[id]
	if ok {
		delete(m.ws, id)
	}
	m.mu.Unlock()
	if !ok {
		return NotFound(id)
	}
	e.mu.Lock()
	if e.sim != nil {
		e.sim.Release()
	}
	e.mu.Unlock()
	if err := m.cfg.Engine.DeleteSpaceRecord(ctx, id); err != nil {
		return err
	}
	m.dropLater(id)
	if m.cfg.OnDelete != nil {
		m.cfg.OnDelete(id)
	}
	return nil
}

// dropLater deletes the keys of workspace id in the background; a second
// pass a moment later removes what a request that held the workspace when
// it went may have written after the first.
func (m *Manager) dropLater(id string) {
	m.drops.Add(1)
	m.dropping.Add(1)
	go func() {
		defer m.drops.Done()
		for pass := range 2 {
			if pass == 1 {
				m.dropping.Add(-1) // the keys are gone; the second pass is a sweep
			}
			if pass > 0 {
				select {
				case <-m.stopping:
					return // the next Open drops what is left
				case <-time.After(2 * time.Second): // wall time: requests in flight end
				}
			}
			if err := m.cfg.Engine.DropSpace(m.dropCtx, id); err != nil {
				if !errors.Is(err, context.Canceled) {
					m.log.Warn("workspace: dropping its keys", "workspace", id, "error", err)
				}
				if pass == 0 {
					m.dropping.Add(-1)
				}
				return
			}
		}
	}()
}

// WaitDropped waits until the keys of the deleted workspaces are gone (or
// ctx ends).
func (m *Manager) WaitDropped(ctx context.Context) error {
	done := make(chan struct{})
	go func() { m.drops.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// expireLoop deletes, once a minute (more often for a short UnloadAfter), the
// workspaces idle longer than their TTL, and unloads the idle ones.
func (m *Manager) expireLoop(ctx context.Context) {
	defer m.wg.Done()
	every := min(time.Minute, max(cmp.Or(m.cfg.UnloadAfter, DefaultUnloadAfter)/2, time.Second))
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			m.ExpireIdle(ctx)
			m.UnloadIdle(ctx)
		}
	}
}

// ExpireIdle deletes the workspaces idle longer than their TTL, now.
func (m *Manager) ExpireIdle(ctx context.Context) int {
	now := m.wallNow().UnixNano()
	var idle []string
	m.mu.RLock()
	for id, e := range m.ws {
		if e.rec.TTL > 0 && now-e.lastUsed.Load() > int64(e.rec.TTL) {
			idle = append(idle, id)
		}
	}
	m.mu.RUnlock()
	n := 0
	for _, id := range idle {
		if err := m.Delete(ctx, id); err == nil {
			m.log.Info("workspace expired", "workspace", id)
			n++
		}
	}
	return n
}

// Dropping is how many deleted workspaces still have keys being dropped.
func (m *Manager) Dropping() int { return int(m.dropping.Load()) }

// Len is how many workspaces the server holds besides the default.
func (m *Manager) Len() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.ws)
}

// peek reads a workspace's clock and account count, from its simulator when
// it is loaded and from the store otherwise (a listing does not load every
// workspace).
func (m *Manager) peek(ctx context.Context, e *entry) (pix.ClockReport, int) {
	e.mu.Lock()
	sim := e.sim
	e.mu.Unlock()
	n := 0
	if sim != nil {
		if accts, err := sim.Accounts(ctx); err == nil {
			n = len(accts)
		}
		return sim.ClockNow(), n
	}
	var c pix.ClockReport
	_ = m.cfg.Engine.Space(e.rec.ID).View(ctx, func(tx storage.Tx) error {
		var st struct {
			Mode   string        `json:"mode"`
			Now    time.Time     `json:"now"`
			Offset time.Duration `json:"offset"`
		}
		if ok, err := tx.Meta("clock", &st); err == nil && ok {
			c = pix.ClockReport{Mode: st.Mode, Now: st.Now}
			if st.Mode == string(clock.ModeReal) && m.cfg.Wall != nil {
				c.Now = maxTime(st.Now, m.wallNow().Add(st.Offset).UTC())
			}
		}
		accts, err := tx.Accounts()
		n = len(accts)
		return err
	})
	return c, n
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
