package main

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/pixsandbox/pixsandbox/cmd/pixsandbox/internal/cli"
	"github.com/pixsandbox/pixsandbox/conformance/framework"
)

// TestHelp_EveryCommand: `pixsandbox CMD -h` and `--help` print the usage on
// standard output, nothing on standard error, and exit 0.
func TestHelp_EveryCommand(t *testing.T) {
	for _, c := range append(commands, command{name: "help"}) {
		for _, flag := range []string{"-h", "--help"} {
			var out, errb bytes.Buffer
			code := run([]string{c.name, flag}, &out, &errb)
			if code != 0 || errb.Len() != 0 || !strings.Contains(strings.ToLower(out.String()), "usage") {
				t.Errorf("pixsandbox %s %s: exit %d, stdout %d bytes, stderr %q", c.name, flag, code, out.Len(), errb.String())
			}
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"--help"}, &out, &errb); code != 0 || errb.Len() != 0 || !strings.Contains(out.String(), "Usage:") {
		t.Errorf("pixsandbox --help: exit %d, stderr %q", code, errb.String())
	}
	for _, c := range commands {
		if !strings.Contains(out.String(), "pixsandbox "+c.name) {
			t.Errorf("pixsandbox --help does not list %s", c.name)
		}
	}
}

var envMention = regexp.MustCompile(`PIXSANDBOX_[A-Z0-9_]*`)

// recordingLookup remembers every variable a command asks for.
type recordingLookup struct {
	mu   sync.Mutex
	read map[string]bool
}

func (r *recordingLookup) lookup(k string) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.read == nil {
		r.read = map[string]bool{}
	}
	r.read[k] = true
	return "", false
}

// envRead returns the variables command name reads, by running it with a
// recording environment. conform reads os variables through the conformance
// framework, named by its flags under framework.EnvPrefix.
func envRead(t *testing.T, name string) map[string]bool {
	t.Helper()
	rec := &recordingLookup{}
	switch name {
	case "serve":
		m := NewMain(io.Discard, io.Discard)
		m.lookup = rec.lookup
		_ = m.ParseFlags([]string{"-h"})
	case "check-receiver":
		runCheckReceiver(context.Background(), []string{"-h"}, io.Discard, io.Discard, rec.lookup)
	case "healthcheck":
		runHealthcheck([]string{"-h"}, io.Discard, io.Discard, rec.lookup)
	case "conform":
		for _, f := range commandFlags("conform") {
			rec.lookup(framework.EnvPrefix + strings.ToUpper(strings.ReplaceAll(strings.TrimPrefix(f, "--"), "-", "_")))
		}
	default:
		env := cli.Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, Lookup: rec.lookup}
		cli.RunEnv(context.Background(), env, name, []string{"-h"})
	}
	return rec.read
}

// TestHelp_EnvNamesAreRead parses each command's help for PIXSANDBOX_
// variables: a full name must be one the command reads; a prefix
// (PIXSANDBOX_RECEIVER_<FLAG>) must start a variable the command reads.
func TestHelp_EnvNamesAreRead(t *testing.T) {
	for _, c := range commands {
		help, _ := commandHelp(c.name)
		mentions := envMention.FindAllString(help, -1)
		if len(mentions) == 0 {
			continue
		}
		read := envRead(t, c.name)
		for _, name := range mentions {
			if strings.HasSuffix(name, "_") {
				found := false
				for r := range read {
					found = found || strings.HasPrefix(r, name)
				}
				if !found {
					t.Errorf("pixsandbox %s -h names the prefix %s, but the command reads no such variable (it reads %v)", c.name, name, keys(read))
				}
				continue
			}
			if !read[name] {
				t.Errorf("pixsandbox %s -h names %s, which the command does not read (it reads %v)", c.name, name, keys(read))
			}
		}
	}
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestUsageError_OneLineAndHint: a usage error prints the problem on one line
// and a hint naming -h, not the whole usage.
func TestUsageError_OneLineAndHint(t *testing.T) {
	for _, args := range [][]string{
		{"serve", "--nope"}, {"serve", "--clock", "sideways"}, {"token", "--nope"}, {"clock", "rewind"}, {"requests", "--status"},
		{"check-receiver"}, {"cert-header"}, {"completion", "tcsh"}, {"version", "x"}, {"listen"}, {"workspace", "frob"},
	} {
		var out, errb bytes.Buffer
		code := run(args, &out, &errb)
		lines := strings.Split(strings.TrimRight(errb.String(), "\n"), "\n")
		if code != 2 || len(lines) != 2 || !strings.HasPrefix(lines[0], "pixsandbox "+args[0]) || !strings.Contains(lines[1], "pixsandbox "+args[0]+" -h") {
			t.Errorf("%v: exit %d, stderr %q: want 2, one line and a hint", args, code, errb.String())
		}
	}
}

func TestCompletion(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish", "powershell"} {
		var out, errb bytes.Buffer
		if code := run([]string{"completion", sh}, &out, &errb); code != 0 || errb.Len() != 0 {
			t.Fatalf("completion %s: %d %q", sh, code, errb.String())
		}
		for _, want := range []string{"serve", "journal-size", "advance", "forward-to", "requests", "workspace", "snapshot", "from-snapshot", "ginkgo.label-filter", "cashout.confirmed", "med.refunded", "error-code"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("completion %s lacks %q", sh, want)
			}
		}
	}
}

// No PowerShell runs here, so the script's shape is checked instead: one
// native completer, every command a key of both tables with its summary and
// words, apostrophes doubled inside single quotes, and the braces and
// parentheses balanced outside strings.
func TestCompletion_PowerShell(t *testing.T) {
	script := powershellCompletion()
	if strings.Count(script, "Register-ArgumentCompleter -Native -CommandName pixsandbox") != 1 {
		t.Fatalf("no single native completer:\n%s", script)
	}
	for _, c := range commands {
		if strings.Count(script, "        '"+c.name+"' = ") != 2 {
			t.Errorf("command %s is not a key of both tables", c.name)
		}
	}
	if !strings.Contains(script, "'check a partner''s webhook receiver'") {
		t.Error("an apostrophe in a summary is not doubled")
	}
	depth, inQuote := 0, false
	for _, r := range script {
		switch {
		case r == '\'':
			inQuote = !inQuote
		case inQuote:
		case r == '{' || r == '(':
			depth++
		case r == '}' || r == ')':
			depth--
			if depth < 0 {
				t.Fatalf("a closing brace before its opening one:\n%s", script)
			}
		}
	}
	if depth != 0 || inQuote {
		t.Errorf("unbalanced script: depth %d, open quote %v", depth, inQuote)
	}
}
