package conformance

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/pixsandbox/pixsandbox/conformance/framework"
	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
	"github.com/pixsandbox/pixsandbox/conformance/framework/sandbox"
)

// cobPath returns the path of the immediate charge txid.
func cobPath(txid string) string { return "/cob/" + url.PathEscape(txid) }

// Statuses of "Resources > Immediate charge (cob)".
const (
	cobAtiva           = "ATIVA"
	cobConcluida       = "CONCLUIDA"
	cobRemovidaUsuario = "REMOVIDA_PELO_USUARIO_RECEBEDOR"
	cobRemovidaPeloPSP = "REMOVIDA_PELO_PSP"
)

// What the suite's charges carry unless a check changes it.
const (
	cobSolicitacao      = "conformance cob"
	cobDefaultOriginal  = "25.00"
	cobDefaultExpiracao = 3600
)

// newTxID returns a fresh txid: 31 alphanumerics, inside 26..35.
func newTxID(f *framework.Framework) string { return f.UniqueID("conformance") }

// evpKey returns a sandbox account's EVP key, failing the spec when it has none.
func evpKey(a *sandbox.Account) string {
	ginkgo.GinkgoHelper()
	gomega.Expect(a).NotTo(gomega.BeNil(), "a sandbox account")
	for _, k := range a.PixKeys {
		if k.Type == "EVP" {
			return k.Key
		}
	}
	ginkgo.Fail("the account has no EVP key among its keys")
	return ""
}

// ownKey returns the chave of the spec's charges: -pix-key when given, the
// account's EVP key on a sandbox, or "" (no chave) otherwise.
func ownKey(f *framework.Framework) string {
	ginkgo.GinkgoHelper()
	switch {
	case f.Config.PixKey != "":
		return f.Config.PixKey
	case f.Account != nil:
		return evpKey(f.Account)
	}
	return ""
}

// cobBody returns a valid PUT /cob body for original (decimal string) with
// chave key (omitted when empty), changed by mods.
func cobBody(key, original string, mods ...func(m map[string]any)) map[string]any {
	m := map[string]any{
		"calendario":         map[string]any{"expiracao": cobDefaultExpiracao},
		"valor":              map[string]any{"original": original},
		"solicitacaoPagador": cobSolicitacao,
	}
	if key != "" {
		m["chave"] = key
	}
	for _, mod := range mods {
		mod(m)
	}
	return m
}

// validDevedor sets a devedor with a valid 11-digit cpf: the control of the
// devedor refusals.
func validDevedor(m map[string]any) {
	m["devedor"] = map[string]any{"cpf": sampleCPF, "nome": holderName}
}

// withExpiracao sets calendario.expiracao.
func withExpiracao(seconds int) func(m map[string]any) {
	return func(m map[string]any) { m["calendario"] = map[string]any{"expiracao": seconds} }
}

// putCobAs sends PUT /cob/{txid} with token.
func putCobAs(ctx context.Context, f *framework.Framework, token, txid string, m map[string]any, scenario string) *apiclient.Response {
	ginkgo.GinkgoHelper()
	return f.Do(ctx, http.MethodPut, cobPath(txid), token, encodeJSON(m), withScenario(nil, scenario))
}

// putCob sends PUT /cob/{txid} with the spec's token.
func putCob(ctx context.Context, f *framework.Framework, txid string, m map[string]any, scenario string) *apiclient.Response {
	ginkgo.GinkgoHelper()
	return putCobAs(ctx, f, f.Token(ctx), txid, m, scenario)
}

// createCob creates a cob that must be accepted (2xx, status ATIVA) with the
// spec's token and returns the response.
func createCob(ctx context.Context, f *framework.Framework, txid string, m map[string]any, scenario string) *apiclient.Response {
	ginkgo.GinkgoHelper()
	r := putCob(ctx, f, txid, m, scenario)
	gomega.Expect(r).To(framework.HaveSuccessStatus())
	gomega.Expect(r).To(framework.HaveJSONField("status", cobAtiva))
	return r
}

// controlCob sends the control of a cob refusal, PUT /cob/{txid} with m and
// the spec's token, which must be accepted (2xx); otherwise the check ends
// as control refused (framework.Control).
func controlCob(ctx context.Context, f *framework.Framework, what, txid string, m map[string]any) {
	ginkgo.GinkgoHelper()
	framework.Control(what, encodeJSON(m), putCob(ctx, f, txid, m, ""))
}

// getCobAs reads GET /cob/{txid} with token, requiring 200.
func getCobAs(ctx context.Context, f *framework.Framework, token, txid string) *apiclient.Response {
	ginkgo.GinkgoHelper()
	f.Needs(ctx, "GET /cob/{txid}")
	r := f.Do(ctx, http.MethodGet, cobPath(txid), token, nil, nil)
	gomega.Expect(r).To(framework.HaveStatus(http.StatusOK))
	return r
}

// cobStatus reads the status of the spec's cob txid with GET /cob/{txid}.
func cobStatus(ctx context.Context, f *framework.Framework, txid string) string {
	ginkgo.GinkgoHelper()
	return stringField(getCobAs(ctx, f, f.Token(ctx), txid), "status")
}

// patchCob sends PATCH /cob/{txid} with the spec's token.
func patchCob(ctx context.Context, f *framework.Framework, txid string, m map[string]any) *apiclient.Response {
	ginkgo.GinkgoHelper()
	return f.Do(ctx, http.MethodPatch, cobPath(txid), f.Token(ctx), encodeJSON(m), nil)
}

