// Command pixfixtures regenerates the fixture data of package fixtures:
// accounts.json, banks.json, dict.json, the sandbox test CA and every client
// certificate under certs/.
//
//	go run ./cmd/pixfixtures -out fixtures                    (make fixtures: everything)
//	go run ./cmd/pixfixtures -out fixtures -only banks,dict   (leaves certs/ alone)
//
// Everything in accounts.json (names, documents, credentials, account numbers,
// PIX keys) comes from gofakeit.New(fixtures.Seed), and everything in dict.json
// from a second stream of the same seed (dictFaker), so both are identical on
// every run; banks.json is a fixed table. Certificates and private keys use
// crypto/rand and differ on every run: regenerating them replaces the
// committed keys, so do it deliberately, and never from go test. -only limits
// a run to some of the parts accounts, banks, dict and certs.
package main

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/brianvoe/gofakeit/v7"

	"github.com/pixsandbox/pixsandbox/fixtures"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "pixfixtures:", err)
		os.Exit(1)
	}
}

// run parses args and writes the fixtures; usage and progress go to stderr.
func run(args []string, stderr io.Writer) error {
	fl := flag.NewFlagSet("pixfixtures", flag.ContinueOnError)
	fl.SetOutput(stderr)
	out := fl.String("out", "fixtures", "directory that receives accounts.json, banks.json, dict.json and certs/")
	only := fl.String("only", "", "comma-separated parts to write, of "+strings.Join(allParts, ", ")+
		" (default all; certs replaces every key and certificate)")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if fl.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fl.Args())
	}
	ps, err := parseParts(*only)
	if err != nil {
		return err
	}
	if err := generate(*out, ps); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "pixfixtures: wrote %s to %s\n", strings.Join(ps.names(), ", "), *out)
	return nil
}

// allParts are the parts of a fixture set the generator writes.
var allParts = []string{"accounts", "banks", "dict", "certs"}

// parts is the set of parts a run writes.
type parts map[string]bool

// parseParts reads -only: empty means every part.
func parseParts(only string) (parts, error) {
	ps := parts{}
	if strings.TrimSpace(only) == "" {
		for _, p := range allParts {
			ps[p] = true
		}
		return ps, nil
	}
	for _, p := range strings.Split(only, ",") {
		p = strings.TrimSpace(p)
		if !slices.Contains(allParts, p) {
			return nil, fmt.Errorf("-only: unknown part %q; the parts are %s", p, strings.Join(allParts, ", "))
		}
		ps[p] = true
	}
	return ps, nil
}

// names lists the parts of ps in allParts order.
func (ps parts) names() []string {
	var out []string
	for _, p := range allParts {
		if ps[p] {
			out = append(out, p)
		}
	}
	return out
}

// window is a certificate validity period, both ends inclusive.
type window struct{ notBefore, notAfter time.Time }

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// Validity windows, documented in fixtures/README.md. The valid window covers
// fixtures.Epoch and today's real date; the others are far from both.
var (
	caWindow          = window{day(2025, 1, 1), day(2050, 1, 1)}
	validWindow       = window{day(2025, 1, 1), day(2046, 1, 1)}
	expiredWindow     = window{day(2020, 1, 1), day(2021, 1, 1)}
	notYetValidWindow = window{day(2098, 1, 1), day(2099, 1, 1)}
)

// caCommonName is the subject CN of the sandbox test CA.
const caCommonName = "pixsandbox test CA"

// malformedBody is the content of malformed.pem's CERTIFICATE block: valid
// base64 of bytes that are not DER, so pem.Decode succeeds and
// x509.ParseCertificate fails.
const malformedBody = "pixsandbox: this CERTIFICATE block is deliberately not a DER certificate.\n"

// generate writes the parts ps of a fixture set under out, then loads the
// result with fixtures.Dir to prove it is a valid fixture set (so a partial run
// needs the other parts already in out).
func generate(out string, ps parts) error {
	accounts, err := newAccounts(gofakeit.New(fixtures.Seed))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	write := func(name string, data []byte) error {
		return os.WriteFile(filepath.Join(out, filepath.FromSlash(name)), data, 0o644)
	}
	if ps["certs"] {
		if err := generateCerts(out, accounts, write); err != nil {
			return err
		}
	}
	if ps["accounts"] {
		data, err := marshalAccounts(accounts)
		if err != nil {
			return err
		}
		if err := write("accounts.json", data); err != nil {
			return err
		}
	}
	banks := newBanks()
	if ps["banks"] {
		data, err := marshalBanks(banks)
		if err != nil {
			return err
		}
		if err := write("banks.json", data); err != nil {
			return err
		}
	}
	if ps["dict"] {
		keys, err := newDICT(dictFaker(), accounts)
		if err != nil {
			return err
		}
		data, err := marshalDICT(keys)
		if err != nil {
			return err
		}
		if err := write("dict.json", data); err != nil {
			return err
		}
	}
	if _, err := fixtures.Dir(out); err != nil {
		return fmt.Errorf("generated fixtures do not load: %w", err)
	}
	return nil
}

