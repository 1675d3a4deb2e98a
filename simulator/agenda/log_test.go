package agenda_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/agenda"
	"github.com/pixsandbox/pixsandbox/simulator/clock"
)

// errorLogs returns the error-level records written to buf as JSON lines.
func errorLogs(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	dec := json.NewDecoder(buf)
	for dec.More() {
		var rec map[string]any
		if err := dec.Decode(&rec); err != nil {
			t.Fatalf("decoding log: %v", err)
		}
		if rec[slog.LevelKey] == slog.LevelError.String() {
			out = append(out, rec)
		}
	}
	return out
}

func TestAgenda_errorLogs(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, nil))
	a := agenda.New(agenda.NewMemStore(), clock.NewVirtual(epoch), logger)
	a.Handle("broken", func(context.Context, time.Time, agenda.Job) error { return errors.New("upstream down") })
	mustSchedule(t, a, agenda.Job{ID: "bad", Kind: "broken", Due: epoch})
	mustSchedule(t, a, agenda.Job{ID: "ghost", Kind: "no-such-kind", Due: epoch})
	mustAdvance(t, a, time.Hour, 2+agenda.MaxRetries)

	recs := errorLogs(t, &buf)
	if len(recs) != 2 {
		t.Fatalf("got %d error records, want 2: %v", len(recs), recs)
	}
	byID := map[string]map[string]any{}
	for _, r := range recs {
		byID[r["job_id"].(string)] = r
	}
	if r := byID["bad"]; r == nil || r["kind"] != "broken" || r["error"] != "upstream down" {
		t.Errorf("give-up record=%v, want job_id bad, kind broken, error upstream down", r)
	}
	if r := byID["ghost"]; r == nil || r["kind"] != "no-such-kind" {
		t.Errorf("unknown-kind record=%v, want job_id ghost, kind no-such-kind", r)
	}
}
