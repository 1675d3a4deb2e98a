package contract

import (
	"encoding/json"
	"fmt"

	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
)

// consistency applies the rules that tie a success body to the request or to
// itself (resp.echo, resp.consistent), per route.
func consistency(ex *Exchange, rt *Route, v any) []Finding {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	req, _ := ex.ReqValue()
	_, params := ex.Route()
	c := &consistencyCheck{ex: ex, rt: rt, resp: obj}
	switch rt.Name {
	case "balance.bacen":
		if data, ok := obj["data"].([]any); ok && len(data) != 1 {
			c.inconsistent(resBalance, "data", "exactly one item", fmt.Sprintf("%d items", len(data)))
		}
	case "balance.get", "balance.get.api":
		c.grossBalance()
	case "transfer.create":
		c.echoMoney(secDict, "payment.amount", req, "payment.amount")
	case "cashout.create":
		c.echoString(resCashOut, "externalId", req, "externalId")
	case "cashin.create":
		c.echoString(resCashIn, "externalId", req, "transaction.externalId")
		c.qrCodeImage(req)
	case "cob.put", "cob.get", "cob.patch":
		c.cob(params["txid"], req)
	case "refund.put", "refund.get":
		c.echoValue(ResRefund, "id", params["id"])
		if rt.Name == "refund.put" {
			c.echoMoney(ResRefund, "valor", req, "valor")
		}
	case "refundin.create":
		c.echoMoney(resRefundIn, "refundValue", req, "refundValue")
		c.echoString(resRefundIn, "externalId", req, "externalId")
	case "transactions.list", "transactions.bykey":
		c.movementTypes()
	}
	return c.out
}

type consistencyCheck struct {
	ex   *Exchange
	rt   *Route
	resp map[string]any
	out  []Finding
}

func (c *consistencyCheck) add(id, sec, field, expected, seen, msg string) {
	f := NewFinding(id, c.ex, sec)
	f.Field, f.Expected, f.Seen, f.Message = field, expected, seen, msg
	c.out = append(c.out, f)
}

func (c *consistencyCheck) inconsistent(sec, field, expected, seen string) {
	c.add("resp.consistent", sec, field, expected, seen, fmt.Sprintf("%s is %s, want %s", field, seen, expected))
}

// echoValue checks that the response's field equals want (when want is set
// and the field is a string).
func (c *consistencyCheck) echoValue(sec, field, want string) {
	got, ok := apiclient.Lookup(c.resp, field)
	s, isStr := got.(string)
	if want == "" || !ok || !isStr || s == want {
		return
	}
	c.add("resp.echo", sec, field, fmt.Sprintf("%q (the request's)", want), fmt.Sprintf("%q", s),
		fmt.Sprintf("%s is %q, not the request's %q", field, s, want))
}

// echoString checks that field echoes the request's string at reqPath.
func (c *consistencyCheck) echoString(sec, field string, req any, reqPath string) {
	w, ok := apiclient.Lookup(req, reqPath)
	if s, isStr := w.(string); ok && isStr {
		c.echoValue(sec, field, s)
	}
}

// echoMoney checks that the money at field equals the request's at reqPath.
func (c *consistencyCheck) echoMoney(sec, field string, req any, reqPath string) {
	w, ok1 := apiclient.Lookup(req, reqPath)
	g, ok2 := apiclient.Lookup(c.resp, field)
	if !ok1 || !ok2 {
		return
	}
	wc, err1 := apiclient.Cents(w)
	gc, err2 := apiclient.Cents(g)
	if err1 != nil || err2 != nil || wc == gc {
		return
	}
	c.add("resp.echo", sec, field, apiclient.FormatCents(wc)+" (the request's)", apiclient.FormatCents(gc),
		fmt.Sprintf("%s is %s, not the request's %s", field, apiclient.FormatCents(gc), apiclient.FormatCents(wc)))
}

// grossBalance: "grossBalance = available + blocked; blockedBalance =
// blocked; netBalance = available", so gross is net plus blocked.
func (c *consistencyCheck) grossBalance() {
	var cents [3]int64
	for i, field := range []string{"grossBalance", "netBalance", "blockedBalance"} {
		n, ok := c.resp[field].(json.Number)
		v, err := apiclient.Cents(n)
		if !ok || err != nil {
			return // a field missing or of the wrong type is another rule's
		}
		cents[i] = v
	}
	if gross, want := cents[0], cents[1]+cents[2]; gross != want {
		c.inconsistent(resBalance+", mapping to the standard balance", "grossBalance",
			apiclient.FormatCents(want)+" (netBalance + blockedBalance)", apiclient.FormatCents(gross))
	}
}

// qrCodeImage: "present only when generateQrCode is true".
func (c *consistencyCheck) qrCodeImage(req any) {
	gen, _ := apiclient.Lookup(req, "transaction.generateQrCode")
	_, present := c.resp["qrCodeImage"]
	switch {
	case gen == true && !present:
		c.inconsistent(resCashIn, "qrCodeImage", "present (generateQrCode is true)", "absent")
	case gen != true && present:
		c.inconsistent(resCashIn, "qrCodeImage", "absent (generateQrCode is not true)", "present")
	}
}

func (c *consistencyCheck) cob(txid string, req any) {
	c.echoValue(ResCob, "txid", txid)
	if loc, ok := apiclient.Lookup(c.resp, "loc.location"); ok {
		if l, ok := c.resp["location"]; ok && l != loc {
			c.inconsistent(ResCob, "location", fmt.Sprintf("loc.location (%s)", Render(loc)), Render(l))
		}
	}
	if c.rt.Name != "cob.put" {
		return
	}
	if r, ok := c.resp["revisao"].(json.Number); ok && !apiclient.SameNumber(string(r), "0") {
		c.inconsistent(ResCob, "revisao", "0 at creation", string(r))
	}
	c.echoMoney(ResCob, "valor.original", req, "valor.original")
}

// movementType per operationType ("GET /api/transactions", display mapping).
var movementOf = map[string]string{"Pix in": "CREDIT", "Refund out": "CREDIT", "Pix out": "DEBIT", "Refund in": "DEBIT"}

func (c *consistencyCheck) movementTypes() {
	data, _ := c.resp["data"].([]any)
	for i, it := range data {
		item, _ := it.(map[string]any)
		op, _ := item["operationType"].(string)
		mv, _ := item["movementType"].(string)
		if want, ok := movementOf[op]; ok && mv != "" && mv != want {
			c.add("resp.consistent", "Endpoints > GET /api/transactions (display mapping)", fmt.Sprintf("data[%d].movementType", i),
				want+" (operationType "+op+")", mv, fmt.Sprintf("data[%d] is %s with movementType %s, want %s", i, op, mv, want))
		}
	}
}
