package cli

import (
	"context"
	"fmt"
	"net/http"
	"os"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/sandboxclient"
)

const tokenUsage = `Usage:
  pixsandbox token [--account N]
  pixsandbox token --client-id ID --client-secret SECRET --cert FILE

Prints an access token (1800 s of simulation time). With --account (default 1,
the first fixture account) the control plane issues it without credentials
(POST /_sandbox/accounts/{id}/token). With client credentials and a PEM
certificate file it goes through the contract's POST /api/auth/token, the
certificate URL-encoded in X-SSL-Client-Cert. The output is the bare token:

  TOKEN=$(pixsandbox token)
  curl -s http://127.0.0.1:8080/api/balance -H "Authorization: Bearer $TOKEN"
`

func cliToken(ctx context.Context, env Env, args []string) int {
	cc := newCLICmd(env, "token", tokenUsage)
	account := cc.fs.Int64("account", 1, "account id whose token the control plane issues")
	clientID := cc.fs.String("client-id", "", "clientId for POST /api/auth/token (with --client-secret and --cert)")
	secret := cc.fs.String("client-secret", "", "clientSecret for POST /api/auth/token")
	cert := cc.fs.String("cert", "", "PEM client certificate file for POST /api/auth/token, e.g. fixtures/certs/account-1.pem")
	pos, code, done := cc.parse(args)
	if done {
		return code
	}
	if len(pos) > 0 {
		return cc.usageError("unexpected arguments %q", pos)
	}
	creds := *clientID != "" || *secret != "" || *cert != ""
	switch {
	case creds && (*clientID == "" || *secret == "" || *cert == ""):
		return cc.usageError("--client-id, --client-secret and --cert go together")
	case creds && cc.isSet("account"):
		return cc.usageError("give --account or client credentials, not both")
	case *account < 1:
		return cc.usageError("--account must be a positive account id, not %d", *account)
	}

	var ans sandboxclient.Token
	var r *sandboxclient.Response
	var err error
	if creds {
		pem, rerr := os.ReadFile(*cert)
		if rerr != nil {
			return cc.fail(fmt.Errorf("read the certificate: %w", rerr))
		}
		r, err = cc.client.CallJSON(ctx, http.MethodPost, "/api/auth/token",
			map[string]string{"clientId": *clientID, "clientSecret": *secret},
			map[string]string{"X-SSL-Client-Cert": pix.EncodeCertHeader(pem)}, &ans, http.StatusCreated)
	} else {
		ans, r, err = cc.client.AccountToken(ctx, *account)
	}
	if err != nil {
		return cc.fail(err)
	}
	if cc.json {
		cc.printRaw(r.Body)
		return cliExitOK
	}
	if ans.AccessToken == "" {
		return cc.fail(fmt.Errorf("%s %s answered without an access_token: %s", r.Method, r.Path, sandboxclient.Excerpt(r.Body)))
	}
	cc.printf("%s\n", ans.AccessToken)
	return cliExitOK
}
