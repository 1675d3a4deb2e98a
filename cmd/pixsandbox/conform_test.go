package main

import (
	"bytes"
	"strings"
	"testing"
)

// The usage paths of conform; whole runs are exercised by TestSelfCheck (as a
// separate process: Ginkgo runs one suite per process).
func TestConform_Usage(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "-target is required"},
		{[]string{"--target", "ftp://x"}, 2, "-target"},
		{[]string{"--target", "http://127.0.0.1:1", "extra"}, 2, "unexpected arguments"},
		{[]string{"--target", "http://127.0.0.1:1", "--client-id", "x"}, 2, "go together"},
		{[]string{"--no-such-flag"}, 2, "flag provided but not defined"},
		{[]string{"-h"}, 0, "spec && !sandbox && !sandbox-choice"},
	} {
		var out, errOut bytes.Buffer
		code := conform(c.args, &out, &errOut)
		if code != c.code || !strings.Contains(errOut.String(), c.want) {
			t.Errorf("conform %q: exit %d, stderr %q; want exit %d and %q", c.args, code, errOut.String(), c.code, c.want)
		}
	}
}
