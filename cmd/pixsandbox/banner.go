package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// PrintBanner tells a new user where the server is and how to call it, with the
// fixture accounts' credentials ready to copy.
func (m *Main) PrintBanner() {
	var b strings.Builder
	url := m.URL()
	fmt.Fprintf(&b, "\npixsandbox is listening on %s (clock %s, data %s)\n\n", url, m.Config.Clock, m.dataDirLabel())
	fmt.Fprintf(&b, "Fixture accounts:\n")
	for _, a := range m.fixtures.Accounts {
		fmt.Fprintf(&b, "  account %d  %s (%s)  balance %s\n", a.ID, a.Name, a.Document, a.Balance)
		fmt.Fprintf(&b, "    clientId      %s\n    clientSecret  %s\n    certificate   %s\n", a.ClientID, a.ClientSecret, m.certPath(a.Certificate))
	}
	if len(m.fixtures.Accounts) > 0 {
		a := m.fixtures.Accounts[0]
		fmt.Fprintf(&b, "\nGet a token for account %d and read its balance:\n\n", a.ID)
		fmt.Fprintf(&b, "  CERT=$(%s cert-header %s)\n", selfPath(), m.certPath(a.Certificate))
		fmt.Fprintf(&b, "  TOKEN=$(curl -s -X POST %s/api/auth/token \\\n", url)
		fmt.Fprintf(&b, "    -H 'Content-Type: application/json' -H \"X-SSL-Client-Cert: $CERT\" \\\n")
		fmt.Fprintf(&b, "    -d '{\"clientId\":\"%s\",\"clientSecret\":\"%s\"}' \\\n", a.ClientID, a.ClientSecret)
		fmt.Fprintf(&b, "    | grep -o '\"access_token\":\"[^\"]*' | cut -d'\"' -f4)\n")
		fmt.Fprintf(&b, "  curl -s %s/accounts/balances -H \"Authorization: Bearer $TOKEN\"\n", url)
	}
	if m.Config.ControlPlane {
		fmt.Fprintf(&b, "\nConsole: %s/_sandbox/console\n", url)
		fmt.Fprintf(&b, "Control plane: %s/_sandbox/clock, /_sandbox/accounts, /_sandbox/jobs, /_sandbox/scenarios (docs/openapi.yaml)\n", url)
		fmt.Fprintf(&b, "CLI: %s token | trigger SCENARIO | clock advance 5s | webhooks tail | reset --yes (docs/cli.md)\n", selfPath())
	}
	fmt.Fprintf(&b, "Health: %s/healthz   Metrics: %s/metrics   Stop: Ctrl-C\n\n", url, url)
	fmt.Fprint(m.stdout, b.String())
}

// selfPath is how to call this binary again: its path when it is a built binary,
// else `go run ./cmd/pixsandbox` (under go run the binary sits in a temp dir).
func selfPath() string {
	exe, err := os.Executable()
	if err != nil || strings.Contains(exe, os.TempDir()+string(filepath.Separator)+"go-build") {
		return "go run ./cmd/pixsandbox"
	}
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, exe); err == nil && !strings.HasPrefix(rel, "..") {
			return "./" + rel
		}
	}
	return exe
}
