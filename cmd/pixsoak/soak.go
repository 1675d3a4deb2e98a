package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/pixsandbox/pixsandbox/fixtures"
)

// Config is one soak run.
type Config struct {
	// Kills is how many times the server is killed with SIGKILL while
	// operations are in flight (a final kill before the verification comes on
	// top).
	Kills int
	// Workers is how many goroutines send operations; worker i acts for fixture
	// account i%3+1.
	Workers int
	// Seed makes the choice of operations and kill moments repeatable.
	Seed uint64
	// Pause is the longest wall time a worker waits between two operations
	// (a random part of it each time), which leaves the job runner idle moments
	// in which clock advances get through.
	Pause time.Duration
	// MinUptime and MaxUptime bound the wall time between a start and the next kill.
	MinUptime, MaxUptime time.Duration
	// ServerBin is a built pixsandbox binary; empty builds one with BuildFlags.
	ServerBin  string
	BuildFlags []string
	// DataDir is the server's data directory; empty uses a new temporary one,
	// removed at the end unless the run found violations.
	DataDir string
	// Log receives progress lines; nil discards them.
	Log io.Writer
}

// accounts are the fixture accounts the workers act for.
var accounts = []int64{1, 2, 3}

// eventTypes are the webhook event types the receiver is registered for.
var eventTypes = []string{"cash_out", "cash_in", "refund_in", "refund_out"}

// soak is one run in progress.
type soak struct {
	cfg   Config
	srv   *server
	c     *client
	rep   *recorder
	set   *fixtures.Set
	recv  *receiver
	book  *book
	dests []destination
	log   io.Writer
	// initial is each account's available + blocked before any operation.
	initial map[int64]int64
	// Counts of the final verification.
	transactions, deliveries, errLines int
}

