package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/brianvoe/gofakeit/v7"

	"github.com/pixsandbox/pixsandbox/fixtures"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// ISPBs of the institutions in banks.json (DOMAIN.md A4).
const (
	ispbBancoDoBrasil = "00000000"
	ispbSantander     = "90400888"
	ispbInter         = "00416968"
	ispbCaixa         = "00360305"
	ispbBTG           = "30306294"
	ispbBradesco      = "60746948"
	ispbNubank        = "18236120"
	ispbItau          = "60701190"
	ispbC6            = "31872495"
	ispbMercadoPago   = "10573521"
	ispbPagSeguro     = "08561701"
	ispbBancoCentral  = "00038166"
	// ispbSandbox is the sandbox's own institution, which holds the accounts
	// of accounts.json.
	ispbSandbox = "13140088"
)

// newBanks returns banks.json: the ISPB table of DOMAIN.md A4, in its order,
// then the sandbox's own institution.
func newBanks() []fixtures.Bank {
	return []fixtures.Bank{
		{ISPB: ispbBancoDoBrasil, Name: "Banco do Brasil S.A.", Code: "001"},
		{ISPB: ispbSantander, Name: "Banco Santander (Brasil) S.A.", Code: "033"},
		{ISPB: ispbInter, Name: "Banco Inter S.A.", Code: "077"},
		{ISPB: ispbCaixa, Name: "Caixa Econômica Federal", Code: "104"},
		{ISPB: ispbBTG, Name: "Banco BTG Pactual S.A.", Code: "208"},
		{ISPB: ispbBradesco, Name: "Banco Bradesco S.A.", Code: "237"},
		{ISPB: ispbNubank, Name: "Nu Pagamentos S.A. - Instituição de Pagamento", Code: "260"},
		{ISPB: ispbItau, Name: "Itaú Unibanco S.A.", Code: "341"},
		{ISPB: ispbC6, Name: "Banco C6 S.A.", Code: "336"},
		{ISPB: ispbMercadoPago, Name: "Mercado Pago Instituição de Pagamento Ltda.", Code: "323"},
		{ISPB: ispbPagSeguro, Name: "PagSeguro Internet Instituição de Pagamento S.A.", Code: "290"},
		{ISPB: ispbBancoCentral, Name: "Banco Central do Brasil", Code: ""},
		{ISPB: ispbSandbox, Name: "pixsandbox Instituição de Pagamento", Code: "999", Sandbox: true},
	}
}

// dictStream selects the PCG stream of dictFaker ("DICT" in ASCII).
// gofakeit.New(fixtures.Seed), which draws accounts.json, is the stream
// rand.NewPCG(Seed, Seed); dict.json draws from its own stream of the same seed,
// so changing dict.json never changes accounts.json.
const dictStream uint64 = 0x44494354

// dictFaker returns the faker that draws dict.json.
func dictFaker() *gofakeit.Faker {
	return gofakeit.NewFaker(rand.NewPCG(fixtures.Seed, dictStream), true)
}

// magicKeyDomain is the e-mail domain of magic keys: the local part is the
// scenario, lowercase with dashes (tax-id-mismatch@scenario.pixsandbox.example).
const magicKeyDomain = "scenario.pixsandbox.example"

// holder is one account of dict.json and the key types registered to it, in
// order. A scenario holder owns a single EMAIL magic key.
type holder struct {
	company     bool
	ispb        string
	accountType string
	keys        []string
	scenario    string
}