// generateCerts writes the test CA, every account's certificate and the
// certificates for negative tests under certs/ of out, with keys from
// crypto/rand.
func generateCerts(out string, accounts []fixtures.Account, write func(name string, data []byte) error) error {
	if err := os.MkdirAll(filepath.Join(out, "certs"), 0o755); err != nil {
		return err
	}
	writePair := func(certName, keyName string, c issued) error {
		if err := write(certName, c.certPEM); err != nil {
			return err
		}
		return write(keyName, c.keyPEM)
	}

	ca, err := issue(nil, caCommonName, caWindow, nil)
	if err != nil {
		return fmt.Errorf("test CA: %w", err)
	}
	if err := writePair("certs/ca.pem", "certs/ca-key.pem", ca); err != nil {
		return err
	}
	for _, a := range accounts {
		// The base64 of every account certificate holds both '+' and '/', so
		// clients that forget to URL-encode X-SSL-Client-Cert fail visibly.
		c, err := issue(&ca, a.Name, validWindow, func(der []byte) bool {
			b64 := base64.StdEncoding.EncodeToString(der)
			return strings.Contains(b64, "+") && strings.Contains(b64, "/")
		})
		if err != nil {
			return fmt.Errorf("account %d certificate: %w", a.ID, err)
		}
		if err := writePair(a.Certificate, a.Key, c); err != nil {
			return err
		}
	}

	owner := accounts[0].Name
	extra := []struct {
		cn     string
		w      window
		prefix string
	}{
		{owner, expiredWindow, "expired"},
		{owner, notYetValidWindow, "not-yet-valid"},
		{owner, validWindow, "revoked"},
		{"pixsandbox unregistered client", validWindow, "unregistered"},
	}
	for _, e := range extra {
		c, err := issue(&ca, e.cn, e.w, nil)
		if err != nil {
			return fmt.Errorf("%s certificate: %w", e.prefix, err)
		}
		if err := writePair("certs/"+e.prefix+".pem", "certs/"+e.prefix+"-key.pem", c); err != nil {
			return err
		}
	}
	return write("certs/malformed.pem", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte(malformedBody)}))
}

// marshalAccounts renders accounts.json: indented, with a trailing newline.
func marshalAccounts(accounts []fixtures.Account) ([]byte, error) {
	return marshalIndent(struct {
		Accounts []fixtures.Account `json:"accounts"`
	}{accounts})
}

