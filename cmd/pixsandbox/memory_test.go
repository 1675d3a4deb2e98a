package main

import (
	"flag"
	"testing"

	"github.com/pixsandbox/pixsandbox/cmd/pixsandbox/internal/cmdline"
	"github.com/pixsandbox/pixsandbox/cmd/pixsandbox/internal/process"
)

func TestConfig_MemoryLimit(t *testing.T) {
	c := DefaultConfig()
	if c.MemoryLimit != process.DefaultMemoryLimit {
		t.Fatalf("default %s", c.MemoryLimit.String())
	}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	c.RegisterFlags(fs)
	if err := cmdline.ApplyEnv(fs, func(k string) (string, bool) {
		if k == "PIXSANDBOX_MEMORY_LIMIT" {
			return "64MiB", true
		}
		return "", false
	}, cmdline.EnvName); err != nil {
		t.Fatal(err)
	}
	if c.MemoryLimit != 64<<20 {
		t.Fatalf("PIXSANDBOX_MEMORY_LIMIT=64MiB gives %s", c.MemoryLimit.String())
	}
	if err := c.Validate(); err == nil {
		t.Fatal("a budget of 64 MiB is taken")
	}
}
