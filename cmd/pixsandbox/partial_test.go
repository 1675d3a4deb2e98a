package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/pixsandbox/pixsandbox/conformance/framework"
	"github.com/pixsandbox/pixsandbox/conformance/framework/codec"
)

// partialPIX is a deliberately partial implementation of the contract, the
// kind of target the conformance suite meets in the wild: it serves only
// GET /accounts/balances and PUT and GET /cob/{txid} (with refunds, also PUT
// and GET /pix/{e2eid}/devolucao/{id}), correctly by the rules; it has no
// token route (a client presents the one bearer token it knows); and every
// error, its generic not-found included, is an RFC 7807 problem document (the
// Central Bank's format) instead of the contract's minimal shape.
type partialPIX struct {
	token string
	// open, when true, serves every request without authentication (a
	// target that needs none; the 401 rule is then its deviation).
	open bool
	// authHeader, when set, names the header that carries the token instead
	// of Authorization: Bearer (a mock with a credential header of its own).
	authHeader string
	// refuseDevedor, when true, answers 400 to every PUT /cob/{txid} with a
	// devedor, valid or not (a target that refuses the checks' controls).
	refuseDevedor bool
	// refunds, when true, serves PUT and GET /pix/{e2eid}/devolucao/{id} for
	// the one PIX the account received (partialE2E, partialPIXCents).
	refunds bool
	// refusePartialRefunds, when true, answers 400 to every refund whose
	// valor is below what is left of the PIX, valid or not (a target that
	// refunds a PIX only whole, and so refuses the refund checks' controls).
	refusePartialRefunds bool
	mu                   sync.Mutex
	cobs                 map[string]map[string]any
	// devolucoes are the accepted refunds of partialE2E by id; refunded is
	// their sum in centavos.
	devolucoes map[string]map[string]any
	refunded   int64
}

// The one PIX partialPIX's account received, which its refund route refunds.
const (
	// partialE2E is its endToEndId: 32 alphanumerics in the Central Bank
	// form, other than the suite's sample e2eid (which names no PIX).
	partialE2E = "E12345678202603021200abcdefghijk"
	// partialPIXCents is its amount, 100.00, in centavos.
	partialPIXCents = 10000
)

// partialRefundRefusal starts the detail of the 400 with which partialPIX,
// with refusePartialRefunds, refuses a refund of less than what is left.
const partialRefundRefusal = "partial refunds are not supported"

var (
	partialTxID = regexp.MustCompile(`^[a-zA-Z0-9]{26,35}$`)
	partialCPF  = regexp.MustCompile(`^\d{11}$`)
	partialBRL  = regexp.MustCompile(`^\d{1,10}\.\d{2}$`)
	partialE2ID = regexp.MustCompile(`^[a-zA-Z0-9]{32}$`)
	// partialAmount is any decimal amount, well formed or not (10.5, 0.001):
	// what the partial-refund refusal compares with what is left.
	partialAmount = regexp.MustCompile(`^\d{1,10}(\.\d+)?$`)
)

func newPartialPIX() *partialPIX {
	// The token is a JWT, so that the checks altering a JWT have one to alter.
	enc := base64.RawURLEncoding.EncodeToString
	tok := enc([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." + enc([]byte(`{"sub":"partial"}`)) + "." + enc([]byte("partial-signature"))
	return &partialPIX{token: tok, cobs: map[string]map[string]any{}, devolucoes: map[string]map[string]any{}}
}

func (p *partialPIX) problem(w http.ResponseWriter, status int, title, detail string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"type": "https://pix.bcb.gov.br/api/v2/error/" + strings.ReplaceAll(title, " ", ""), "title": title, "status": status, "detail": detail,
	})
}

func (p *partialPIX) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var handle func(http.ResponseWriter, *http.Request)
	switch {
	case r.URL.Path == "/accounts/balances" && r.Method == http.MethodGet:
		handle = p.balances
	case strings.HasPrefix(r.URL.Path, "/cob/") && strings.Count(r.URL.Path, "/") == 2 && r.Method == http.MethodPut:
		handle = p.putCob
	case strings.HasPrefix(r.URL.Path, "/cob/") && strings.Count(r.URL.Path, "/") == 2 && r.Method == http.MethodGet:
		handle = p.getCob
	case p.refunds && isDevolucaoPath(r.URL.EscapedPath()) && r.Method == http.MethodPut:
		handle = p.putDevolucao
	case p.refunds && isDevolucaoPath(r.URL.EscapedPath()) && r.Method == http.MethodGet:
		handle = p.getDevolucao
	default:
		p.problem(w, http.StatusNotFound, "Not Found", "no route "+r.Method+" "+r.URL.Path)
		return
	}
	authorized := r.Header.Get("Authorization") == "Bearer "+p.token
	if p.authHeader != "" {
		authorized = r.Header.Get(p.authHeader) == p.token
	}
	if !p.open && !authorized {
		p.problem(w, http.StatusUnauthorized, "Nao Autorizado", "a valid bearer token is required")
		return
	}
	handle(w, r)
}

