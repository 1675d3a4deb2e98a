package cli

import (
	"context"
	"encoding/json"
	"regexp"
)

const payUsage = `Usage:
  pixsandbox pay (--pix-code CODE | --txid TXID | --transaction-id ID) [--amount 12.34] [--payer-document DOC]

Pays a charge as a payer's bank would (POST /_sandbox/payments): a cash-in
charge by its pixCode or transactionId, a cob by its txid (or pixCopiaECola).
The amount defaults to the charge's. Prints the end-to-end id, the receiving
transaction and the amounts. The server answers 404 for an unknown charge,
409 for one expired, removed or already paid, and 422 for a wrong amount.
`

// cliDecimal is an amount as typed: digits with an optional fraction.
var cliDecimal = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)

func cliPay(ctx context.Context, env Env, args []string) int {
	cc := newCLICmd(env, "pay", payUsage)
	pixCode := cc.fs.String("pix-code", "", "the charge's BR Code (a cash-in pixCode or a cob's pixCopiaECola)")
	txid := cc.fs.String("txid", "", "a cob's txid, or a cash-in charge's own txid")
	txnID := cc.fs.String("transaction-id", "", "a cash-in charge's transactionId")
	amount := cc.fs.String("amount", "", "amount in BRL, e.g. 12.34 (default: the charge's)")
	payerName := cc.fs.String("payer-name", "", "payer's name (default Pagador da Silva)")
	payerDoc := cc.fs.String("payer-document", "", "payer's CPF or CNPJ, digits only (default 52998224725)")
	payerISPB := cc.fs.String("payer-ispb", "", "payer's institution, an ISPB of GET /_sandbox/banks (default: chosen from the document)")
	pos, code, done := cc.parse(args)
	if done {
		return code
	}
	if len(pos) > 0 {
		return cc.usageError("unexpected arguments %q", pos)
	}
	body := map[string]any{}
	n := 0
	for _, f := range []struct {
		field string
		v     string
	}{{"pixCode", *pixCode}, {"txid", *txid}, {"transactionId", *txnID}} {
		if f.v != "" {
			body[f.field] = f.v
			n++
		}
	}
	if n != 1 {
		return cc.usageError("name the charge with exactly one of --pix-code, --txid or --transaction-id")
	}
	if *amount != "" {
		if !cliDecimal.MatchString(*amount) {
			return cc.usageError("--amount %q must be a number such as 12.34", *amount)
		}
		body["amount"] = json.Number(*amount)
	}
	payer := map[string]string{}
	for k, v := range map[string]string{"name": *payerName, "document": *payerDoc, "ispb": *payerISPB} {
		if v != "" {
			payer[k] = v
		}
	}
	if len(payer) > 0 {
		body["payer"] = payer
	}

	p, r, err := cc.client.Pay(ctx, body)
	if err != nil {
		return cc.fail(err)
	}
	if cc.json {
		cc.printRaw(r.Body)
		return cliExitOK
	}
	cc.printf("paid: endToEndId %s, transaction %s, amount %s, fee %s, credited %s\n",
		p.EndToEndID, p.TransactionID, p.Amount, p.FeeAmount, p.FinalAmount)
	cc.printf("see it: curl -s %s\n", cc.client.SandboxURL("/_sandbox/transactions/"+p.TransactionID))
	return cliExitOK
}
