package cmdline

import (
	"flag"
	"strings"
	"testing"
)

// TestApplyEnv: a flag reads its variable, a flag given afterwards wins, and
// a bad value is reported naming the variable.
func TestApplyEnv(t *testing.T) {
	if got := EnvName("data-dir"); got != "PIXSANDBOX_DATA_DIR" {
		t.Errorf("EnvName(data-dir) = %q", got)
	}
	if got := EnvNameIn("PIXSANDBOX_FAULT_", "seed"); got != "PIXSANDBOX_FAULT_SEED" {
		t.Errorf("EnvNameIn = %q", got)
	}
	env := map[string]string{"PIXSANDBOX_ADDR": "127.0.0.1:9999", "PIXSANDBOX_IN_MEMORY": "true"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8080", "")
	mem := fs.Bool("in-memory", false, "")
	if err := ApplyEnv(fs, lookup, EnvName); err != nil {
		t.Fatal(err)
	}
	if err := fs.Parse([]string{"--addr", "127.0.0.1:7777"}); err != nil {
		t.Fatal(err)
	}
	if *addr != "127.0.0.1:7777" || !*mem {
		t.Errorf("addr %q, in-memory %v: want the flag over the variable, the variable over the default", *addr, *mem)
	}
	env["PIXSANDBOX_IN_MEMORY"] = "maybe"
	if err := ApplyEnv(fs, lookup, EnvName); err == nil || !strings.Contains(err.Error(), `PIXSANDBOX_IN_MEMORY="maybe"`) {
		t.Errorf("a bad value: %v", err)
	}
	if got := UsageHint("clock"); got != "Run 'pixsandbox clock -h' for usage.\n" {
		t.Errorf("UsageHint = %q", got)
	}
}
