package main

import (
	"context"
	"flag"
	"sync/atomic"
	"testing"
	"time"
)

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"268435456": 256 << 20, "256MiB": 256 << 20, "256mb": 256 << 20, "1GiB": 1 << 30,
		"2g": 2 << 30, "64k": 64 << 10, " 512 MiB ": 512 << 20} {
		if got, err := parseBytes(in); err != nil || got != want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "MiB", "-1", "1.5GiB", "12XB", "99999999999GiB"} {
		if _, err := parseBytes(in); err == nil {
			t.Errorf("parseBytes(%q) took it", in)
		}
	}
	if s := byteSize(256 << 20); s.String() != "256MiB" {
		t.Errorf("256 MiB prints as %s", s.String())
	}
}

func TestConfig_MemoryLimit(t *testing.T) {
	c := DefaultConfig()
	if c.MemoryLimit != DefaultMemoryLimit {
		t.Fatalf("default %s", c.MemoryLimit.String())
	}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	c.RegisterFlags(fs)
	if err := ApplyEnv(fs, func(k string) (string, bool) {
		if k == "PIXSANDBOX_MEMORY_LIMIT" {
			return "64MiB", true
		}
		return "", false
	}); err != nil {
		t.Fatal(err)
	}
	if c.MemoryLimit != 64<<20 {
		t.Fatalf("PIXSANDBOX_MEMORY_LIMIT=64MiB gives %s", c.MemoryLimit.String())
	}
	if err := c.Validate(); err == nil {
		t.Fatal("a budget of 64 MiB is taken")
	}
	if got := mappedReserve(256 << 20); got != 64<<20 {
		t.Errorf("a budget of 256 MiB leaves %d MiB outside the heap", got>>20)
	}
}

// TestReleaseIdle: the heap is given back once, when a period with writes is
// followed by one without; not while writes go on, nor again while idle.
func TestReleaseIdle(t *testing.T) {
	var writes, released atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		releaseIdle(ctx, 5*time.Millisecond, writes.Load, func() { released.Add(1) })
	}()
	time.Sleep(30 * time.Millisecond) // idle from the start: nothing to give back
	if released.Load() != 0 {
		t.Fatal("released before any write")
	}
	for range 10 {
		writes.Add(1)
		time.Sleep(2 * time.Millisecond)
	}
	deadline := time.Now().Add(5 * time.Second)
	for released.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(30 * time.Millisecond)
	cancel()
	<-done
	if n := released.Load(); n != 1 {
		t.Fatalf("released %d times after one load", n)
	}
}
