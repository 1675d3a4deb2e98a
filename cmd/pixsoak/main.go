// Command pixsoak is the crash test of the simulator: it starts the real
// pixsandbox binary on a data dir with the virtual clock, runs concurrent mixed
// operations against three fixture accounts (cash-outs, DICT transfers with
// idempotency keys, cash-in charges and their payment, refunds on both routes,
// clock advances), kills the server with SIGKILL at random moments, restarts it
// on the same data dir, sends again every request whose answer was lost, and
// finally checks that every acknowledged operation exists exactly once, nothing
// was invented, every settlement and webhook completed, balances add up and the
// server's ledger invariants hold. It prints what it checked and the counts, and
// exits 1 on any violation.
//
//	go run ./cmd/pixsoak -kills 25
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("pixsoak", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := Config{}
	fs.IntVar(&cfg.Kills, "kills", 20, "how many times the server is killed with SIGKILL during the run")
	fs.IntVar(&cfg.Workers, "workers", 6, "concurrent goroutines sending operations (spread over fixture accounts 1, 2 and 3)")
	fs.Uint64Var(&cfg.Seed, "seed", uint64(time.Now().UnixNano()), "seed of the operation mix and kill moments (printed, to repeat a run)") // wall time: a fresh seed per run
	fs.DurationVar(&cfg.Pause, "pause", 20*time.Millisecond, "longest wall time a worker waits between two operations")
	fs.DurationVar(&cfg.MinUptime, "min-uptime", 300*time.Millisecond, "shortest wall time between a start and the next kill")
	fs.DurationVar(&cfg.MaxUptime, "max-uptime", 1500*time.Millisecond, "longest wall time between a start and the next kill")
	fs.StringVar(&cfg.ServerBin, "server-bin", "", "a built pixsandbox binary (default: go build ./cmd/pixsandbox into a temp dir)")
	race := fs.Bool("race", false, "build the server with the race detector (a data race report is a violation)")
	fs.StringVar(&cfg.DataDir, "data-dir", "", "the server's data dir (default: a new temp dir, kept only when a violation is found)")
	quiet := fs.Bool("q", false, "print only the report")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "pixsoak: unexpected arguments %q\n", fs.Args())
		return 2
	}
	if *race {
		cfg.BuildFlags = append(cfg.BuildFlags, "-race")
	}
	if !*quiet {
		cfg.Log = stdout
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	fmt.Fprintf(stdout, "pixsoak: seed %d, %d kills, %d workers, uptime %v..%v\n", cfg.Seed, cfg.Kills, cfg.Workers, cfg.MinUptime, cfg.MaxUptime)
	start := time.Now() // wall time: run duration
	rep, err := Run(ctx, cfg)
	rep.Print(stdout)
	fmt.Fprintf(stdout, "run took %v\n", time.Since(start).Round(time.Millisecond)) // wall time
	if err != nil {
		fmt.Fprintf(stderr, "pixsoak: %v\n", strings.TrimSpace(err.Error()))
		return 1
	}
	if len(rep.Violations) > 0 {
		return 1
	}
	if rep.Kills < cfg.Kills {
		fmt.Fprintf(stderr, "pixsoak: only %d of %d kills happened\n", rep.Kills, cfg.Kills)
		return 1
	}
	return 0
}
