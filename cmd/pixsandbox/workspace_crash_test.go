package main

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/badgerstore"
)

// fillWorkspace makes a workspace on c with n PIX received by its first
// account (about ten keys each) and returns its id.
func fillWorkspace(t *testing.T, c *child, n int) string {
	t.Helper()
	st, w := c.do(t, "POST", "/_sandbox/workspaces", `{"accounts":"fixtures","ttl":"0"}`, nil)
	if st != http.StatusCreated {
		t.Fatalf("create: %d %v", st, w)
	}
	id := w["id"].(string)
	key := w["accounts"].([]any)[0].(map[string]any)["pixKeys"].([]any)[1].(map[string]any)["key"].(string)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if st, b := c.do(t, "POST", "/_sandbox/workspaces/"+id+"/pix-in", `{"key":"`+key+`","amount":1}`, nil); st != http.StatusCreated {
				t.Errorf("pix-in: %d %v", st, b)
			}
		}()
	}
	wg.Wait()
	return id
}

// workspaceState is what a test compares of a workspace: its accounts and
// their balances, and whether its ledger holds.
func workspaceState(t *testing.T, c *child, id string) (status int, state string) {
	t.Helper()
	st, accts := c.do(t, "GET", "/_sandbox/workspaces/"+id+"/accounts", "", nil)
	if st != http.StatusOK {
		return st, ""
	}
	_, inv := c.do(t, "GET", "/_sandbox/workspaces/"+id+"/invariants", "", nil)
	return st, fmt.Sprint(accts["accounts"], inv["ok"])
}

// spacesOnDisk lists the workspaces that have keys in a stopped server's
// data directory.
func spacesOnDisk(t *testing.T, dir string) []string {
	t.Helper()
	s, err := badgerstore.Open(badgerstore.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ids, err := s.Spaces()
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// stop ends a child gracefully (SIGTERM), so its data dir can be opened.
func (c *child) stop(t *testing.T) {
	t.Helper()
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		c.kill(t)
	}
}

// sendAndKill sends a request and SIGKILLs the server after delay, whatever
// the request has done by then.
func sendAndKill(t *testing.T, c *child, method, path, body string, delay time.Duration) {
	t.Helper()
	go func() {
		req, _ := http.NewRequestWithContext(context.Background(), method, c.url+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	time.Sleep(delay)
	c.kill(t)
}

// A SIGKILL during a workspace's deletion leaves it whole or gone: after a
// restart it answers as before, or it is unknown and no key of it is left.
func TestCrash_WorkspaceDelete(t *testing.T) {
	if testing.Short() {
		t.Skip("SIGKILLs server processes")
	}
	t.Parallel() // child processes only: runs beside the other long tests
	outcomes := map[string]int{}
	for i, delay := range []time.Duration{0, 2 * time.Millisecond, 8 * time.Millisecond, 30 * time.Millisecond} {
		dir := t.TempDir()
		c := startChild(t, dir)
		id := fillWorkspace(t, c, 600)
		_, before := workspaceState(t, c, id)
		sendAndKill(t, c, "DELETE", "/_sandbox/workspaces/"+id, "", delay)

		c = startChild(t, dir)
		st, after := workspaceState(t, c, id)
		switch st {
		case http.StatusOK:
			outcomes["whole"]++
			if after != before {
				t.Errorf("run %d (kill after %v): the workspace survived changed:\nbefore %s\nafter  %s", i, delay, before, after)
			}
		case http.StatusNotFound:
			outcomes["gone"]++
		default:
			t.Fatalf("run %d: the workspace after a restart: %d", i, st)
		}
		c.stop(t)
		left := spacesOnDisk(t, dir)
		if st == http.StatusNotFound && slices.Contains(left, id) {
			t.Errorf("run %d (kill after %v): the deleted workspace left keys after a restart", i, delay)
		}
	}
	t.Logf("outcomes: %v", outcomes)
}

// A SIGKILL while a workspace is created from a snapshot leaves the copy
// whole or absent: after a restart the server lists either the original
// alone (and no key of a copy is left) or the original and a complete copy.
func TestCrash_WorkspaceImport(t *testing.T) {
	if testing.Short() {
		t.Skip("SIGKILLs server processes")
	}
	t.Parallel() // child processes only: runs beside the other long tests
	copies := map[int]int{}
	defer func() { t.Logf("workspaces after a restart: %v", copies) }()
	for i, delay := range []time.Duration{1 * time.Millisecond, 5 * time.Millisecond, 20 * time.Millisecond, 80 * time.Millisecond} {
		dir := t.TempDir()
		c := startChild(t, dir)
		id := fillWorkspace(t, c, 600)
		_, before := workspaceState(t, c, id)
		st, snap := rawCall(t, "GET", c.url+"/_sandbox/workspaces/"+id+"/snapshot", "", nil)
		if st != http.StatusOK {
			t.Fatalf("snapshot: %d", st)
		}
		sendAndKill(t, c, "POST", "/_sandbox/workspaces", `{"snapshot":`+snap+`}`, delay)

		c = startChild(t, dir)
		_, list := c.do(t, "GET", "/_sandbox/workspaces", "", nil)
		var ids []string
		for _, w := range list["data"].([]any) {
			ids = append(ids, w.(map[string]any)["id"].(string))
		}
		copies[len(ids)]++
		switch len(ids) {
		case 1:
		case 2:
			copyID := ids[0]
			if copyID == id {
				copyID = ids[1]
			}
			if _, got := workspaceState(t, c, copyID); got != before {
				t.Errorf("run %d (kill after %v): the copy is not whole:\nwant %s\ngot  %s", i, delay, before, got)
			}
		default:
			t.Fatalf("run %d: %d workspaces after a restart: %v", i, len(ids), ids)
		}
		c.stop(t)
		if left := spacesOnDisk(t, dir); len(left) != len(ids) {
			t.Errorf("run %d (kill after %v): keys of %d workspaces on disk, %d listed", i, delay, len(left), len(ids))
		}
	}
}
