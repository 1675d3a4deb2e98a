package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/brianvoe/gofakeit/v7"
	"github.com/google/go-cmp/cmp"

	"github.com/pixsandbox/pixsandbox/fixtures"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// TestBanksAndDICTMatchCommitted fails when the committed banks.json or
// dict.json is not what the generator writes: either a file was edited by hand
// or the generator changed without regenerating them.
func TestBanksAndDICTMatchCommitted(t *testing.T) {
	t.Parallel()
	accounts, err := newAccounts(gofakeit.New(fixtures.Seed))
	if err != nil {
		t.Fatal(err)
	}
	keys, err := newDICT(dictFaker(), accounts)
	if err != nil {
		t.Fatal(err)
	}
	gotDICT, err := marshalDICT(keys)
	if err != nil {
		t.Fatal(err)
	}
	gotBanks, err := marshalBanks(newBanks())
	if err != nil {
		t.Fatal(err)
	}
	set, err := fixtures.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string][]byte{"banks.json": gotBanks, "dict.json": gotDICT} {
		want, err := set.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("%s from the generator differs from the committed file (-committed +generated):\n%s\n"+
				"regenerate with: go run ./cmd/pixfixtures -out fixtures -only banks,dict", name, diff)
		}
	}
}

func TestNewDICT(t *testing.T) {
	t.Parallel()
	accounts, err := newAccounts(gofakeit.New(fixtures.Seed))
	if err != nil {
		t.Fatal(err)
	}
	a, err := newDICT(dictFaker(), accounts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := newDICT(dictFaker(), accounts)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("two draws from the same stream differ (-first +second):\n%s", diff)
	}
	wantKeys := 0
	for _, h := range holders {
		wantKeys += len(h.keys)
	}
	if len(a) != wantKeys {
		t.Fatalf("newDICT drew %d keys, the plan has %d", len(a), wantKeys)
	}
	for i, k := range a {
		if !pix.ValidDocument(k.Document) {
			t.Errorf("keys[%d]: invalid document %q", i, k.Document)
		}
		if k.Scenario != "" && k.Key != magicKey(k.Scenario) {
			t.Errorf("keys[%d]: scenario %s on key %q, want %q", i, k.Scenario, k.Key, magicKey(k.Scenario))
		}
	}
	// dict.json has its own stream of the seed, not the accounts' one.
	if dictFaker().UUID() == gofakeit.New(fixtures.Seed).UUID() {
		t.Fatal("dictFaker draws the same stream as the accounts")
	}
}

func TestMagicKey(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"TAX_ID_MISMATCH":          "tax-id-mismatch@scenario.pixsandbox.example",
		"PIX_INSUFFICIENT_BALANCE": "pix-insufficient-balance@scenario.pixsandbox.example",
	} {
		if got := magicKey(name); got != want {
			t.Errorf("magicKey(%s) = %q, want %q", name, got, want)
		}
	}
	// Every scenario the loader accepts has exactly one holder in the plan.
	seen := map[string]int{}
	for _, h := range holders {
		if h.scenario != "" {
			seen[h.scenario]++
		}
	}
	for _, s := range fixtures.Scenarios() {
		if seen[s] != 1 {
			t.Errorf("scenario %s has %d magic keys in the plan, want 1", s, seen[s])
		}
	}
}

// TestGenerateOnly regenerates banks.json and dict.json into a complete set
// and checks that nothing else was touched.
func TestGenerateOnly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := run([]string{"-out", dir}, io.Discard); err != nil {
		t.Fatal(err)
	}
	snapshot := func() map[string][]byte {
		t.Helper()
		files := map[string][]byte{}
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(path)
			files[strings.TrimPrefix(path, dir)] = b
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return files
	}
	before := snapshot()
	for _, name := range []string{"banks.json", "dict.json"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("stale"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var stderr bytes.Buffer
	if err := run([]string{"-out", dir, "-only", "dict, banks"}, &stderr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "wrote banks, dict to") {
		t.Errorf("stderr = %q, want it to name the parts written", stderr.String())
	}
	if diff := cmp.Diff(before, snapshot()); diff != "" {
		t.Fatalf("-only dict,banks left a different set (-full run +partial run):\n%s", diff)
	}

	// A partial run into an empty directory has nothing to validate against.
	if err := run([]string{"-out", t.TempDir(), "-only", "dict"}, io.Discard); err == nil ||
		!strings.Contains(err.Error(), "generated fixtures do not load") {
		t.Fatalf("-only dict into an empty directory: err = %v, want a load failure", err)
	}
}

func TestParseParts(t *testing.T) {
	t.Parallel()
	all, err := parseParts("")
	if err != nil || strings.Join(all.names(), ",") != "accounts,banks,dict,certs" {
		t.Fatalf("parseParts(\"\") = %v, %v, want every part", all.names(), err)
	}
	some, err := parseParts(" dict ,banks")
	if err != nil || strings.Join(some.names(), ",") != "banks,dict" {
		t.Fatalf("parseParts = %v, %v, want banks,dict", some.names(), err)
	}
	if _, err := parseParts("dict,"); err == nil {
		t.Fatal(`parseParts("dict,") succeeded`)
	}
}