// holders is the plan of dict.json: individuals (CPF) and companies (CNPJ)
// at the real institutions of banks.json, every key type at several of them,
// at least two keys each at Banco do Brasil and Itaú (for ispbDeny), and then
// one magic key per scenario, none at Banco do Brasil or Itaú so that a
// client blocking those ISPBs still reaches every scenario.
var holders = []holder{
	{false, ispbBancoDoBrasil, "CACC", []string{"CPF", "EMAIL", "PHONE", "EVP"}, ""},
	{true, ispbBancoDoBrasil, "CACC", []string{"CNPJ", "EMAIL", "EVP"}, ""},
	{false, ispbItau, "CACC", []string{"CPF", "EMAIL", "PHONE"}, ""},
	{true, ispbItau, "CACC", []string{"CNPJ", "EVP", "EVP"}, ""},
	{false, ispbNubank, "TRAN", []string{"CPF", "PHONE", "EVP"}, ""},
	{true, ispbNubank, "TRAN", []string{"CNPJ", "EMAIL"}, ""},
	{false, ispbBradesco, "SVGS", []string{"CPF", "EMAIL"}, ""},
	{true, ispbBradesco, "CACC", []string{"CNPJ", "EMAIL", "PHONE"}, ""},
	{false, ispbCaixa, "SVGS", []string{"CPF", "PHONE", "EVP"}, ""},
	{false, ispbSantander, "CACC", []string{"EMAIL", "EVP"}, ""},
	{true, ispbSantander, "CACC", []string{"CNPJ"}, ""},
	{false, ispbInter, "CACC", []string{"CPF", "EMAIL", "PHONE"}, ""},
	{true, ispbBTG, "CACC", []string{"CNPJ", "EVP"}, ""},
	{false, ispbC6, "CACC", []string{"PHONE", "EVP"}, ""},
	{true, ispbMercadoPago, "TRAN", []string{"CNPJ", "EMAIL"}, ""},
	{false, ispbMercadoPago, "TRAN", []string{"EMAIL"}, ""},
	{false, ispbPagSeguro, "TRAN", []string{"CPF", "EVP"}, ""},

	{false, ispbBradesco, "CACC", []string{"EMAIL"}, "TAX_ID_MISMATCH"},
	{false, ispbNubank, "TRAN", []string{"EMAIL"}, "INVALID_TAX_ID"},
	{false, ispbCaixa, "CACC", []string{"EMAIL"}, "BLOCKED_ACCOUNT"},
	{false, ispbSantander, "CACC", []string{"EMAIL"}, "ACCOUNT_CLOSED"},
	{true, ispbInter, "CACC", []string{"EMAIL"}, "ORDER_REJECTED"},
	{false, ispbC6, "CACC", []string{"EMAIL"}, "PAYMENT_EXPIRED"},
	{true, ispbBTG, "CACC", []string{"EMAIL"}, "SETTLEMENT_TIMEOUT"},
	{false, ispbMercadoPago, "TRAN", []string{"EMAIL"}, "SLOW_SETTLEMENT"},
	{true, ispbPagSeguro, "TRAN", []string{"EMAIL"}, "SETTLEMENT_PENDING"},
	{true, ispbBradesco, "CACC", []string{"EMAIL"}, "PIX_INSUFFICIENT_BALANCE"},
}

// Word lists for dict.json's company names and e-mail addresses.
var (
	companyActivities = []string{"Comércio", "Serviços", "Tecnologia", "Logística", "Alimentos", "Engenharia", "Transportes", "Consultoria"}
	companySuffixes   = []string{"Ltda", "S.A."}
	companyMailboxes  = []string{"financeiro", "contato", "pagamentos"}
	personDomains     = []string{"example.com", "example.net", "example.org"}
)

// magicKey returns the magic e-mail key of scenario.
func magicKey(scenario string) string {
	return strings.ToLower(strings.ReplaceAll(scenario, "_", "-")) + "@" + magicKeyDomain
}