// marshalIndent renders v as the fixture files are written: two-space
// indentation, no HTML escaping, a trailing newline.
func marshalIndent(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// newAccounts draws the seed accounts from f: account 1 an individual with
// R$ 10,000.00, account 2 a company with R$ 250,000.00 and account 3 an
// individual with a zero balance. Account 1 also owns the expired,
// not-yet-valid and revoked certificates. The faker is the only source of
// variation, so the same seed always yields the same accounts.
func newAccounts(f *gofakeit.Faker) ([]fixtures.Account, error) {
	specs := []struct {
		company bool
		balance string
	}{
		{false, "10000.00"},
		{true, "250000.00"},
		{false, "0.00"},
	}
	accounts := make([]fixtures.Account, 0, len(specs))
	for i, s := range specs {
		id := int64(i + 1)
		a := fixtures.Account{
			ID:          id,
			ClientID:    uuidV4(f),
			Certificate: fmt.Sprintf("certs/account-%d.pem", id),
			Key:         fmt.Sprintf("certs/account-%d-key.pem", id),
			Balance:     s.balance,
			Branch:      "0001",
		}
		var (
			email   string
			docType string
			err     error
		)
		if s.company {
			last := f.LastName()
			a.Name = last + " " + f.RandomString([]string{"Comércio", "Serviços", "Tecnologia", "Logística"}) + " Ltda"
			email = "financeiro@" + slug(last) + ".example.com"
			docType = "CNPJ"
			a.Document, err = draw(f, 8, func(root string) (string, error) { return pix.CNPJCheckDigits(root + "0001") })
		} else {
			first, last := f.FirstName(), f.LastName()
			a.Name = first + " " + last
			email = slug(first) + "." + slug(last) + "@example.com"
			docType = "CPF"
			a.Document, err = draw(f, 9, pix.CPFCheckDigits)
		}
		if err != nil {
			return nil, fmt.Errorf("account %d document: %w", id, err)
		}
		a.ClientSecret = f.Password(true, true, true, false, false, 40)
		a.AccountNumber = f.Numerify("########")
		a.PixKeys = []fixtures.PixKey{
			{Type: docType, Key: a.Document},
			{Type: "EMAIL", Key: email},
			{Type: "PHONE", Key: "+55" + f.RandomString(areaCodes) + "9" + f.DigitN(8)},
			{Type: "EVP", Key: uuidV4(f)},
		}
		if id == 1 {
			a.OtherCertificates = []fixtures.CertRef{
				{Certificate: "certs/expired.pem", Key: "certs/expired-key.pem"},
				{Certificate: "certs/not-yet-valid.pem", Key: "certs/not-yet-valid-key.pem"},
				{Certificate: "certs/revoked.pem", Key: "certs/revoked-key.pem", Revoked: true},
			}
		}
		accounts = append(accounts, a)
	}
	return accounts, nil
}

// areaCodes are Brazilian DDDs the phone keys draw from.
var areaCodes = []string{"11", "21", "27", "31", "41", "47", "48", "51", "61", "62", "71", "81", "85", "91", "92"}

// draw asks f for n-digit bases until complete accepts one (it rejects bases
// that yield a repeated-digit document), giving up after a few attempts.
func draw(f *gofakeit.Faker, n uint, complete func(base string) (string, error)) (string, error) {
	var err error
	for range 10 {
		var doc string
		if doc, err = complete(f.DigitN(n)); err == nil {
			return doc, nil
		}
	}
	return "", err
}

// uuidV4 returns a lowercase hyphenated UUID from f with the version nibble
// forced to 4 and the variant to RFC 4122 (8, 9, a or b).
func uuidV4(f *gofakeit.Faker) string {
	u := []byte(strings.ToLower(f.UUID()))
	u[14] = '4'
	if !strings.ContainsRune("89ab", rune(u[19])) {
		u[19] = "89ab"[strings.IndexByte("0123456789abcdef", u[19])%4]
	}
	return string(u)
}

// accentFolds maps the accented lowercase letters of Portuguese (and a few
// more) to their base ASCII letter.
var accentFolds = strings.NewReplacer(
	"á", "a", "à", "a", "â", "a", "ã", "a", "ä", "a",
	"é", "e", "è", "e", "ê", "e", "ë", "e",
	"í", "i", "ì", "i", "î", "i", "ï", "i",
	"ó", "o", "ò", "o", "ô", "o", "õ", "o", "ö", "o",
	"ú", "u", "ù", "u", "û", "u", "ü", "u",
	"ç", "c", "ñ", "n",
)

// slug lowercases s, folds its accents and keeps only ASCII letters and
// digits, for e-mail local parts and domains; it returns "cliente" when
// nothing is left.
func slug(s string) string {
	var b strings.Builder
	for _, r := range accentFolds.Replace(strings.ToLower(s)) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "cliente"
	}
	return b.String()
}

// issued is a certificate and its key, both PEM, plus the parsed certificate
// and key for signing others.
type issued struct {
	certPEM, keyPEM []byte
	cert            *x509.Certificate
	key             *ecdsa.PrivateKey
}

// issue creates an ECDSA P-256 key and a certificate for it valid during w.
// With parent nil it is a self-signed CA named cn; otherwise a client
// certificate with CN cn signed by parent. When accept is not nil, issue
// draws new keys until accept(der) holds. Keys come from crypto/rand.
func issue(parent *issued, cn string, w window, accept func(der []byte) bool) (issued, error) {
	for attempt := 0; attempt < 1000; attempt++ {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return issued{}, err
		}
		serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
		if err != nil {
			return issued{}, err
		}
		tmpl := &x509.Certificate{
			SerialNumber:          serial.Add(serial, big.NewInt(1)),
			Subject:               pkix.Name{CommonName: cn, Organization: []string{"pixsandbox"}},
			NotBefore:             w.notBefore,
			NotAfter:              w.notAfter,
			BasicConstraintsValid: true,
		}
		signer, signerCert := key, tmpl
		if parent == nil {
			tmpl.IsCA = true
			tmpl.MaxPathLenZero = true
			tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature
		} else {
			tmpl.KeyUsage = x509.KeyUsageDigitalSignature
			tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
			signer, signerCert = parent.key, parent.cert
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, signerCert, &key.PublicKey, signer)
		if err != nil {
			return issued{}, err
		}
		if accept != nil && !accept(der) {
			continue
		}
		cert, err := x509.ParseCertificate(der)
		if err != nil {
			return issued{}, err
		}
		pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			return issued{}, err
		}
		return issued{
			certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
			keyPEM:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}),
			cert:    cert,
			key:     key,
		}, nil
	}
	return issued{}, errors.New("no certificate met the acceptance rule in 1000 attempts")
}
