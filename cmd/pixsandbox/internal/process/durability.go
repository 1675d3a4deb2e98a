package process

import (
	"fmt"
	"strings"
	"time"
)

// SyncMode is when the store syncs acknowledged writes to disk (--sync):
// with each batch before its requests are answered (Every 0, the zero
// value), in the background at an interval (Every > 0), or never (Off).
// Every mode answers a write once the kernel holds it, so a killed process
// loses nothing in any of them; they differ in what a power loss can take
// (docs/performance.md, "Durability").
type SyncMode struct {
	// Every is the background sync's interval; 0 syncs each batch.
	Every time.Duration
	// Off leaves the writing back to the kernel.
	Off bool
}

// DefaultSync is the durability of a default server.
var DefaultSync = SyncMode{}

// The bounds of a background sync's interval: shorter is the sync of each
// batch with extra steps, longer leaves too much for a power loss to take.
const (
	minSyncEvery = time.Millisecond
	maxSyncEvery = time.Minute
)

const SyncUsage = "when acknowledged writes reach the disk: batch (each batch of writes is synced before its requests are answered), a duration such as 100ms or 1s (answered once the kernel holds them, synced in the background at that interval: a power loss may lose that much) or false (never synced by the server: for throwaway runs); a killed process loses no acknowledged write in any mode; --sync alone is batch"

// IsBoolFlag lets --sync stand alone (batch), and keeps --sync=true and
// --sync=false meaning what they meant when the flag was a switch.
func (m *SyncMode) IsBoolFlag() bool { return true }

func (m *SyncMode) String() string {
	switch {
	case m == nil || (!m.Off && m.Every == 0):
		return "batch"
	case m.Off:
		return "false"
	}
	return m.Every.String()
}

func (m *SyncMode) Set(s string) error {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "batch", "true", "on", "1":
		*m = SyncMode{}
		return nil
	case "false", "off", "never", "0":
		*m = SyncMode{Off: true}
		return nil
	}
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || d < minSyncEvery || d > maxSyncEvery {
		return fmt.Errorf("%q is not a sync mode: write batch, false, or an interval from %s to %s such as 100ms", s, minSyncEvery, maxSyncEvery)
	}
	*m = SyncMode{Every: d}
	return nil
}
