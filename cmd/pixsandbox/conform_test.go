package main

import (
	"bytes"
	"strings"
	"testing"
)

// The usage paths of conform, and --list; whole runs are exercised by
// TestSelfCheck and TestConformPartialTarget (as separate processes: Ginkgo
// runs one suite per process).
func TestConform_Usage(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--target", "http://127.0.0.1:1", "--auth", "basic"}, 2, "-auth \"basic\""},
		{[]string{"--target", "http://127.0.0.1:1", "--token", "a", "--token-command", "echo b"}, 2, "exclude each other"},
		{[]string{"--target", "http://127.0.0.1:1", "--auth", "none", "--token", "a"}, 2, "-auth none sends no token"},
		{[]string{"--target", "http://127.0.0.1:1", "--tls-client-cert", "c.pem"}, 2, "-tls-client-key go together"},
		{[]string{"--target", "http://127.0.0.1:1", "--token-path", "api/token"}, 2, "-token-path"},
		{[]string{"--target", "http://127.0.0.1:1", "--focus", "("}, 2, "-focus"},
		{[]string{"--list", "--labels", "res:cob &&"}, 2, "-labels"},
		{[]string{"--target", "ftp://x"}, 2, "-target"},
		{[]string{"--target", "http://127.0.0.1:1", "extra"}, 2, "unexpected arguments"},
		{[]string{"--target", "http://127.0.0.1:1", "--client-id", "x"}, 2, "go together"},
		{[]string{"--no-such-flag"}, 2, "flag provided but not defined"},
		{[]string{"--target", "http://127.0.0.1:1", "--auth", "header"}, 2, "-auth header needs at least one -header"},
		{[]string{"--target", "http://127.0.0.1:1", "--header", "bad name: v"}, 2, "not a valid header name"},
		{[]string{"-h"}, 0, "--header 'Name: value'"},
		{[]string{"-h"}, 0, "spec && !sandbox && !sandbox-choice"},
		{[]string{"-h"}, 0, "--allow-clock-moves"},
		{[]string{"--list", "--labels", "res:cob && spec", "--focus", "409"}, 0, "1 checks selected"},
	} {
		var out, errOut bytes.Buffer
		code := conform(c.args, &out, &errOut)
		if code != c.code || !strings.Contains(errOut.String(), c.want) {
			t.Errorf("conform %q: exit %d, stderr %q; want exit %d and %q", c.args, code, errOut.String(), c.code, c.want)
		}
	}
}
