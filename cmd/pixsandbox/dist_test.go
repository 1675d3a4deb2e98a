package main

import (
	"bufio"
	"debug/elf"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestDist_StaticBinaryStartsFromEmptyDirectory builds the binary as make dist
// does (CGO off, -trimpath, version stamped by -ldflags), copies it into an
// empty directory and runs it there with no Go toolchain on PATH: version
// prints the stamped version and commit, and serve answers /healthz.
func TestDist_StaticBinaryStartsFromEmptyDirectory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	t.Parallel() // its own build, directory and environment
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go toolchain to build with")
	}
	ext := ""
	if runtime.GOOS == "windows" {
		ext = ".exe"
	}
	bin := filepath.Join(t.TempDir(), "pixsandbox"+ext)
	build := exec.Command(goBin, "build", "-trimpath",
		"-ldflags", "-s -w -X main.version=v0.0.0-disttest -X main.commit=0123456789abcdef -X main.date=2026-03-02T12:00:00Z",
		"-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if runtime.GOOS == "linux" {
		assertStatic(t, bin)
	}

	// An empty directory holding only the binary; PATH names an empty directory.
	dir := t.TempDir()
	self := filepath.Join(dir, "pixsandbox"+ext)
	copyFile(t, bin, self)
	emptyPath := t.TempDir()
	env := []string{"PATH=" + emptyPath, "HOME=" + dir}

	out, err := (&exec.Cmd{Path: self, Args: []string{self, "version"}, Dir: dir, Env: env}).Output()
	if err != nil {
		t.Fatalf("pixsandbox version: %v", err)
	}
	if line := string(out); !strings.Contains(line, "v0.0.0-disttest") || !strings.Contains(line, "0123456789abcdef") || !strings.Contains(line, "2026-03-02T12:00:00Z") {
		t.Fatalf("pixsandbox version printed %q, want the stamped version, commit and date", line)
	}
	if out2, err := (&exec.Cmd{Path: self, Args: []string{self, "--version"}, Dir: dir, Env: env}).Output(); err != nil || string(out2) != string(out) {
		t.Fatalf("pixsandbox --version: %v %q, want %q", err, out2, out)
	}

	serve := &exec.Cmd{Path: self, Args: []string{self, "serve", "--addr", "127.0.0.1:0", "--clock", "virtual", "--log-level", "error"}, Dir: dir, Env: env}
	stdout, err := serve.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	serve.Stderr = os.Stderr
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = serve.Process.Kill(); _ = serve.Wait() })
	url := waitListening(t, stdout)
	resp, err := http.Get(url + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"ok"`) {
		t.Fatalf("GET /healthz: %d %s", resp.StatusCode, body)
	}
	if st, err := os.Stat(filepath.Join(dir, ".pixsandbox")); err != nil || !st.IsDir() {
		t.Fatalf("the default data dir was not created in the working directory: %v", err)
	}
}

// waitListening reads a server's stdout until its banner names its URL.
func waitListening(t *testing.T, stdout io.Reader) string {
	t.Helper()
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if _, after, ok := strings.Cut(sc.Text(), "is listening on "); ok {
				found <- strings.Fields(after)[0]
			}
		}
	}()
	select {
	case url := <-found:
		return url
	case <-time.After(60 * time.Second): // wall time: process start-up
		t.Fatal("the server did not print its URL")
		return ""
	}
}

// assertStatic fails unless the ELF binary has no dynamic loader and no shared
// library dependencies.
func assertStatic(t *testing.T, path string) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Fatalf("%s asks for a dynamic loader: not a static binary", path)
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Fatalf("%s needs shared libraries %v", path, libs)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o755); err != nil {
		t.Fatal(err)
	}
}