// removal is the PATCH body that removes a cob.
var removal = map[string]any{"status": cobRemovidaUsuario}

// expectReceiveWebhook checks a RECEIVE webhook ("Events > Envelope V2") of a
// cob payment: txId, LIQUIDATED, payment.amount the amount as a string with 2
// decimals, BRL, and a debtorAccount with a name and a masked document.
func expectReceiveWebhook(d framework.Delivery, txid, amount string) {
	ginkgo.GinkgoHelper()
	gomega.Expect(d).To(framework.HaveJSONField("type", "RECEIVE"))
	gomega.Expect(d).To(framework.HaveJSONField("data.id", gomega.Not(gomega.BeNil())))
	gomega.Expect(d).To(framework.HaveJSONField("data.txId", txid))
	gomega.Expect(d).To(framework.HaveJSONField("data.status", "LIQUIDATED"))
	gomega.Expect(d).To(framework.HaveJSONField("data.payment.amount", gomega.And(gomega.BeAssignableToTypeOf(""), gomega.MatchRegexp(`^\d+\.\d{2}$`))))
	gomega.Expect(d).To(framework.HaveJSONField("data.payment.amount", amount))
	gomega.Expect(d).To(framework.HaveJSONField("data.payment.currency", "BRL"))
	gomega.Expect(d).To(framework.HaveJSONField("data.endToEndId", gomega.MatchRegexp(endToEndPattern)))
	gomega.Expect(d).To(framework.HaveJSONField("data.debtorAccount.name", nonEmptyString()))
	gomega.Expect(d).To(framework.HaveJSONField("data.debtorAccount.document", nonEmptyString()))
}

