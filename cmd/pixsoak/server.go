package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// serverPackage is the import path of the simulator's command, built by
// buildServer.
const serverPackage = "github.com/pixsandbox/pixsandbox/cmd/pixsandbox"

// buildServer builds the simulator binary into dir with the given extra build
// flags (e.g. -race) and returns its path. It runs in the current directory,
// which must be inside the module.
func buildServer(ctx context.Context, dir string, flags ...string) (string, error) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("the go tool is needed to build %s (or pass -server-bin): %w", serverPackage, err)
	}
	bin := filepath.Join(dir, "pixsandbox")
	args := append([]string{"build", "-o", bin}, flags...)
	args = append(args, serverPackage)
	cmd := exec.CommandContext(ctx, goTool, args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return bin, nil
}

// server is the simulator as a child process on one data dir, killed with
// SIGKILL and started again on the same dir. Every start listens on a new
// port; clients read the current address with state and wait for a new
// generation after a failed request.
type server struct {
	bin, dir string

	mu      sync.Mutex
	cmd     *exec.Cmd
	url     string
	gen     int           // incremented at every start
	running bool          // false from just before a kill until the next start
	changed chan struct{} // closed and replaced at every change of running or gen
	stderr  []*lockedBuffer
}

func newServer(bin, dir string) *server {
	return &server{bin: bin, dir: dir, changed: make(chan struct{})}
}

// lockedBuffer collects a child's standard error.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// start runs the binary on the data dir with the virtual clock and waits for
// its banner line with the address.
func (s *server) start(ctx context.Context) error {
	cmd := exec.Command(s.bin, "serve", "--addr", "127.0.0.1:0", "--clock", "virtual", "--log-level", "error", "--data-dir", s.dir)
	cmd.Env = cleanEnv()
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	errBuf := &lockedBuffer{}
	cmd.Stderr = errBuf
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", s.bin, err)
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if _, after, ok := strings.Cut(sc.Text(), "is listening on "); ok {
				select {
				case found <- strings.Fields(after)[0]:
				default:
				}
			}
		}
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var url string
	select {
	case url = <-found:
	case err := <-exited:
		return fmt.Errorf("server exited before listening: %v\n%s", err, errBuf.String())
	case <-time.After(60 * time.Second): // wall time: process start-up
		_ = cmd.Process.Kill()
		<-exited
		return fmt.Errorf("server did not announce its address within 60s\n%s", errBuf.String())
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		<-exited
		return ctx.Err()
	}
	s.mu.Lock()
	s.cmd, s.url, s.running = cmd, url, true
	s.gen++
	s.stderr = append(s.stderr, errBuf)
	s.notifyLocked()
	s.mu.Unlock()
	go func() {
		// The process is reaped here; kill waits on the same channel.
		err := <-exited
		s.mu.Lock()
		if s.cmd == cmd {
			s.cmd = nil
			if s.running {
				s.running = false
				fmt.Fprintf(errBuf, "\npixsoak: server exited on its own: %v\n", err)
				s.notifyLocked()
			}
		}
		s.mu.Unlock()
	}()
	return nil
}

// kill sends SIGKILL (no shutdown, no flush) and waits until the process is gone.
func (s *server) kill() error {
	s.mu.Lock()
	cmd := s.cmd
	s.running = false
	s.notifyLocked()
	s.mu.Unlock()
	if cmd == nil {
		return errors.New("no server process to kill")
	}
	if err := cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	for {
		s.mu.Lock()
		gone := s.cmd != cmd
		s.mu.Unlock()
		if gone {
			return nil
		}
		time.Sleep(5 * time.Millisecond) // wall time: waiting for the reaper
	}
}

// stop kills the process at the end of a run.
func (s *server) stop() {
	s.mu.Lock()
	cmd := s.cmd
	s.mu.Unlock()
	if cmd != nil {
		_ = s.kill()
	}
}

func (s *server) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// state returns the current address and generation, whether the process is
// up, and a channel closed at the next change.
func (s *server) state() (url string, gen int, running bool, changed <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.url, s.gen, s.running, s.changed
}

// waitUp waits until a process of generation at least minGen is up.
func (s *server) waitUp(ctx context.Context, minGen int) (string, int, error) {
	for {
		url, gen, running, changed := s.state()
		if running && gen >= minGen {
			return url, gen, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return "", 0, ctx.Err()
		}
	}
}

// stderrFindings returns the lines of every process's standard error that show
// a data race, a panic or a fatal runtime error.
func (s *server) stderrFindings() (findings, errorLines []string) {
	s.mu.Lock()
	bufs := append([]*lockedBuffer(nil), s.stderr...)
	s.mu.Unlock()
	for i, b := range bufs {
		for line := range strings.Lines(b.String()) {
			line = strings.TrimSpace(line)
			switch {
			case strings.Contains(line, "WARNING: DATA RACE"), strings.HasPrefix(line, "panic:"),
				strings.HasPrefix(line, "fatal error:"), strings.HasPrefix(line, "pixsoak: server exited"):
				findings = append(findings, fmt.Sprintf("server process %d: %s", i+1, line))
			case strings.Contains(line, "level=ERROR"):
				errorLines = append(errorLines, fmt.Sprintf("server process %d: %s", i+1, line))
			}
		}
	}
	return findings, errorLines
}

// cleanEnv is the environment without PIXSANDBOX_* variables, so the child's
// configuration is exactly its flags.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PIXSANDBOX_") {
			env = append(env, kv)
		}
	}
	return env
}