// newDICT draws dict.json from f following holders. Documents and keys never
// repeat one another or those of accounts (the loader requires unique keys
// across both files); a clash is drawn again, or for e-mails numbered.
func newDICT(f *gofakeit.Faker, accounts []fixtures.Account) ([]fixtures.DICTKey, error) {
	usedKeys := map[string]bool{}
	usedDocs := map[string]bool{}
	for _, a := range accounts {
		usedDocs[a.Document] = true
		for _, k := range a.PixKeys {
			usedKeys[k.Key] = true
		}
	}
	var out []fixtures.DICTKey
	for i, h := range holders {
		var (
			name, doc, mailbox, domain string
			err                        error
		)
		if h.company {
			last := f.LastName()
			name = last + " " + f.RandomString(companyActivities) + " " + f.RandomString(companySuffixes)
			mailbox, domain = f.RandomString(companyMailboxes), slug(last)+".example.com"
			doc, err = unique(usedDocs, func() (string, error) {
				return draw(f, 8, func(root string) (string, error) { return pix.CNPJCheckDigits(root + "0001") })
			})
		} else {
			first, last := f.FirstName(), f.LastName()
			name = first + " " + last
			mailbox, domain = slug(first)+"."+slug(last), f.RandomString(personDomains)
			doc, err = unique(usedDocs, func() (string, error) { return draw(f, 9, pix.CPFCheckDigits) })
		}
		if err != nil {
			return nil, fmt.Errorf("holder %d document: %w", i, err)
		}
		usedDocs[doc] = true
		branch, number := fmt.Sprintf("%04d", f.IntRange(1, 9999)), f.Numerify("########")
		if h.accountType == "TRAN" {
			branch, number = "0001", f.Numerify("##########")
		}
		for _, typ := range h.keys {
			var key string
			switch {
			case h.scenario != "":
				key = magicKey(h.scenario)
			case typ == "CPF" || typ == "CNPJ":
				key = doc
			case typ == "EMAIL":
				key = mailbox + "@" + domain
				for n := 2; usedKeys[key]; n++ {
					key = fmt.Sprintf("%s%d@%s", mailbox, n, domain)
				}
			case typ == "PHONE":
				key, err = unique(usedKeys, func() (string, error) {
					if h.company { // a landline: 8 digits after the area code
						return "+55" + f.RandomString(areaCodes) + f.RandomString([]string{"2", "3", "4"}) + f.DigitN(7), nil
					}
					return "+55" + f.RandomString(areaCodes) + "9" + f.DigitN(8), nil
				})
			case typ == "EVP":
				key, err = unique(usedKeys, func() (string, error) { return uuidV4(f), nil })
			default:
				err = fmt.Errorf("unknown key type %q", typ)
			}
			if err != nil {
				return nil, fmt.Errorf("holder %d %s key: %w", i, typ, err)
			}
			if usedKeys[key] {
				return nil, fmt.Errorf("holder %d: key %q is already taken", i, key)
			}
			usedKeys[key] = true
			out = append(out, fixtures.DICTKey{
				Key: key, Type: typ, Name: name, Document: doc,
				ISPB: h.ispb, Branch: branch, AccountNumber: number, AccountType: h.accountType,
				Scenario: h.scenario,
			})
		}
	}
	return out, nil
}

// unique calls next until it returns a value not in used, giving up after a
// few attempts. It does not add the value to used.
func unique(used map[string]bool, next func() (string, error)) (string, error) {
	for range 10 {
		v, err := next()
		if err != nil {
			return "", err
		}
		if !used[v] {
			return v, nil
		}
	}
	return "", fmt.Errorf("no unused value in 10 draws")
}

// marshalDICT renders dict.json: one key per line, so the file reads as a
// table and diffs line by line.
func marshalDICT(keys []fixtures.DICTKey) ([]byte, error) {
	return marshalLines("keys", keys)
}

// marshalBanks renders banks.json, one bank per line.
func marshalBanks(banks []fixtures.Bank) ([]byte, error) {
	return marshalLines("banks", banks)
}

// marshalLines renders {"field": [items…]} with each item compact on its own
// line, no HTML escaping and a trailing newline.
func marshalLines[T any](field string, items []T) ([]byte, error) {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "{\n  %q: [", field)
	for i, it := range items {
		var line bytes.Buffer
		enc := json.NewEncoder(&line)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(it); err != nil {
			return nil, err
		}
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString("\n    ")
		buf.Write(bytes.TrimSuffix(line.Bytes(), []byte("\n")))
	}
	if len(items) > 0 {
		buf.WriteString("\n  ")
	}
	buf.WriteString("]\n}\n")
	return buf.Bytes(), nil
}