// balances answers the account's one balance: 1000.00, less the accepted
// refunds, which stay blocked (EM_PROCESSAMENTO: they never settle).
func (p *partialPIX) balances(w http.ResponseWriter, _ *http.Request) {
	p.mu.Lock()
	held := p.refunded
	p.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"data":[{"eventDate":"2026-03-02T12:00:00Z","balanceAmount":{"available":%s,"blocked":%s,"overdraft":0}}]}`,
		partialBRLText(100000-held), partialBRLText(held))
}

func (p *partialPIX) putCob(w http.ResponseWriter, r *http.Request) {
	txid := strings.TrimPrefix(r.URL.Path, "/cob/")
	var body struct {
		Calendario struct {
			Expiracao *int `json:"expiracao"`
		} `json:"calendario"`
		Devedor *struct {
			CPF  string `json:"cpf"`
			Nome string `json:"nome"`
		} `json:"devedor"`
		Valor struct {
			Original            string `json:"original"`
			ModalidadeAlteracao int    `json:"modalidadeAlteracao"`
		} `json:"valor"`
		Chave              string              `json:"chave"`
		SolicitacaoPagador string              `json:"solicitacaoPagador"`
		InfoAdicionais     []map[string]string `json:"infoAdicionais"`
	}
	bad := func(detail string) { p.problem(w, http.StatusBadRequest, "Cob Operacao Invalida", detail) }
	switch err := json.NewDecoder(r.Body).Decode(&body); {
	case !partialTxID.MatchString(txid):
		bad("txid: 26 to 35 alphanumerics")
	case err != nil:
		bad("body: " + err.Error())
	case body.Calendario.Expiracao == nil || *body.Calendario.Expiracao <= 0:
		bad("calendario.expiracao is required")
	case !partialBRL.MatchString(body.Valor.Original):
		bad("valor.original: a decimal with 2 places")
	case body.Devedor != nil && p.refuseDevedor:
		bad("devedor: not supported")
	case body.Devedor != nil && !partialCPF.MatchString(body.Devedor.CPF):
		bad("devedor.cpf: 11 digits")
	case len(body.Chave) > 77:
		bad("chave: at most 77 characters")
	case len(body.SolicitacaoPagador) > 140:
		bad("solicitacaoPagador: at most 140 characters")
	default:
		p.mu.Lock()
		defer p.mu.Unlock()
		if _, ok := p.cobs[txid]; ok {
			p.problem(w, http.StatusConflict, "Cob Ja Existe", "txid "+txid+" already exists")
			return
		}
		location := partialBRCode("pix.partial.example/qr/" + strings.ToLower(txid))
		cob := map[string]any{
			"calendario": map[string]any{"criacao": "2026-03-02T12:00:00Z", "expiracao": *body.Calendario.Expiracao},
			"txid":       txid, "revisao": 0, "status": "ATIVA",
			"loc":      map[string]any{"id": len(p.cobs) + 1, "location": location, "tipoCob": "cob"},
			"location": location, "valor": map[string]any{"original": body.Valor.Original, "modalidadeAlteracao": body.Valor.ModalidadeAlteracao},
			"chave": body.Chave, "solicitacaoPagador": body.SolicitacaoPagador,
		}
		if body.InfoAdicionais != nil {
			cob["infoAdicionais"] = body.InfoAdicionais
		}
		if body.Devedor != nil {
			cob["devedor"] = map[string]any{"cpf": body.Devedor.CPF, "nome": body.Devedor.Nome}
		}
		p.cobs[txid] = cob
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(cob)
	}
}

func (p *partialPIX) getCob(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	cob, ok := p.cobs[strings.TrimPrefix(r.URL.Path, "/cob/")]
	p.mu.Unlock()
	if !ok {
		p.problem(w, http.StatusNotFound, "Cob Nao Encontrada", "no cob with this txid")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(cob)
}

// isDevolucaoPath reports whether an escaped path has the form
// /pix/{e2eid}/devolucao/{id}, whatever its values.
func isDevolucaoPath(escaped string) bool {
	seg := strings.Split(escaped, "/")
	return len(seg) == 5 && seg[0] == "" && seg[1] == "pix" && seg[3] == "devolucao"
}

// devolucaoPath returns the e2eid and id of a request on
// /pix/{e2eid}/devolucao/{id}, answering 400 and returning ok false when
// either is malformed (e2eid not 32 alphanumerics, id not 1 to 35
// characters).
func (p *partialPIX) devolucaoPath(w http.ResponseWriter, r *http.Request) (e2e, id string, ok bool) {
	seg := strings.Split(r.URL.EscapedPath(), "/")
	e2e, err1 := url.PathUnescape(seg[2])
	id, err2 := url.PathUnescape(seg[4])
	switch n := utf8.RuneCountInString(id); {
	case err1 != nil || !partialE2ID.MatchString(e2e):
		p.problem(w, http.StatusBadRequest, "Devolucao Operacao Invalida", "e2eid: exactly 32 alphanumerics")
	case err2 != nil || n < 1 || n > 35:
		p.problem(w, http.StatusBadRequest, "Devolucao Operacao Invalida", "id: 1 to 35 characters")
	default:
		return e2e, id, true
	}
	return "", "", false
}

// putDevolucao is PUT /pix/{e2eid}/devolucao/{id}: the path, the e2eid of
// the one PIX received (404 otherwise), with refusePartialRefunds the
// refusal of a valor below what is left, the body (valor a decimal with 2
// places above 0, natureza ORIGINAL or RETIRADA, descricao at most 140
// characters), the same id again (its refund when the valor is the same, 400
// otherwise), the sum rule, and then 201 with the refund, EM_PROCESSAMENTO.
func (p *partialPIX) putDevolucao(w http.ResponseWriter, r *http.Request) {
	e2e, id, ok := p.devolucaoPath(w, r)
	if !ok {
		return
	}
	var body struct {
		Valor     string  `json:"valor"`
		Natureza  *string `json:"natureza"`
		Descricao *string `json:"descricao"`
	}
	bad := func(detail string) { p.problem(w, http.StatusBadRequest, "Devolucao Operacao Invalida", detail) }
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		bad("body: " + err.Error())
		return
	}
	if e2e != partialE2E {
		p.problem(w, http.StatusNotFound, "Pix Nao Encontrado", "no PIX received with e2eid "+e2e)
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	left := partialPIXCents - p.refunded
	if p.refusePartialRefunds && partialAmount.MatchString(body.Valor) && partialCents(body.Valor) < left {
		bad(fmt.Sprintf("%s: a refund returns the whole %s left of the PIX", partialRefundRefusal, partialBRLText(left)))
		return
	}
	natureza := "ORIGINAL"
	if body.Natureza != nil {
		natureza = *body.Natureza
	}
	switch {
	case !partialBRL.MatchString(body.Valor) || partialCents(body.Valor) <= 0:
		bad("valor: a decimal with 2 places, above 0")
		return
	case natureza != "ORIGINAL" && natureza != "RETIRADA":
		bad("natureza: ORIGINAL or RETIRADA")
		return
	case body.Descricao != nil && utf8.RuneCountInString(*body.Descricao) > 140:
		bad("descricao: at most 140 characters")
		return
	}
	if prev, ok := p.devolucoes[id]; ok {
		if prev["valor"] != body.Valor {
			bad("id " + id + " already names a refund of another valor")
			return
		}
		partialJSON(w, http.StatusCreated, prev)
		return
	}
	cents := partialCents(body.Valor)
	if cents > left {
		bad(fmt.Sprintf("valor %s exceeds the %s left to refund", body.Valor, partialBRLText(left)))
		return
	}
	now := time.Now().UTC() // wall time: the refund's request time and its rtrId
	dev := map[string]any{
		// rtrId: D, an ISPB, yyyyMMddHHmm and 11 alphanumerics (32 in all).
		"id": id, "rtrId": fmt.Sprintf("D12345678%s%011d", now.Format("200601021504"), len(p.devolucoes)+1),
		"valor": body.Valor, "natureza": natureza, "status": "EM_PROCESSAMENTO",
		"horario": map[string]any{"solicitacao": now.Format(time.RFC3339)},
	}
	if body.Descricao != nil {
		dev["descricao"] = *body.Descricao
	}
	p.devolucoes[id] = dev
	p.refunded += cents
	partialJSON(w, http.StatusCreated, dev)
}

// getDevolucao is GET /pix/{e2eid}/devolucao/{id}: 200 with the refund, 404
// for an e2eid that names no PIX or an id that names no refund of it.
func (p *partialPIX) getDevolucao(w http.ResponseWriter, r *http.Request) {
	e2e, id, ok := p.devolucaoPath(w, r)
	if !ok {
		return
	}
	p.mu.Lock()
	dev, found := p.devolucoes[id]
	p.mu.Unlock()
	if e2e != partialE2E || !found {
		p.problem(w, http.StatusNotFound, "Devolucao Nao Encontrada", "no refund with this e2eid and id")
		return
	}
	partialJSON(w, http.StatusOK, dev)
}

// partialCents is a decimal amount with 2 places (partialBRL) in centavos.
func partialCents(s string) int64 {
	whole, frac, _ := strings.Cut(s, ".")
	w, _ := strconv.ParseInt(whole, 10, 64)
	c, _ := strconv.ParseInt((frac + "00")[:2], 10, 64)
	return w*100 + c
}

// partialBRLText writes centavos as a decimal with 2 places.
func partialBRLText(cents int64) string { return fmt.Sprintf("%d.%02d", cents/100, cents%100) }

// partialJSON answers status with v in JSON.
func partialJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// partialBRCode is a dynamic BR Code (EMV TLV, CRC-16/CCITT-FALSE) with the
// given location.
func partialBRCode(location string) string {
	tlv := func(id, v string) string { return fmt.Sprintf("%s%02d%s", id, len(v), v) }
	s := tlv("00", "01") + tlv("01", "12") + tlv("26", tlv("00", "br.gov.bcb.pix")+tlv("25", location)) +
		tlv("52", "0000") + tlv("53", "986") + tlv("58", "BR") + tlv("59", "PARTIAL PIX") + tlv("60", "SAO PAULO") +
		tlv("62", tlv("05", "***")) + "6304"
	crc := uint16(0xFFFF)
	for i := 0; i < len(s); i++ {
		crc ^= uint16(s[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return s + fmt.Sprintf("%04X", crc)
}

// runConformChild runs `pixsandbox conform args...` in a child process
// (childCommand, as the crash test does: Ginkgo runs one suite per process) and
// returns its exit code, its output and the -json result it wrote.
func runConformChild(t *testing.T, args ...string) (int, string, framework.RunResult) {
	t.Helper()
	for _, a := range args {
		if strings.ContainsAny(a, " \t\n") {
			t.Fatalf("argument %q has white space, which the child's command line cannot carry", a)
		}
	}
	dir := t.TempDir()
	jsonPath := filepath.Join(dir, "result.json")
	cmdLine := append([]string{"conform", "--json", jsonPath, "--reports-dir", dir, "--no-color", "--settle-timeout", "2s"}, args...)
	cmd := childCommand(t, cleanEnv(), cmdLine)
	out, err := cmd.CombinedOutput()
	code := cmd.ProcessState.ExitCode()
	if err != nil && code < 0 {
		t.Fatalf("conform: %v\n%s", err, out)
	}
	var res framework.RunResult
	raw, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatalf("the -json result: %v\n%s", err, out)
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("the -json result: %v", err)
	}
	return code, string(out), res
}

// TestConformPartialTarget proves the suite on an implementation it does not
// know: against partialPIX with --token or --token-command, the routes it
// serves are reached and checked, the routes it lacks come out absent (never
// checked, never failed), its one format difference (RFC 7807 errors) is one
// failure named for the format, and the run exits non-zero. Against the same
// implementation requiring no authentication, --auth none reaches its routes
// too, and its one deviation (no 401) fails only the 401 checks. Against the
// same implementation authenticating with a header of its own
// (mocked-token), --auth header --header reaches its routes and its 401
// checks still pass: they send no credential header.
func TestConformPartialTarget(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the suite in a child process")
	}
	t.Parallel() // its own servers and child processes
	p := newPartialPIX()
	srv := httptest.NewServer(p)
	defer srv.Close()
	open := newPartialPIX()
	open.open = true
	openSrv := httptest.NewServer(open)
	defer openSrv.Close()
	mocked := newPartialPIX()
	mocked.authHeader = "mocked-token"
	mockedSrv := httptest.NewServer(mocked)
	defer mockedSrv.Close()
	const shapeCheck = "Errors > Shapes answers the other routes' errors in the minimal error shape"

	// The routes partialPIX serves, and whether a check's full text (or a
	// route's name) belongs to one of them.
	served := []string{"GET /accounts/balances", "PUT /cob/{txid}", "GET /cob/{txid}"}
	present := func(s string) bool {
		s = strings.TrimPrefix(s, "Protected routes answer 401 to a request without a valid token ")
		for _, r := range served {
			if s == r || strings.HasPrefix(s, r+" ") {
				return true
			}
		}
		return false
	}
	const unauthorized = "Protected routes answer 401 to a request without a valid token "
	for _, auth := range []struct {
		name, target string
		args         []string
		// wantFailed says whether a failed check is the run's expected
		// failure: the target's one deviation.
		wantFailed func(check string) bool
		// wantPassed are checks that must pass besides those of every run.
		wantPassed []string
	}{
		{"token", srv.URL, []string{"--token", p.token}, func(c string) bool { return c == shapeCheck }, nil},
		// One word on the child's command line, "echo <token>" for sh.
		{"token-command", srv.URL, []string{"--token-command", "echo${IFS}" + p.token}, func(c string) bool { return c == shapeCheck }, nil},
		{"auth-none", openSrv.URL, []string{"--auth", "none"}, func(c string) bool { return strings.HasPrefix(c, unauthorized) }, nil},
		// One word on the child's command line: "Name:value" is a header.
		{"auth-header", mockedSrv.URL, []string{"--auth", "header", "--header", "mocked-token:" + mocked.token}, func(c string) bool { return c == shapeCheck },
			[]string{unauthorized + "PUT /cob/{txid} without an Authorization header", unauthorized + "GET /accounts/balances with a bearer token that is not a JWT"}},
	} {
		t.Run(auth.name, func(t *testing.T) {
			start := time.Now() // wall time: a bound on the child's run
			args := append([]string{"--target", auth.target, "--control-plane", "off", "--labels", "spec&&!sandbox&&!sandbox-choice"}, auth.args...)
			code, out, res := runConformChild(t, args...)
			t.Logf("conform ran in %s", time.Since(start).Round(time.Millisecond))
			if code != 1 {
				t.Fatalf("exit %d, want 1 (routes absent, a shape failed)\n%s", code, out)
			}

			// Its routes are reached: the rule checks of PUT /cob/{txid} pass.
			passed := map[string]bool{}
			var failed []string
			for _, c := range res.Checks {
				switch c.State {
				case framework.CheckPassed:
					passed[c.Name] = true
				case framework.CheckFailed:
					failed = append(failed, c.Name)
				}
			}
			for _, want := range append([]string{
				"PUT /cob/{txid} rejects a txid that already exists with 409",
				"PUT /cob/{txid} rejects with 400 (not 404) a txid of 25 characters",
				"PUT /cob/{txid} creates an ATIVA charge with revisao 0, tipoCob cob and the BR Code in loc.location and location",
				"GET /accounts/balances returns one balance item with eventDate, available, blocked and overdraft 0",
			}, auth.wantPassed...) {
				if !passed[want] {
					t.Errorf("check %q did not pass", want)
				}
			}

			// One deviation is one kind of failure: the format difference is
			// the one shape check; no authentication fails the 401 checks.
			if len(failed) == 0 {
				t.Error("no check failed against a target with a deviation")
			}
			for _, c := range failed {
				if !auth.wantFailed(c) {
					t.Errorf("check %q failed; the target's deviation does not explain it (failed: %q)", c, failed)
				}
			}

			// Absent routes are absent: their checks did not run.
			absentRoutes := map[string]bool{}
			for _, r := range res.Routes {
				if present(r.Route) != r.Present {
					t.Errorf("route %s: present %v (%s)", r.Route, r.Present, r.Evidence)
				}
				if !r.Present {
					absentRoutes[r.Route] = true
				}
			}
			for _, want := range []string{"POST /api/auth/token", "POST /api/pix/cash-out", "POST /api/pix/refund-in/{id}", "POST /api/resend-webhook/{transactionIdentifier}", "GET /api/med"} {
				if !absentRoutes[want] {
					t.Errorf("route %s is not reported absent", want)
				}
			}
			if res.Absent == 0 || !strings.Contains(out, "absent") {
				t.Errorf("the summary counts no absent check: %+v", res)
			}
			for _, c := range res.Checks {
				if c.State == framework.CheckAbsent && present(c.Name) {
					t.Errorf("check %q of a present route is reported absent", c.Name)
				}
			}

			// Nothing is falsely checked: every checked item was checked on a
			// present route, and every route the target lacks is absent.
			for _, it := range res.Coverage.Items {
				switch {
				case it.Status == framework.StatusChecked:
					for _, c := range it.Checks {
						if !present(c) {
							t.Errorf("%s %s is checked by %q, a check of a route the target lacks", it.Kind, it.Name, c)
						}
					}
				case it.Kind == framework.KindRoute && !present(it.Name) && it.Status != framework.StatusAbsent:
					t.Errorf("route %s: %s, want absent", it.Name, it.Status)
				}
			}
		})
	}
}

// TestConformPartialTarget_AuthGate runs the suite with -auth token-route
// against partialPIX, which has no token route: the run stops in its
// authentication gate with one setup error naming the request, the answer
// and the flags that fit, exits non-zero, and reports every check not run
// (none failed, none skipped). TestConformPartialTarget shows the same target
// reached with --token, --token-command and --auth none.
func TestConformPartialTarget_AuthGate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the suite in a child process")
	}
	srv := httptest.NewServer(newPartialPIX())
	defer srv.Close()
	certPEM, _, err := codec.SelfSignedCert(time.Now().Add(-time.Hour), time.Now().Add(time.Hour)) // wall time: certificate validity
	if err != nil {
		t.Fatal(err)
	}
	cert := filepath.Join(t.TempDir(), "client.pem")
	if err := os.WriteFile(cert, []byte(certPEM), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		args []string
		want []string
	}{
		{"credentials", []string{"--client-id", "11111111-1111-4111-8111-111111111111", "--client-secret", "s", "--client-cert", cert},
			[]string{"-auth token-route: POST /api/auth/token", "answered 404", "no token route", "--token-path", "--token", "--auth none"}},
		{"no credentials", nil, []string{"-auth token-route needs -client-id", "--auth none", "--token", "--token-command"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"--target", srv.URL, "--control-plane", "off", "--labels", "spec&&!sandbox&&!sandbox-choice"}, tt.args...)
			code, out, res := runConformChild(t, args...)
			if code != 1 {
				t.Fatalf("exit %d, want 1 (the run could not start)\n%s", code, out)
			}
			if res.SetupStep != framework.SetupStepAuth {
				t.Fatalf("setup step %q, failure %q; want the authentication gate\n%s", res.SetupStep, res.SetupFailure, out)
			}
			for _, want := range tt.want {
				if !strings.Contains(res.SetupFailure, want) {
					t.Errorf("setup failure %q lacks %q", res.SetupFailure, want)
				}
			}
			if res.Ran != 0 || res.Failed != 0 || res.Skipped != 0 || res.NotRun == 0 || res.NotRun != len(res.Checks)-res.NotSelected {
				t.Errorf("counts: ran %d, failed %d, skipped %d, not run %d of %d checks (%d not selected); want every selected check not run",
					res.Ran, res.Failed, res.Skipped, res.NotRun, len(res.Checks), res.NotSelected)
			}
			for _, c := range res.Checks {
				if c.State != framework.CheckNotRun && c.State != framework.CheckNotSelected {
					t.Errorf("check %q: %s (%s), want not run", c.Name, c.State, c.Reason)
					break
				}
			}
			if len(res.Routes) != 0 {
				t.Errorf("routes were probed after the gate failed: %+v", res.Routes)
			}
			if strings.Contains(out, "requesting the spec's token") || !strings.Contains(out, "not run: auth setup failed") && !strings.Contains(out, "(auth setup failed)") {
				t.Errorf("the output does not read as one setup error:\n%s", out)
			}
		})
	}
}

// TestConformPartialTarget_ControlRefused runs the suite against partialPIX
// refusing every devedor: the checks whose control is a cob with a valid
// devedor end control refused (the control's request and answer in the
// reason, counted apart, never failed), the check of the rule the target
// breaks (a valid devedor accepted) fails, and the run exits non-zero.
func TestConformPartialTarget_ControlRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the suite in a child process")
	}
	p := newPartialPIX()
	p.refuseDevedor = true
	srv := httptest.NewServer(p)
	defer srv.Close()
	code, out, res := runConformChild(t, "--target", srv.URL, "--control-plane", "off", "--labels", "spec&&!sandbox&&!sandbox-choice", "--token", p.token)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (controls refused, a rule broken)\n%s", code, out)
	}
	guarded := []string{
		"PUT /cob/{txid} rejects with 400 a body with a devedor.cpf of 10 digits",
		"PUT /cob/{txid} rejects with 400 a body with a devedor.cpf with punctuation",
	}
	deviations := map[string]bool{
		"PUT /cob/{txid} accepts a devedor with an 11-digit cpf and echoes it":        true,
		"Errors > Shapes answers the other routes' errors in the minimal error shape": true,
	}
	state := map[string]framework.CheckResult{}
	for _, c := range res.Checks {
		state[c.Name] = c
		if c.State == framework.CheckFailed && !deviations[c.Name] {
			t.Errorf("check %q failed; the target's deviations do not explain it (%s)", c.Name, c.Reason)
		}
		if c.State == framework.CheckControlRefused && !slices.Contains(guarded, c.Name) {
			t.Errorf("check %q: control refused (%s)", c.Name, c.Reason)
		}
	}
	for _, name := range guarded {
		c := state[name]
		if c.State != framework.CheckControlRefused {
			t.Errorf("check %q: %s (%s), want control refused", name, c.State, c.Reason)
			continue
		}
		for _, want := range []string{framework.ControlRefusedPrefix + "the same body without the fault: PUT /cob/", `"devedor":{"cpf":"`, "answered 400 Bad Request", "devedor: not supported"} {
			if !strings.Contains(c.Reason, want) {
				t.Errorf("check %q: reason %q lacks %q", name, c.Reason, want)
			}
		}
	}
	if c := state["PUT /cob/{txid} accepts a devedor with an 11-digit cpf and echoes it"]; c.State != framework.CheckFailed {
		t.Errorf("the rule the target breaks: %s (%s), want failed", c.State, c.Reason)
	}
	if res.ControlRefused != len(guarded) {
		t.Errorf("control refused %d, want %d", res.ControlRefused, len(guarded))
	}
	for _, want := range []string{fmt.Sprintf("control refused %d,", len(guarded)), "\n  control refused: " + guarded[0] + ": ", "checks ended control refused"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	covered := false
	for _, it := range res.Coverage.Items {
		if it.Name == "PUT /cob/{txid} 400 invalid CPF or CNPJ" {
			covered = true
			if it.Status != framework.StatusControlRefused {
				t.Errorf("coverage of %s: %s, want control refused", it.Name, it.Status)
			}
		}
	}
	if !covered {
		t.Error("the coverage report has no item for the devedor refusal")
	}
}