var _ = ginkgo.Describe("PUT /cob/{txid}", framework.Res("cob"), framework.FamilyBacen, func() {
	f := framework.New("cob")

	/*
		Check: cob/created
		Spec: "Endpoints > PUT /cob/{txid}"; "Resources > Immediate charge (cob)" (calendario.criacao ISO 8601; txid echo of the path; revisao 0 at creation; loc.tipoCob cob; location the same value as loc.location, an EMV copy-and-paste code); "States and transitions > Immediate charge (cob)" (creation → ATIVA)
		Description: A valid PUT /cob/{txid} with a fresh txid of 31 alphanumerics MUST be answered
		2xx with txid equal to the path's, revisao the number 0, status ATIVA, calendario.criacao in
		ISO 8601, calendario.expiracao 3600, loc.id a number, loc.tipoCob "cob", loc.location equal
		to location and a valid BR Code (framework.BeValidBRCode: the contract says "EMV
		copy-and-paste code", static or dynamic, so a single-use code without a location URL
		passes here; the Central Bank's rules of a dynamic code's location and the sandbox's
		dynamic form are cob/br-code-form, a sandbox choice), valor.original "25.00",
		solicitacaoPagador echoed, and chave a string (the one sent, when the suite knows a key of
		the account).
	*/
	framework.SpecIt("creates an ATIVA charge with revisao 0, tipoCob cob and the BR Code in loc.location and location", func(ctx ginkgo.SpecContext) {
		txid, key := newTxID(f), ownKey(f)
		r := putCob(ctx, f, txid, cobBody(key, cobDefaultOriginal), "")
		gomega.Expect(r).To(framework.HaveSuccessStatus())
		gomega.Expect(r).To(framework.HaveJSONField("txid", txid))
		gomega.Expect(r).To(framework.HaveJSONNumber("revisao"))
		gomega.Expect(r).To(framework.HaveJSONField("revisao", 0))
		gomega.Expect(r).To(framework.HaveJSONField("status", cobAtiva))
		gomega.Expect(r).To(framework.HaveJSONField("calendario.criacao", framework.BeISO8601()))
		gomega.Expect(r).To(framework.HaveJSONField("calendario.expiracao", cobDefaultExpiracao))
		gomega.Expect(r).To(framework.HaveJSONNumber("loc.id"))
		gomega.Expect(r).To(framework.HaveJSONField("loc.tipoCob", "cob"))
		location := stringField(r, "location")
		gomega.Expect(r).To(framework.HaveJSONField("loc.location", location))
		gomega.Expect(location).To(framework.BeValidBRCode(), "location")
		gomega.Expect(r).To(framework.HaveJSONField("valor.original", cobDefaultOriginal))
		gomega.Expect(r).To(framework.HaveJSONField("solicitacaoPagador", cobSolicitacao))
		gomega.Expect(r).To(framework.HaveJSONField("chave", gomega.BeAssignableToTypeOf("")))
		if key != "" {
			gomega.Expect(r).To(framework.HaveJSONField("chave", key))
		}
	})

	/*
		Check: cob/success-status
		Gap G-12: the success status of PUT /cob/{txid} is "not shown" (docs/spec-gaps.md); the sandbox answers 201, as the Central Bank reference does
		Description: A valid PUT /cob/{txid} MUST be answered exactly 201.
	*/
	framework.SandboxChoiceIt("answers a created charge with 201", func(ctx ginkgo.SpecContext) {
		r := putCob(ctx, f, newTxID(f), cobBody(ownKey(f), cobDefaultOriginal), "")
		gomega.Expect(r).To(framework.HaveStatus(http.StatusCreated))
	})

	/*
		Check: cob/br-code-form
		Gap G-35: the sandbox adds the Central Bank's pixCopiaECola, the same BR Code as location; G-42: the sandbox's BR Codes are dynamic (point of initiation 12, location qr.pixsandbox.example/qr/v2/<32 hex>, MCC 0000, no amount, city SAO PAULO, 62-05 ***)
		Description: A created charge MUST carry pixCopiaECola equal to location, and location MUST
		be a valid BR Code with 01 = 12, 26-25 = qr.pixsandbox.example/qr/v2/ followed by 32
		lowercase hexadecimal characters, 52 = 0000, no field 54, 59 the account holder's name (on a
		sandbox) with accents removed, 60 = SAO PAULO and 62-05 = ***.
	*/
	framework.SandboxChoiceIt("carries the BR Code in pixCopiaECola too, in the sandbox's dynamic form", func(ctx ginkgo.SpecContext) {
		r := createCob(ctx, f, newTxID(f), cobBody(ownKey(f), cobDefaultOriginal), "")
		location := stringField(r, "location")
		gomega.Expect(r).To(framework.HaveJSONField("pixCopiaECola", location))
		expectSandboxBRCode(f, location, "location")
	})

	/*
		Check: cob/qr-code-image
		Sandbox: POST /_sandbox/qrcode (the Central Bank route returns no image; G-42)
		Description: POST /_sandbox/qrcode with a created charge's pixCopiaECola MUST answer 200 with
		qrCodeImage, standard base64 of a PNG image; the same code with its CRC changed MUST answer
		400, naming pixCode.
	*/
	framework.SandboxIt("draws a charge's pixCopiaECola as a QR code through the control plane", func(ctx ginkgo.SpecContext) {
		r := createCob(ctx, f, newTxID(f), cobBody(ownKey(f), cobDefaultOriginal), "")
		code := stringField(r, "pixCopiaECola")
		q, err := f.Sandbox.Do(ctx, http.MethodPost, "/_sandbox/qrcode", map[string]string{"pixCode": code})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(q).To(framework.HaveStatus(http.StatusOK))
		expectBase64PNG(stringField(q, "qrCodeImage"), "qrCodeImage")

		bad := code[:len(code)-4] + "0000"
		if bad == code {
			bad = code[:len(code)-4] + "FFFF"
		}
		q, err = f.Sandbox.Do(ctx, http.MethodPost, "/_sandbox/qrcode", map[string]string{"pixCode": bad})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(q).To(framework.HaveStatus(http.StatusBadRequest))
		gomega.Expect(q).To(framework.HaveMinimalErrorShape())
		gomega.Expect(messageText(q)).To(gomega.ContainSubstring("pixCode"))
	})

	/*
		Check: cob/txid-invalid
		Spec: "Endpoints > PUT /cob/{txid}" (txid 26 to 35 characters of [a-zA-Z0-9]); "Errors > Central Bank-compatible routes" (PUT /cob/{txid} 400: txid outside 26..35 alphanumerics); "Errors > Shapes", item 3
		Description: A valid body PUT to a txid of 25 alphanumerics, of 36 alphanumerics, or of 30
		characters one of which is '-', MUST be answered 400 (not 404); as the control, the same body
		PUT to a fresh txid just inside the rule (26 alphanumerics, 35, 30 without the '-') MUST be
		accepted.
	*/
	ginkgo.DescribeTable("rejects with 400 (not 404) a txid",
		func(ctx ginkgo.SpecContext, txid, control func() string) {
			r := putCob(ctx, f, txid(), cobBody(ownKey(f), cobDefaultOriginal), "")
			gomega.Expect(r).To(framework.HaveStatus(http.StatusBadRequest))
			ginkgo.By("the control: a txid just inside the rule is accepted")
			controlCob(ctx, f, "a txid just inside the rule", control(), cobBody(ownKey(f), cobDefaultOriginal))
		},
		ginkgo.Entry("of 25 characters", framework.Spec, func() string { return newTxID(f)[:25] }, func() string { return newTxID(f)[:26] }),
		ginkgo.Entry("of 36 characters", framework.Spec, func() string { return newTxID(f) + "abcde" }, func() string { return newTxID(f) + "abcd" }),
		ginkgo.Entry("with a '-'", framework.Spec, func() string { return newTxID(f)[:14] + "-" + newTxID(f)[:15] }, func() string { return newTxID(f)[:30] }),
	)

	/*
		Check: cob/body-invalid
		Spec: "Endpoints > PUT /cob/{txid}" (body: devedor cpf or cnpj, digits only; valor.original a string with 2 decimals; chave max 77; solicitacaoPagador max 140); "Resources > Immediate charge (cob)" (CPF has exactly 11 digits); "Limits", txid row; "Errors > Central Bank-compatible routes" (400: invalid CPF or CNPJ (digits only); invalid value); "Errors > Shapes", item 3
		Description: A PUT /cob/{txid} with a fresh txid whose body breaks one rule (devedor.cpf of
		10 digits, devedor.cpf with punctuation, valor.original "10.5", a chave of 78 characters, a
		solicitacaoPagador of 141 characters) MUST be answered 400; as the control, the same body
		with the fault undone (devedor.cpf of 11 digits, valor.original "10.50", the account's own
		chave, a solicitacaoPagador of exactly 140 characters) MUST be accepted.
	*/
	ginkgo.DescribeTable("rejects with 400 a body with",
		func(ctx ginkgo.SpecContext, fault, control func(m map[string]any)) {
			r := putCob(ctx, f, newTxID(f), cobBody(ownKey(f), cobDefaultOriginal, fault), "")
			gomega.Expect(r).To(framework.HaveStatus(http.StatusBadRequest))
			ginkgo.By("the control: the same body without the fault is accepted")
			controlCob(ctx, f, "the same body without the fault", newTxID(f), cobBody(ownKey(f), cobDefaultOriginal, fault, control))
		},
		ginkgo.Entry("a devedor.cpf of 10 digits", framework.Spec, func(m map[string]any) {
			m["devedor"] = map[string]any{"cpf": sampleCPF[:10], "nome": holderName}
		}, validDevedor),
		ginkgo.Entry("a devedor.cpf with punctuation", framework.Spec, func(m map[string]any) {
			m["devedor"] = map[string]any{"cpf": "123.456.789-09", "nome": holderName}
		}, validDevedor),
		ginkgo.Entry(`valor.original "10.5"`, framework.Spec, func(m map[string]any) {
			m["valor"] = map[string]any{"original": "10.5"}
		}, func(m map[string]any) { m["valor"] = map[string]any{"original": "10.50"} }),
		ginkgo.Entry("a chave of 78 characters", framework.Spec, func(m map[string]any) {
			m["chave"] = strings.Repeat("c", 78-len("@example.com")) + "@example.com"
		}, func(m map[string]any) {
			if k := ownKey(f); k != "" {
				m["chave"] = k
			} else {
				delete(m, "chave")
			}
		}),
		ginkgo.Entry("a solicitacaoPagador of 141 characters", framework.Spec, func(m map[string]any) {
			m["solicitacaoPagador"] = strings.Repeat("s", 141)
		}, func(m map[string]any) { m["solicitacaoPagador"] = strings.Repeat("s", 140) }),
	)

	/*
		Check: cob/devedor-accepted
		Spec: "Endpoints > PUT /cob/{txid}" (devedor optional: cpf or cnpj plus nome); "Resources > Immediate charge (cob)" (devedor.cpf digits only, 11 digits; devedor.nome)
		Description: A PUT /cob/{txid} with devedor {cpf of 11 digits with valid check digits, nome}
		MUST be answered 2xx with status ATIVA and devedor.cpf and devedor.nome echoed.
	*/
	framework.SpecIt("accepts a devedor with an 11-digit cpf and echoes it", func(ctx ginkgo.SpecContext) {
		r := createCob(ctx, f, newTxID(f), cobBody(ownKey(f), cobDefaultOriginal, func(m map[string]any) {
			m["devedor"] = map[string]any{"cpf": sampleCPF, "nome": holderName}
		}), "")
		gomega.Expect(r).To(framework.HaveJSONField("devedor.cpf", sampleCPF))
		gomega.Expect(r).To(framework.HaveJSONField("devedor.nome", holderName))
	})

	/*
		Check: cob/txid-exists
		Spec: "Endpoints > PUT /cob/{txid}" (txid unique; 409 txid already exists); "Errors > Central Bank-compatible routes" (PUT /cob/{txid} 409); "Errors > Shapes", item 3
		Description: A second PUT /cob/{txid} with the txid of an existing charge MUST be answered
		409.
	*/
	framework.SpecIt("rejects a txid that already exists with 409", func(ctx ginkgo.SpecContext) {
		txid := newTxID(f)
		createCob(ctx, f, txid, cobBody(ownKey(f), cobDefaultOriginal), "")
		r := putCob(ctx, f, txid, cobBody(ownKey(f), "26.00"), "")
		gomega.Expect(r).To(framework.HaveStatus(http.StatusConflict))
	})

	/*
		Check: cob/get
		Gap G-35: GET /cob/{txid} is not in the spec (docs/spec-gaps.md); the sandbox serves it as the Central Bank reference does: 200 with the cob, 404 for an unknown txid
		Description: GET /cob/{txid} of a created charge MUST answer 200 with the same txid, status
		ATIVA, revisao 0, calendario.criacao, location and valor.original as the creation response;
		GET of a txid the account never used MUST answer 404.
	*/
	framework.SandboxChoiceIt("reads a charge with GET /cob/{txid} and answers 404 for an unknown txid", func(ctx ginkgo.SpecContext) {
		txid := newTxID(f)
		created := createCob(ctx, f, txid, cobBody(ownKey(f), cobDefaultOriginal), "")
		r := getCobAs(ctx, f, f.Token(ctx), txid)
		for _, p := range []string{"txid", "status", "revisao", "calendario.criacao", "location", "loc.location", "valor.original"} {
			v, ok := created.Field(p)
			gomega.Expect(ok).To(gomega.BeTrue(), "%s of the creation response", p)
			gomega.Expect(r).To(framework.HaveJSONField(p, v))
		}
		unknown := f.Do(ctx, http.MethodGet, cobPath(newTxID(f)), f.Token(ctx), nil, nil)
		gomega.Expect(unknown).To(framework.HaveStatus(http.StatusNotFound))
	})

	/*
		Check: cob/patch-removal
		Spec: "States and transitions > Immediate charge (cob)" (ATIVA → REMOVIDA_PELO_USUARIO_RECEBEDOR when cancelled by the receiver; terminal)
		Gap G-35: how the receiver cancels is not in the spec (docs/spec-gaps.md); the sandbox takes the Central Bank's PATCH /cob/{txid} {"status":"REMOVIDA_PELO_USUARIO_RECEBEDOR"} (revisao + 1; 409 when not ATIVA; other fields 400)
		Description: PATCH /cob/{txid} with a field other than status MUST be answered 400; with {"status":"REMOVIDA_PELO_USUARIO_RECEBEDOR"} it MUST answer 200
		with that status and revisao 1, and GET /cob/{txid} MUST then read it; the same PATCH again
		MUST be answered 409.
	*/
	framework.SandboxChoiceIt("removes an ATIVA charge with PATCH status REMOVIDA_PELO_USUARIO_RECEBEDOR", func(ctx ginkgo.SpecContext) {
		txid := newTxID(f)
		createCob(ctx, f, txid, cobBody(ownKey(f), cobDefaultOriginal), "")
		bad := patchCob(ctx, f, txid, map[string]any{"valor": map[string]any{"original": "30.00"}})
		gomega.Expect(bad).To(framework.HaveStatus(http.StatusBadRequest))

		r := patchCob(ctx, f, txid, removal)
		gomega.Expect(r).To(framework.HaveStatus(http.StatusOK))
		gomega.Expect(r).To(framework.HaveJSONField("status", cobRemovidaUsuario))
		gomega.Expect(r).To(framework.HaveJSONField("revisao", 1))
		gomega.Expect(cobStatus(ctx, f, txid)).To(gomega.Equal(cobRemovidaUsuario))

		again := patchCob(ctx, f, txid, removal)
		gomega.Expect(again).To(framework.HaveStatus(http.StatusConflict))
	})

	/*
		Check: cob/paid
		Spec: "States and transitions > Immediate charge (cob)" (ATIVA → CONCLUIDA when payment received; RECEIVE webhook); "Events > Envelope V2", RECEIVE (id, txId, status LIQUIDATED, payment {amount string, currency}, endToEndId, debtorAccount {name, document masked}); "What the service does", balance effects (PIX in)
		Gap G-35: the paid charge shows pix [{endToEndId, txid, valor, horario}] as the Central Bank reference does; G-40: the payer
		Sandbox: POST /_sandbox/payments {txid, payer}; GET /cob/{txid}; POST /_sandbox/webhook-targets (cash_in)
		Description: Paying an ATIVA charge of 25.00 by its txid MUST be answered 201 with amount
		25.00; GET /cob/{txid} MUST then read status CONCLUIDA with pix[0].endToEndId the payment's,
		pix[0].txid the txid and pix[0].valor "25.00"; available MUST grow by 25.00 less the
		account's cash-in fee; and the cash_in target MUST receive a RECEIVE webhook with data.txId
		the txid, data.status LIQUIDATED, data.payment.amount "25.00" (a string), currency BRL,
		data.endToEndId the payment's and data.debtorAccount naming the payer with a masked document.
	*/
	framework.SandboxIt("moves a charge paid by its txid to CONCLUIDA and sends a RECEIVE webhook with its txId", framework.Webhook, func(ctx ginkgo.SpecContext) {
		registerTarget(ctx, f, f.Identity.ID, eventCashIn, f.Webhooks, "")
		fee := cashInFee(ctx, f)
		txid := newTxID(f)
		createCob(ctx, f, txid, cobBody(ownKey(f), cobDefaultOriginal), "")
		before := f.Balance(ctx)
		payer := externalPayer(ctx, f)

		res := pay(ctx, f, sandbox.PaymentRequest{TxID: txid, Payer: payer})
		gomega.Expect(res.Amount).To(gomega.Equal(json.Number("25.00")))
		r := getCobAs(ctx, f, f.Token(ctx), txid)
		gomega.Expect(r).To(framework.HaveJSONField("status", cobConcluida))
		gomega.Expect(r).To(framework.HaveJSONField("pix", gomega.HaveLen(1)))
		gomega.Expect(r).To(framework.HaveJSONField("pix[0].endToEndId", res.EndToEndID))
		gomega.Expect(r).To(framework.HaveJSONField("pix[0].txid", txid))
		gomega.Expect(r).To(framework.HaveJSONField("pix[0].valor", "25.00"))
		expectBalance(f.Balance(ctx), framework.Balance{Available: before.Available + 2500 - fee, Blocked: before.Blocked}, "after the payment")

		d := awaitWebhook(ctx, f, f.Webhooks, false, "data.txId", txid)
		expectReceiveWebhook(d, txid, "25.00")
		gomega.Expect(d).To(framework.HaveJSONField("data.endToEndId", res.EndToEndID))
		gomega.Expect(d).To(framework.HaveJSONField("data.debtorAccount.name", payer.Name))
		gomega.Expect(d).To(framework.HaveJSONField("data.debtorAccount.document", gomega.Not(gomega.Equal(payer.Document))), "the document is masked")
	})

	/*
		Check: cob/paid-twice
		Spec: "States and transitions > Immediate charge (cob)" (CONCLUIDA is terminal)
		Sandbox: POST /_sandbox/payments (Gap G-40: a paid charge is 409)
		Description: A second payment of a CONCLUIDA charge MUST be refused with 409, the charge
		MUST stay CONCLUIDA and available MUST not change.
	*/
	framework.SandboxIt("refuses a second payment of a CONCLUIDA charge with 409", func(ctx ginkgo.SpecContext) {
		txid := newTxID(f)
		r := createCob(ctx, f, txid, cobBody(ownKey(f), cobDefaultOriginal), "")
		pay(ctx, f, sandbox.PaymentRequest{TxID: txid})
		after := f.Balance(ctx)
		expectPaymentRefused(ctx, f, sandbox.PaymentRequest{PixCode: stringField(r, "location")}, http.StatusConflict, "a CONCLUIDA charge")
		gomega.Expect(cobStatus(ctx, f, txid)).To(gomega.Equal(cobConcluida))
		expectBalance(f.Balance(ctx), after, "after the refused payment")
	})

	/*
		Check: cob/wrong-amount
		Spec: "Resources > Immediate charge (cob)" (valor.original; valor.modalidadeAlteracao)
		Gap G-35: modalidadeAlteracao 0 (the default) fixes the amount to valor.original; G-40: a wrong amount is 422
		Sandbox: POST /_sandbox/payments {txid, amount}
		Description: Paying 24.99 for an ATIVA charge of 25.00 without modalidadeAlteracao MUST be
		refused with 422, the charge MUST stay ATIVA and available MUST not change.
	*/
	framework.SandboxIt("refuses another amount for a charge of fixed amount with 422", func(ctx ginkgo.SpecContext) {
		txid := newTxID(f)
		createCob(ctx, f, txid, cobBody(ownKey(f), cobDefaultOriginal), "")
		before := f.Balance(ctx)
		expectPaymentRefused(ctx, f, sandbox.PaymentRequest{TxID: txid, Amount: "24.99"}, http.StatusUnprocessableEntity, "24.99 for 25.00")
		gomega.Expect(cobStatus(ctx, f, txid)).To(gomega.Equal(cobAtiva))
		expectBalance(f.Balance(ctx), before, "after the refused payment")
	})

	/*
		Check: cob/changeable-amount
		Gap G-35: modalidadeAlteracao is a number in the spec without its meaning (docs/spec-gaps.md); the sandbox reads 1 as the Central Bank does: the payer may change the amount
		Sandbox: POST /_sandbox/payments {txid, amount}; GET /cob/{txid}
		Description: A charge of 25.00 with valor.modalidadeAlteracao 1 MUST echo it, and a payment
		of 30.00 MUST be accepted: the charge CONCLUIDA with pix[0].valor "30.00" and available grown
		by 30.00 less the cash-in fee.
	*/
	framework.SandboxIt("accepts another amount when modalidadeAlteracao is 1", framework.SandboxChoice, func(ctx ginkgo.SpecContext) {
		fee := cashInFee(ctx, f)
		txid := newTxID(f)
		r := createCob(ctx, f, txid, cobBody(ownKey(f), cobDefaultOriginal, func(m map[string]any) {
			m["valor"] = map[string]any{"original": cobDefaultOriginal, "modalidadeAlteracao": 1}
		}), "")
		gomega.Expect(r).To(framework.HaveJSONField("valor.modalidadeAlteracao", 1))
		before := f.Balance(ctx)
		pay(ctx, f, sandbox.PaymentRequest{TxID: txid, Amount: "30.00"})
		got := getCobAs(ctx, f, f.Token(ctx), txid)
		gomega.Expect(got).To(framework.HaveJSONField("status", cobConcluida))
		gomega.Expect(got).To(framework.HaveJSONField("pix[0].valor", "30.00"))
		expectBalance(f.Balance(ctx), framework.Balance{Available: before.Available + 3000 - fee, Blocked: before.Blocked}, "after the payment")
	})

	/*
		Check: cob/expired
		Spec: "States and transitions > Immediate charge (cob)" (ATIVA → REMOVIDA_PELO_PSP when expired; terminal); "Resources > Immediate charge (cob)" (calendario.expiracao in seconds)
		Gap G-36: the sandbox moves an expired cob to REMOVIDA_PELO_PSP at criacao + expiracao and refuses later payments (409)
		Sandbox: POST /_sandbox/clock/advance; GET /cob/{txid}; POST /_sandbox/payments
		Description: A charge with calendario.expiracao 60 MUST still be ATIVA 59 seconds after
		creation and MUST be REMOVIDA_PELO_PSP 60 seconds after it; a payment then MUST be refused
		with 409 and available MUST not change.
	*/
	framework.SandboxIt("moves a charge to REMOVIDA_PELO_PSP at criacao + expiracao and refuses payment", ginkgo.Serial, func(ctx ginkgo.SpecContext) {
		txid := newTxID(f)
		createCob(ctx, f, txid, cobBody(ownKey(f), cobDefaultOriginal, withExpiracao(60)), "")
		before := f.Balance(ctx)
		_, err := f.Sandbox.Advance(ctx, 59)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(cobStatus(ctx, f, txid)).To(gomega.Equal(cobAtiva), "59 s after creation")
		f.AwaitSettled(ctx, time.Second, func(g gomega.Gomega) {
			r, err := f.Client.Do(ctx, http.MethodGet, cobPath(txid), f.Token(ctx), nil, nil)
			g.Expect(err).NotTo(gomega.HaveOccurred())
			g.Expect(r).To(framework.HaveJSONField("status", cobRemovidaPeloPSP), "60 s after creation")
		})
		expectPaymentRefused(ctx, f, sandbox.PaymentRequest{TxID: txid}, http.StatusConflict, "an expired charge")
		expectBalance(f.Balance(ctx), before, "after the refused payment")
	})

	/*
		Check: cob/removed-then-paid
		Spec: "States and transitions > Immediate charge (cob)" (REMOVIDA_PELO_USUARIO_RECEBEDOR is terminal)
		Sandbox: PATCH /cob/{txid} (Gap G-35); POST /_sandbox/payments (Gap G-40: a removed charge is 409)
		Description: A payment of a charge removed with PATCH MUST be refused with 409, the charge
		MUST stay REMOVIDA_PELO_USUARIO_RECEBEDOR and available MUST not change.
	*/
	framework.SandboxIt("refuses a payment of a charge the receiver removed with 409", func(ctx ginkgo.SpecContext) {
		txid := newTxID(f)
		r := createCob(ctx, f, txid, cobBody(ownKey(f), cobDefaultOriginal), "")
		gomega.Expect(patchCob(ctx, f, txid, removal)).To(framework.HaveStatus(http.StatusOK))
		before := f.Balance(ctx)
		expectPaymentRefused(ctx, f, sandbox.PaymentRequest{PixCode: stringField(r, "location")}, http.StatusConflict, "a removed charge")
		gomega.Expect(cobStatus(ctx, f, txid)).To(gomega.Equal(cobRemovidaUsuario))
		expectBalance(f.Balance(ctx), before, "after the refused payment")
	})

	/*
		Check: cob/auto-payment
		Spec: "States and transitions > Immediate charge (cob)" (ATIVA → CONCLUIDA when payment received)
		Sandbox: X-Sandbox-Scenario: AUTO_PAYMENT (a payer pays 10 s after creation); POST /_sandbox/clock/advance; GET /cob/{txid}
		Description: A charge carrying AUTO_PAYMENT MUST still be ATIVA 9 seconds after creation and
		MUST be CONCLUIDA, with pix[0].valor equal to valor.original, 10 seconds after it.
	*/
	framework.SandboxIt("concludes an AUTO_PAYMENT charge 10 s after creation", ginkgo.Serial, func(ctx ginkgo.SpecContext) {
		txid := newTxID(f)
		createCob(ctx, f, txid, cobBody(ownKey(f), cobDefaultOriginal), "AUTO_PAYMENT")
		_, err := f.Sandbox.Advance(ctx, 9)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(cobStatus(ctx, f, txid)).To(gomega.Equal(cobAtiva), "9 s after creation")
		f.AwaitSettled(ctx, time.Second, func(g gomega.Gomega) {
			r, err := f.Client.Do(ctx, http.MethodGet, cobPath(txid), f.Token(ctx), nil, nil)
			g.Expect(err).NotTo(gomega.HaveOccurred())
			g.Expect(r).To(framework.HaveJSONField("status", cobConcluida), "10 s after creation")
			g.Expect(r).To(framework.HaveJSONField("pix[0].valor", cobDefaultOriginal))
		})
	})

	/*
		Check: cob/late-payment
		Spec: "States and transitions > Immediate charge (cob)" (ATIVA → REMOVIDA_PELO_PSP when expired; terminal)
		Gap G-36: a payment after expiry is refused
		Sandbox: X-Sandbox-Scenario: LATE_PAYMENT (a payment 1 s after expiry); POST /_sandbox/clock/advance; GET /cob/{txid}; POST /_sandbox/webhook-targets (cash_in)
		Description: A charge with calendario.expiracao 60 carrying LATE_PAYMENT MUST, 61 seconds
		after creation, be REMOVIDA_PELO_PSP with no pix, available MUST not have changed and no
		RECEIVE webhook MUST have been sent: the late payment is refused.
	*/
	framework.SandboxIt("leaves a charge REMOVIDA_PELO_PSP and unpaid when the LATE_PAYMENT payer comes after expiry", ginkgo.Serial, framework.Webhook, func(ctx ginkgo.SpecContext) {
		registerTarget(ctx, f, f.Identity.ID, eventCashIn, f.Webhooks, "")
		txid := newTxID(f)
		createCob(ctx, f, txid, cobBody(ownKey(f), cobDefaultOriginal, withExpiracao(60)), "LATE_PAYMENT")
		before := f.Balance(ctx)
		_, err := f.Sandbox.Advance(ctx, 61)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		r := getCobAs(ctx, f, f.Token(ctx), txid)
		gomega.Expect(r).To(framework.HaveJSONField("status", cobRemovidaPeloPSP))
		_, paid := r.Field("pix[0]")
		gomega.Expect(paid).To(gomega.BeFalse(), "a payment recorded on %s", r)
		expectBalance(f.Balance(ctx), before, "after the late payment")
		gomega.Expect(matching(f.Webhooks, "data.txId", txid)).To(gomega.BeEmpty(), "RECEIVE webhooks of the unpaid charge")
	})

	/*
		Check: cob/paid-by-transfer
		Spec: "States and transitions > Immediate charge (cob)" (ATIVA → CONCLUIDA; RECEIVE webhook); "Events > Envelope V2" (TRANSFER has txId; RECEIVE for the payment of a cob); "What the service does", balance effects
		Gap G-39: a txId in the POST /dict/pix body is "not shown" (docs/spec-gaps.md); the sandbox lets a transfer to a key of the receiving sandbox account name its cob by txId, and settlement pays it
		Sandbox: a second account from POST /_sandbox/accounts; POST /_sandbox/webhook-targets (cash_out for the payer, cash_in for the receiver); POST /_sandbox/clock/advance; GET /cob/{txid}
		Description: A transfer of 25.00 from the spec's account to the EVP key of another sandbox
		account, with txId the txid of that account's ATIVA charge of 25.00, MUST once settled:
		leave the payer's available lower by 25.00 with blocked back to its value; raise the
		receiver's available by 25.00 (its cash-in fee 0.00); move the charge to CONCLUIDA; send
		the payer's cash_out target a TRANSFER webhook with data.txId the txid and status
		LIQUIDATED; and send the receiver's cash_in target a RECEIVE webhook with data.txId the txid,
		data.payment.amount "25.00" and data.debtorAccount.name the payer's name.
	*/
	framework.SandboxIt("concludes a charge paid by another sandbox account's POST /dict/pix naming its txId", framework.SandboxChoice, ginkgo.Serial, framework.Webhook, func(ctx ginkgo.SpecContext) {
		receiver, inboxIn := peerAccount(ctx, f, eventCashIn)
		receiverToken := f.TokenFor(ctx, framework.IdentityOf(receiver))
		evp := evpKey(receiver)
		registerTarget(ctx, f, f.Identity.ID, eventCashOut, f.Webhooks, "")

		txid := newTxID(f)
		r := putCobAs(ctx, f, receiverToken, txid, cobBody(evp, cobDefaultOriginal), "")
		gomega.Expect(r).To(framework.HaveSuccessStatus())
		before := f.Balance(ctx)

		idem := framework.UUIDv4()
		acceptTransfer(ctx, f, idem, transferBody(evp, cobDefaultOriginal, func(m map[string]any) { m["txId"] = txid }), "")
		out := awaitWebhook(ctx, f, f.Webhooks, true, "data.idempotencyKey", idem)
		gomega.Expect(out).To(framework.HaveJSONField("type", "TRANSFER"))
		gomega.Expect(out).To(framework.HaveJSONField("data.status", "LIQUIDATED"))
		gomega.Expect(out).To(framework.HaveJSONField("data.txId", txid))

		in := awaitWebhook(ctx, f, inboxIn, false, "data.txId", txid)
		expectReceiveWebhook(in, txid, cobDefaultOriginal)
		gomega.Expect(in).To(framework.HaveJSONField("data.debtorAccount.name", f.Account.Name))

		gomega.Expect(getCobAs(ctx, f, receiverToken, txid)).To(framework.HaveJSONField("status", cobConcluida))
		expectBalance(f.Balance(ctx), framework.Balance{Available: before.Available - 2500, Blocked: before.Blocked}, "of the paying account")
		expectBalance(f.BalanceOf(ctx, receiverToken), framework.Balance{Available: 10000 + 2500, Blocked: 0}, "of the receiving account")
	})

	/*
		Check: cob/transfer-refused
		Spec: "Resources > Cash-out webhook payload", errorCode ORDER_REJECTED (destination bank rejected the operation)
		Gap G-39: a transfer naming a charge that does not accept it (here a wrong amount for a fixed cob) ends in ERROR ORDER_REJECTED, the hold released; G-28: the TRANSFER webhook of a failed transfer carries status ERROR and errorCode
		Sandbox: a second account from POST /_sandbox/accounts; POST /_sandbox/webhook-targets (cash_out); POST /_sandbox/clock/advance; GET /cob/{txid}
		Description: A transfer of 24.99 to the EVP key of another sandbox account with txId its
		ATIVA charge of 25.00 (modalidadeAlteracao 0) MUST, at settlement, send the payer a TRANSFER
		webhook with data.status ERROR and data.errorCode ORDER_REJECTED; the payer's available and
		blocked MUST be back to their values before the transfer, the receiver's balance unchanged
		and the charge still ATIVA.
	*/
	framework.SandboxIt("rejects a transfer of the wrong amount for a cob with ORDER_REJECTED and releases the hold", framework.SandboxChoice, ginkgo.Serial, framework.Webhook, func(ctx ginkgo.SpecContext) {
		receiver, err := f.Sandbox.CreateAccount(ctx, sandbox.AccountOptions{Balance: "100.00"})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		receiverToken := f.TokenFor(ctx, framework.IdentityOf(receiver))
		evp := evpKey(receiver)
		registerTarget(ctx, f, f.Identity.ID, eventCashOut, f.Webhooks, "")
		txid := newTxID(f)
		gomega.Expect(putCobAs(ctx, f, receiverToken, txid, cobBody(evp, cobDefaultOriginal), "")).To(framework.HaveSuccessStatus())
		before := f.Balance(ctx)

		idem := framework.UUIDv4()
		acceptTransfer(ctx, f, idem, transferBody(evp, "24.99", func(m map[string]any) { m["txId"] = txid }), "")
		out := awaitWebhook(ctx, f, f.Webhooks, true, "data.idempotencyKey", idem)
		gomega.Expect(out).To(framework.HaveJSONField("type", "TRANSFER"))
		gomega.Expect(out).To(framework.HaveJSONField("data.status", "ERROR"))
		gomega.Expect(out).To(framework.HaveJSONField("data.errorCode", "ORDER_REJECTED"))
		expectBalance(f.Balance(ctx), before, "of the paying account after the rejection")
		expectBalance(f.BalanceOf(ctx, receiverToken), framework.Balance{Available: 10000, Blocked: 0}, "of the receiving account")
		gomega.Expect(getCobAs(ctx, f, receiverToken, txid)).To(framework.HaveJSONField("status", cobAtiva))
	})
})
