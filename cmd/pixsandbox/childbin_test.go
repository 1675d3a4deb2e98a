package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The child processes of these tests (servers killed mid-write, conform runs,
// the self-check's faulty servers and runners) run a pixsandbox binary built
// without the race detector: under it a child spends several times the CPU,
// and a race it finds is reported to a stream nobody reads, in a process the
// test kills. Races in the same code are found in process, where the tests
// run the server, the suite and the proxy under -race.
//
// The binaries are built with the flags of make dist (-trimpath,
// CGO_ENABLED=0), so that TestDist_StaticBinaryStartsFromEmptyDirectory
// compiles no package a second time, once per test process, into
// childBins.dir, which TestMain makes and removes.
var childBins = struct {
	mu   sync.Mutex
	dir  string
	bins map[string]*childBin
}{bins: map[string]*childBin{}}

type childBin struct {
	once sync.Once
	path string
	err  error
}

// childBinary returns the path of this command built with the build tags
// tags ("" for none), or "" when there is no go command to build it with.
func childBinary(t *testing.T, tags string) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil || childBins.dir == "" {
		return ""
	}
	childBins.mu.Lock()
	b := childBins.bins[tags]
	if b == nil {
		b = &childBin{}
		childBins.bins[tags] = b
	}
	childBins.mu.Unlock()
	b.once.Do(func() {
		b.path = filepath.Join(childBins.dir, "pixsandbox")
		args := []string{"build", "-trimpath"}
		if tags != "" {
			b.path += "-" + strings.ReplaceAll(tags, ",", "-")
			args = append(args, "-tags", tags)
		}
		args = append(args, "-o", b.path)
		build := exec.Command(goBin, append(args, ".")...)
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// childCommand returns a command running pixsandbox with args in the
// environment env (nil: this process's): the child binary or, where no go
// command builds one, this test binary made to run the command (childEnv,
// which carries no argument holding white space). wrap, when given, is a
// command line the child runs under (taskset -c 0).
func childCommand(t *testing.T, env, args []string, wrap ...string) *exec.Cmd {
	t.Helper()
	if env == nil {
		env = os.Environ()
	}
	argv := append([]string(nil), wrap...)
	if bin := childBinary(t, ""); bin != "" {
		argv = append(append(argv, bin), args...)
	} else {
		argv = append(argv, os.Args[0], "-test.run=^$")
		env = append(env, childEnv+"="+strings.Join(args, " "))
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	return cmd
}