// TestConformPartialTarget_PartialRefundsRefused runs the suite, with
// --refund-e2e naming the one PIX partialPIX received, against partialPIX
// serving the refund route. Accepting partial refunds, every refund check
// the run selects passes: the refund route is implemented by the rules, and
// the one failure is the format difference (RFC 7807 errors). Refusing every
// partial refund, the checks of refund/body-invalid, whose control is a
// refund of 0.01, end control refused (the control's request and answer in
// the reason, counted apart, never failed); the checks whose own subject is
// an accepted refund of 0.01 fail, since the contract allows partial refunds
// and the target refuses them; nothing else fails but the format difference;
// and the run exits 1.
func TestConformPartialTarget_PartialRefundsRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the suite in a child process")
	}
	const (
		refund     = "PUT /pix/{e2eid}/devolucao/{id} "
		shapeCheck = "Errors > Shapes answers the other routes' errors in the minimal error shape"
	)
	// The checks of refund/body-invalid: a body with one fault must be
	// refused with 400, and the same body without it (a refund of 0.01 of
	// the configured PIX) accepted, the control.
	guarded := []string{
		refund + `rejects with 400 a body with valor "10.5"`,
		refund + `rejects with 400 a body with valor "0.00"`,
		refund + "rejects with 400 a body with natureza MED_FRAUDE",
		refund + "rejects with 400 a body with natureza MED_OPERACIONAL",
		refund + "rejects with 400 a body with a descricao of 141 characters",
	}
	// The checks whose subject is an accepted refund of 0.01 of the
	// configured PIX: "refunds may be partial or full" (Endpoints >
	// PUT /pix/{e2eid}/devolucao/{id}), so refusing it is a deviation of the
	// target, on top of the format difference of every partialPIX.
	refusedRefund := []string{
		refund + "accepts a refund with the id, a 32-character rtrId, the valor and horario.solicitacao",
		refund + "accepts natureza RETIRADA and echoes it",
		refund + "holds the amount in blocked while the refund is processed",
	}
	// The refund checks that need no refund accepted: a malformed path
	// (400) and an e2eid that names no PIX (404), both judged before the
	// refusal of a partial refund.
	refusals := []string{
		refund + "rejects with 400 (not 404) a path with an e2eid of 31 characters",
		refund + "rejects with 400 (not 404) a path with an e2eid of 33 characters",
		refund + "rejects with 400 (not 404) a path with an e2eid with a '-'",
		refund + "rejects with 400 (not 404) a path with an id of 36 characters",
		refund + "rejects an e2eid that names no PIX with 404",
	}
	for _, tt := range []struct {
		name   string
		refuse bool
		// deviations are the checks that fail, each for the reason given.
		deviations map[string]string
		// controlRefused are the checks that end control refused.
		controlRefused []string
		// passed are checks that must pass.
		passed []string
	}{
		{"partial refunds accepted", false,
			// Every error of partialPIX is an RFC 7807 problem document,
			// not the minimal shape of "Errors > Shapes", item 3.
			map[string]string{shapeCheck: "minimal error shape"},
			nil, slices.Concat(guarded, refusedRefund, refusals)},
		{"partial refunds refused", true,
			map[string]string{
				// RFC 7807 errors, as above.
				shapeCheck: "minimal error shape",
				// Each refunds 0.01 of the PIX, a partial refund the
				// contract allows and the target refuses.
				refusedRefund[0]: partialRefundRefusal,
				refusedRefund[1]: partialRefundRefusal,
				refusedRefund[2]: partialRefundRefusal,
			},
			guarded, refusals},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := newPartialPIX()
			p.refunds = true
			p.refusePartialRefunds = tt.refuse
			srv := httptest.NewServer(p)
			defer srv.Close()
			start := time.Now() // wall time: a bound on the child's run
			code, out, res := runConformChild(t, "--target", srv.URL, "--control-plane", "off", "--labels", "spec&&!sandbox&&!sandbox-choice",
				"--token", p.token, "--refund-e2e", partialE2E)
			t.Logf("conform ran in %s", time.Since(start).Round(time.Millisecond))
			if code != 1 {
				t.Fatalf("exit %d, want 1 (deviations)\n%s", code, out)
			}

			state := map[string]framework.CheckResult{}
			for _, c := range res.Checks {
				state[c.Name] = c
				if _, ok := tt.deviations[c.Name]; c.State == framework.CheckFailed && !ok {
					t.Errorf("check %q failed; the target's deviations do not explain it (%s)", c.Name, c.Reason)
				}
				if c.State == framework.CheckControlRefused && !slices.Contains(tt.controlRefused, c.Name) {
					t.Errorf("check %q: control refused (%s)", c.Name, c.Reason)
				}
			}
			for name, why := range tt.deviations {
				if c := state[name]; c.State != framework.CheckFailed || !strings.Contains(c.Reason, why) {
					t.Errorf("check %q: %s (%s), want failed for %q", name, c.State, c.Reason, why)
				}
			}
			for _, name := range tt.passed {
				if c := state[name]; c.State != framework.CheckPassed {
					t.Errorf("check %q: %s (%s), want passed", name, c.State, c.Reason)
				}
			}
			for _, name := range tt.controlRefused {
				c := state[name]
				if c.State != framework.CheckControlRefused {
					t.Errorf("check %q: %s (%s), want control refused", name, c.State, c.Reason)
					continue
				}
				// The reason carries the control's request (a refund of 0.01
				// of the configured PIX) and the target's answer.
				for _, want := range []string{
					framework.ControlRefusedPrefix + "the same refund without the fault: PUT /pix/" + partialE2E + "/devolucao/",
					`"valor":"0.01"`, `"natureza":"ORIGINAL"`, "answered 400 Bad Request", partialRefundRefusal,
				} {
					if !strings.Contains(c.Reason, want) {
						t.Errorf("check %q: reason %q lacks %q", name, c.Reason, want)
					}
				}
			}
			if res.ControlRefused != len(tt.controlRefused) {
				t.Errorf("control refused %d, want %d", res.ControlRefused, len(tt.controlRefused))
			}
			if want := fmt.Sprintf("control refused %d,", len(tt.controlRefused)); !strings.Contains(out, want) {
				t.Errorf("the output lacks %q:\n%s", want, out)
			}
			for _, name := range tt.controlRefused {
				if want := "\n  control refused: " + name + ": "; !strings.Contains(out, want) {
					t.Errorf("the output lacks %q:\n%s", want, out)
				}
			}

			// The refund route is present, and the coverage of its 400 for
			// an invalid value follows its valor checks.
			present := false
			for _, r := range res.Routes {
				if r.Route == "PUT /pix/{e2eid}/devolucao/{id}" {
					present = r.Present
				}
			}
			if !present {
				t.Errorf("route PUT /pix/{e2eid}/devolucao/{id} is not reported present: %+v", res.Routes)
			}
			wantItem := framework.StatusChecked
			if tt.refuse {
				wantItem = framework.StatusControlRefused
			}
			covered := false
			for _, it := range res.Coverage.Items {
				if it.Name == "PUT refund 400 invalid value" {
					covered = true
					if it.Status != wantItem {
						t.Errorf("coverage of %s: %s, want %s", it.Name, it.Status, wantItem)
					}
				}
			}
			if !covered {
				t.Error("the coverage report has no item for the refund's 400 invalid value")
			}
		})
	}
}