// Run builds (unless given) and starts the simulator, runs the operations while
// killing and restarting it, then verifies the final state. The error is for
// a run that could not be carried out; violations are in the Report.
func Run(ctx context.Context, cfg Config) (Report, error) {
	if cfg.Workers <= 0 {
		cfg.Workers = 6
	}
	if cfg.MaxUptime < cfg.MinUptime {
		cfg.MaxUptime = cfg.MinUptime
	}
	s := &soak{cfg: cfg, rep: newRecorder(), book: &book{charges: map[int64][]*charge{}}, log: cfg.Log, initial: map[int64]int64{}}
	if s.log == nil {
		s.log = io.Discard
	}
	var err error
	if s.set, err = fixtures.Embedded(); err != nil {
		return Report{}, err
	}
	tmp, err := os.MkdirTemp("", "pixsoak-")
	if err != nil {
		return Report{}, err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	bin := cfg.ServerBin
	if bin == "" {
		fmt.Fprintf(s.log, "building %s %v\n", serverPackage, cfg.BuildFlags)
		t0 := time.Now() // wall time: progress report
		if bin, err = buildServer(ctx, tmp, cfg.BuildFlags...); err != nil {
			return Report{}, err
		}
		fmt.Fprintf(s.log, "built in %v\n", time.Since(t0).Round(time.Millisecond)) // wall time
	}
	dir := cfg.DataDir
	if dir == "" {
		dir, err = os.MkdirTemp("", "pixsoak-data-")
		if err != nil {
			return Report{}, err
		}
	}
	s.srv = newServer(bin, dir)
	s.c = newClient(s.srv, s.set, s.rep)
	s.recv = newReceiver()
	defer s.recv.close()
	s.destinations()

	t0 := time.Now() // wall time: progress report
	if err := s.srv.start(ctx); err != nil {
		return Report{}, err
	}
	defer s.srv.stop()
	fmt.Fprintf(s.log, "server started in %v\n", time.Since(t0).Round(time.Millisecond)) // wall time
	fmt.Fprintf(s.log, "server up at %s, data dir %s\n", s.srv.url, dir)
	t0 = time.Now() // wall time: progress report
	if err := s.setup(ctx); err != nil {
		return s.rep.report(), err
	}
	fmt.Fprintf(s.log, "webhook targets, limits and opening balances set in %v\n", time.Since(t0).Round(time.Millisecond)) // wall time

	// Workers finish the operation in hand at stop; runCtx abandons it when
	// the run fails.
	stop := make(chan struct{})
	runCtx, abandon := context.WithCancel(ctx)
	defer abandon()
	var wg sync.WaitGroup
	for i := range cfg.Workers {
		w := &worker{id: i, account: accounts[i%len(accounts)], s: s, rng: rand.New(rand.NewPCG(cfg.Seed, uint64(i)+1))}
		wg.Go(func() { w.run(runCtx, stop) })
	}
	// The advancer's request is abandoned at stop: an advance may take long
	// when a backlog of jobs is due, and the final drain waits for it anyway.
	advCtx, advCancel := context.WithCancel(runCtx)
	defer advCancel()
	wg.Go(func() { s.advanceClock(advCtx, stop) })

	rng := rand.New(rand.NewPCG(cfg.Seed, 0))
	for i := range cfg.Kills {
		up := cfg.MinUptime + time.Duration(rng.Int64N(int64(cfg.MaxUptime-cfg.MinUptime)+1))
		select {
		case <-time.After(up): // wall time: the moment of the kill
		case <-ctx.Done():
			abandon()
			wg.Wait()
			return s.rep.report(), ctx.Err()
		}
		killAt := time.Now() // wall time: progress report
		if err := s.restart(ctx); err != nil {
			abandon()
			wg.Wait()
			return s.rep.report(), err
		}
		s.invariants(ctx, fmt.Sprintf("after restart %d", i+1))
		fmt.Fprintf(s.log, "kill %d/%d after %v of uptime; restarted and checked in %v\n", i+1, cfg.Kills, up.Round(time.Millisecond), time.Since(killAt).Round(time.Millisecond)) // wall time
	}
	close(stop)
	advCancel()
	wg.Wait()

	if err := s.verify(ctx); err != nil {
		return s.rep.report(), err
	}
	rep := s.report()
	if len(rep.Violations) > 0 && cfg.DataDir == "" {
		fmt.Fprintf(s.log, "data dir kept for inspection: %s\n", dir)
	} else if cfg.DataDir == "" {
		_ = os.RemoveAll(dir)
	}
	return rep, nil
}

func (s *soak) report() Report {
	rep := s.rep.report()
	rep.EventsReceived, rep.WebhookRequests, rep.Redeliveries = s.recv.stats()
	rep.Transactions, rep.Deliveries, rep.ServerErrorLogLines = s.transactions, s.deliveries, s.errLines
	return rep
}

// restart kills the server with SIGKILL and starts it on the same data dir.
func (s *soak) restart(ctx context.Context) error {
	if err := s.srv.kill(); err != nil {
		return err
	}
	s.rep.count(&s.rep.kills)
	s.c.http.CloseIdleConnections() // connections to the dead process
	if err := s.srv.start(ctx); err != nil {
		return err
	}
	s.rep.count(&s.rep.restarts)
	return nil
}

// destinations lists the keys payments go to: e-mail keys of other
// institutions without a scenario, and the e-mail keys of the fixture accounts.
func (s *soak) destinations() {
	for _, k := range s.set.DICT() {
		if k.Scenario == "" && k.Type == "EMAIL" {
			s.dests = append(s.dests, destination{key: k.Key, name: k.Name, doc: k.Document})
		}
	}
	for _, a := range s.set.Accounts {
		for _, k := range a.PixKeys {
			if k.Type == "EMAIL" {
				// Twice: a third of the payments stay inside the sandbox.
				d := destination{key: k.Key, name: a.Name, doc: a.Document, account: a.ID}
				s.dests = append(s.dests, d, d)
			}
		}
	}
}

// setup registers the webhook receiver for every account and event type,
// raises the limits out of the way, and reads the opening balances.
func (s *soak) setup(ctx context.Context) error {
	for _, a := range accounts {
		for _, et := range eventTypes {
			out, ok := s.c.call(ctx, request{method: http.MethodPost, path: "/_sandbox/webhook-targets",
				body: map[string]any{"accountId": a, "eventType": et, "url": s.recv.srv.URL + "/hooks"}}, true)
			if !ok || out.status/100 != 2 {
				return fmt.Errorf("register webhook target %d %s: %d %s", a, et, out.status, truncate(out.raw, 300))
			}
		}
		out, ok := s.c.call(ctx, request{method: http.MethodPut, path: "/_sandbox/accounts/" + strconv.FormatInt(a, 10) + "/settings",
			body: map[string]any{"perTransactionLimit": 1000000, "dailyLimit": 100000000, "nightLimit": 100000000}}, true)
		if !ok || out.status != http.StatusOK {
			return fmt.Errorf("settings of account %d: %d %s", a, out.status, truncate(out.raw, 300))
		}
		net, blocked, err := s.balance(ctx, a)
		if err != nil {
			return err
		}
		s.initial[a] = net + blocked
	}
	s.invariants(ctx, "at start")
	return nil
}

// balance reads an account's available (net) and blocked balance.
func (s *soak) balance(ctx context.Context, a int64) (net, blocked int64, err error) {
	out, ok := s.c.call(ctx, request{method: http.MethodGet, path: "/_sandbox/accounts/" + strconv.FormatInt(a, 10)}, true)
	if !ok || out.status != http.StatusOK {
		return 0, 0, fmt.Errorf("account %d: %d %s", a, out.status, truncate(out.raw, 300))
	}
	bal, _ := out.body["balance"].(map[string]any)
	return numberOf(bal["netBalance"]), numberOf(bal["blockedBalance"]), nil
}

// pause waits d (wall time: pacing); false when stop closed or ctx ended
// first.
func pause(ctx context.Context, stop <-chan struct{}, d time.Duration) bool {
	select {
	case <-stop:
		return false
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}

// advanceClock moves the virtual clock 2 to 20 seconds at a time, so
// settlements, webhook retries and expiries happen while operations run.
func (s *soak) advanceClock(ctx context.Context, stop <-chan struct{}) {
	rng := rand.New(rand.NewPCG(s.cfg.Seed, 1<<32))
	for pause(ctx, stop, time.Duration(20+rng.IntN(60))*time.Millisecond) {
		// Not resent after a kill: an advance is not idempotent, and a lost one
		// only means less simulated time.
		out, ok := s.c.call(ctx, request{method: http.MethodPost, path: "/_sandbox/clock/advance",
			body: map[string]any{"seconds": 2 + rng.IntN(19)}}, false)
		switch {
		case !ok:
			s.rep.count(&s.rep.advancesKilled) // the kill came while its jobs ran
		case out.status == http.StatusOK:
			s.rep.count(&s.rep.clockAdvances)
		default:
			s.rep.violation("clock advance: %d %s", out.status, truncate(out.raw, 200))
		}
	}
}

// invariants asks the server to recompute every balance from its journal.
func (s *soak) invariants(ctx context.Context, when string) {
	out, ok := s.c.call(ctx, request{method: http.MethodGet, path: "/_sandbox/invariants"}, true)
	if !ok {
		return
	}
	s.rep.count(&s.rep.invariantChecks)
	if out.status != http.StatusOK || out.str("ok") != "true" {
		s.rep.violation("invariants %s: %d %s", when, out.status, truncate(out.raw, 500))
	}
}
