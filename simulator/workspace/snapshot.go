package workspace

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/pixsandbox/pixsandbox/simulator/clock"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

// A snapshot is a whole workspace as one JSON document (docs/workspaces.md):
// what the workspace was created with and every record it stores, as stored.
// Creating a workspace from it gives a new id with the same state, the same
// clock position and the same credentials, so fixtures kept in a test
// repository keep working.

// SnapshotFormat and SnapshotVersion name the document's format; a reader
// refuses another format or a version it does not know.
const (
	SnapshotFormat  = "pixsandbox-workspace-snapshot"
	SnapshotVersion = 1
)

// DefaultMaxSnapshotBytes is the largest snapshot a creation reads.
const DefaultMaxSnapshotBytes = 64 << 20

// Snapshot is the document.
type Snapshot struct {
	Format    string            `json:"format"`
	Version   int               `json:"version"`
	Workspace SnapshotWorkspace `json:"workspace"`
	// Records are the workspace's stored records in key order.
	Records []SnapshotRecord `json:"records"`
}

// SnapshotWorkspace is what the workspace was created with, and its clock.
type SnapshotWorkspace struct {
	ID         string        `json:"id"` // the workspace exported ("default" for the default)
	Name       string        `json:"name"`
	Clock      SnapshotClock `json:"clock"`
	Seed       uint64        `json:"seed"`
	Accounts   string        `json:"accounts"` // what a reset seeds: "fixtures" or "none"
	TTL        string        `json:"ttl"`
	ExportedAt time.Time     `json:"exportedAt"` // wall time
}

// SnapshotClock is the workspace's clock when it was exported.
type SnapshotClock struct {
	Mode string    `json:"mode"`
	Now  time.Time `json:"now"`
}

// SnapshotRecord is one stored record: its key and its value, as JSON (v)
// when the value is JSON and as base64 (b) when it is not.
type SnapshotRecord struct {
	Key   string          `json:"k"`
	Value json.RawMessage `json:"v,omitempty"`
	Bytes *string         `json:"b,omitempty"`
}

// Snapshot exports workspace id ("" or "default" for the default) as one
// document, read at one instant of the store.
func (m *Manager) Snapshot(ctx context.Context, id string) (Snapshot, error) {
	if id == pix.DefaultWorkspace {
		id = ""
	}
	sim, ok := m.Simulator(id)
	if !ok {
		return Snapshot{}, NotFound(id)
	}
	ws := SnapshotWorkspace{ID: cmp.Or(id, pix.DefaultWorkspace), Accounts: "fixtures", Seed: m.cfg.Base.Seed, ExportedAt: m.wallNow().UTC()}
	if id != "" {
		m.mu.RLock()
		e, ok := m.ws[id]
		m.mu.RUnlock()
		if !ok {
			return Snapshot{}, NotFound(id)
		}
		ws.Name, ws.Seed, ws.Accounts, ws.TTL = e.rec.Name, e.rec.Seed, e.rec.Accounts, e.rec.TTL.String()
	}
	c := sim.ClockNow()
	ws.Clock = SnapshotClock{Mode: c.Mode, Now: c.Now}
	recs, err := m.cfg.Engine.Records(ctx, id)
	if err != nil {
		return Snapshot{}, err
	}
	out := Snapshot{Format: SnapshotFormat, Version: SnapshotVersion, Workspace: ws, Records: make([]SnapshotRecord, 0, len(recs))}
	for _, r := range recs {
		out.Records = append(out.Records, encodeRecord(r))
	}
	return out, nil
}

func encodeRecord(r storage.Record) SnapshotRecord {
	if len(r.Val) > 0 && json.Valid(r.Val) && !binaryKey(r.Key) {
		return SnapshotRecord{Key: r.Key, Value: json.RawMessage(r.Val)}
	}
	b := base64.StdEncoding.EncodeToString(r.Val)
	return SnapshotRecord{Key: r.Key, Bytes: &b}
}

// binaryKey reports a key whose value is bytes that happen to be valid JSON
// at times (a sequence's lease): always base64, so it reads back the same.
func binaryKey(key string) bool { return strings.HasPrefix(key, "meta/seq/") }

// snapshotInvalid is a 400 naming path.
func snapshotInvalid(path, format string, args ...any) error {
	return pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: path, Message: fmt.Sprintf(format, args...)})
}

