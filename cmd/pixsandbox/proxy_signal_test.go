//go:build unix

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestProxyCmd_CtrlC: SIGINT to the proxy's whole process group, as a
// terminal's Ctrl-C sends it, ends the run with every exchange judged by
// the judging process: the report has the finding and that process's model,
// and nothing was lost.
func TestProxyCmd_CtrlC(t *testing.T) {
	up := dupUpstream(t)
	jsonPath := filepath.Join(t.TempDir(), "report.json")
	cmd := childCommand(t, nil, []string{"proxy", "--upstream", up.URL, "--addr", "127.0.0.1:0", "--json", jsonPath, "--fail-on", "none"})
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer // read once Wait has returned
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	sc := bufio.NewScanner(out)
	if !sc.Scan() {
		t.Fatal("the proxy printed nothing")
	}
	postDupCashOuts(t, strings.Fields(strings.TrimPrefix(sc.Text(), "pixsandbox proxy: "))[0])
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(out)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit: %v\nstdout: %s\nstderr: %s", err, rest, errb.String())
		}
	case <-time.After(30 * time.Second): // wall clock: how long a test waits for a shutdown
		t.Fatal("the proxy did not end after SIGINT")
	}
	if strings.Contains(errb.String(), "judging process ended") {
		t.Errorf("the judging process ended with the signal:\n%s", errb.String())
	}
	var rep struct {
		Counts   struct{ State int } `json:"counts"`
		Judging  string              `json:"judging"`
		Unjudged int                 `json:"unjudged"`
		Model    map[string]int      `json:"model"`
	}
	b, err := os.ReadFile(jsonPath)
	if err != nil || json.Unmarshal(b, &rep) != nil {
		t.Fatalf("JSON report: %v %s", err, b)
	}
	if rep.Counts.State != 1 || rep.Judging != "process" || rep.Unjudged != 0 || rep.Model["externalIds"] != 1 {
		t.Errorf("report: %d state findings, judging %q, %d unjudged, model %v: want 1, process, 0 and one externalId", rep.Counts.State, rep.Judging, rep.Unjudged, rep.Model)
	}
}
