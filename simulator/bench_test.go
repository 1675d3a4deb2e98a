package simulator_test

import (
	"context"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
)

// BenchmarkAdvance1000Jobs measures a clock advance that runs 1,000 due jobs in
// order (each a store read, a handler and a done record), on a data dir with
// SyncWrites, as `pixsandbox serve` runs.
func BenchmarkAdvance1000Jobs(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		env := simulatortest.Open(b, simulatortest.Options{Dir: b.TempDir()})
		for i := 0; i < 1000; i++ {
			if _, err := env.Sim.ScheduleMarker(ctx, time.Duration(i+1)*time.Second, ""); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		rep, err := env.Sim.AdvanceClock(ctx, time.Hour)
		if err != nil || rep.JobsRun != 1000 {
			b.Fatalf("advance: %+v, %v", rep, err)
		}
		b.StopTimer()
		env.Close()
		b.StartTimer()
	}
}