// checkSnapshot validates the whole document before anything is written and
// returns its records; the error names the first wrong path.
func (m *Manager) checkSnapshot(s Snapshot) ([]storage.Record, error) {
	switch {
	case s.Format != SnapshotFormat:
		return nil, snapshotInvalid("snapshot.format", "must be %q", SnapshotFormat)
	case s.Version != SnapshotVersion:
		return nil, snapshotInvalid("snapshot.version", "must be %d (this server reads version %d)", SnapshotVersion, SnapshotVersion)
	case s.Workspace.Clock.Mode != string(clock.ModeVirtual) && s.Workspace.Clock.Mode != string(clock.ModeReal):
		return nil, snapshotInvalid("snapshot.workspace.clock.mode", `must be "virtual" or "real"`)
	case s.Workspace.Clock.Now.IsZero() || s.Workspace.Clock.Now.After(pix.MaxClockTime):
		return nil, snapshotInvalid("snapshot.workspace.clock.now", "must be a time up to %s", pix.MaxClockTime.Format(time.RFC3339))
	case s.Workspace.Accounts != "fixtures" && s.Workspace.Accounts != "none":
		return nil, snapshotInvalid("snapshot.workspace.accounts", `must be "fixtures" or "none"`)
	case len(s.Workspace.Name) > 100:
		return nil, snapshotInvalid("snapshot.workspace.name", "must be at most 100 characters")
	}
	if s.Workspace.TTL != "" {
		if d, err := time.ParseDuration(s.Workspace.TTL); err != nil || d < 0 {
			return nil, snapshotInvalid("snapshot.workspace.ttl", `must be a duration such as "24h" or "0s"`)
		}
	}
	out := make([]storage.Record, 0, len(s.Records))
	seen := make(map[string]bool, len(s.Records))
	accounts := 0
	for i, r := range s.Records {
		path := fmt.Sprintf("snapshot.records[%d]", i)
		var val []byte
		switch {
		case r.Bytes != nil && r.Value != nil:
			return nil, snapshotInvalid(path, "must have v or b, not both")
		case r.Bytes != nil:
			b, err := base64.StdEncoding.DecodeString(*r.Bytes)
			if err != nil {
				return nil, snapshotInvalid(path+".b", "must be base64: %v", err)
			}
			val = b
		case r.Value != nil:
			val = []byte(r.Value)
		}
		if seen[r.Key] {
			return nil, snapshotInvalid(path+".k", "repeats the key %q", r.Key)
		}
		seen[r.Key] = true
		if err := m.cfg.Engine.CheckRecord(r.Key, val); err != nil {
			return nil, snapshotInvalid(path, "%v", err)
		}
		if strings.HasPrefix(r.Key, "acct/") {
			if accounts++; accounts > m.cfg.Limits.Accounts {
				return nil, snapshotInvalid(path, "the snapshot holds more than %d accounts (--max-accounts)", m.cfg.Limits.Accounts)
			}
		}
		out = append(out, storage.Record{Key: r.Key, Val: val})
	}
	if !seen["meta/clock"] {
		return nil, snapshotInvalid("snapshot.records", `must hold the workspace's clock (the record "meta/clock")`)
	}
	return out, nil
}

// CreateFromSnapshot makes a new workspace holding what s holds. The whole
// document is checked before anything is written; the records are written,
// then the registry record, so a crash halfway leaves nothing reachable.
// in's name and TTL, when given, replace the snapshot's.
func (m *Manager) CreateFromSnapshot(ctx context.Context, in pix.NewWorkspace, s Snapshot) (pix.CreatedWorkspace, error) {
	records, err := m.checkSnapshot(s)
	if err != nil {
		return pix.CreatedWorkspace{}, err
	}
	ttl := DefaultTTL
	if s.Workspace.TTL != "" {
		ttl, _ = time.ParseDuration(s.Workspace.TTL)
	}
	if in.HasTTL {
		ttl = in.TTL
	}
	rec := record{ID: uuid.NewString(), Name: cmp.Or(in.Name, s.Workspace.Name), AdminToken: randomToken(),
		Clock: s.Workspace.Clock.Mode, ClockStart: s.Workspace.Clock.Now.UTC(), Seed: s.Workspace.Seed,
		Accounts: s.Workspace.Accounts, TTL: ttl, CreatedAt: m.wallNow().UTC()}
	if err := m.reserve(); err != nil {
		return pix.CreatedWorkspace{}, err
	}
	defer m.release()
	if err := m.cfg.Engine.ImportSpace(ctx, rec.ID, records); err != nil {
		_ = m.cfg.Engine.DropSpace(context.WithoutCancel(ctx), rec.ID)
		return pix.CreatedWorkspace{}, err
	}
	sim, err := m.newSimulator(ctx, rec)
	if err != nil {
		_ = m.cfg.Engine.DropSpace(context.WithoutCancel(ctx), rec.ID)
		return pix.CreatedWorkspace{}, err
	}
	return m.publish(ctx, rec, sim, pix.CreatedWorkspace{})
}
