package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/brianvoe/gofakeit/v7"
	"github.com/google/go-cmp/cmp"

	"github.com/pixsandbox/pixsandbox/fixtures"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// TestAccountsMatchCommitted fails when the committed accounts.json is not
// what the generator draws from fixtures.Seed: either the file was edited by
// hand or the generator changed without `make fixtures`.
func TestAccountsMatchCommitted(t *testing.T) {
	t.Parallel()
	accounts, err := newAccounts(gofakeit.New(fixtures.Seed))
	if err != nil {
		t.Fatal(err)
	}
	got, err := marshalAccounts(accounts)
	if err != nil {
		t.Fatal(err)
	}
	set, err := fixtures.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	want, err := set.ReadFile("accounts.json")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Fatalf("accounts.json from fixtures.Seed differs from the committed file (-committed +generated):\n%s", diff)
	}
}

func TestNewAccounts(t *testing.T) {
	t.Parallel()
	a, err := newAccounts(gofakeit.New(fixtures.Seed))
	if err != nil {
		t.Fatal(err)
	}
	b, err := newAccounts(gofakeit.New(fixtures.Seed))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("two draws from the same seed differ (-first +second):\n%s", diff)
	}
	for _, acc := range a {
		if !pix.ValidDocument(acc.Document) {
			t.Errorf("account %d: invalid document %q", acc.ID, acc.Document)
		}
	}
	other, err := newAccounts(gofakeit.New(fixtures.Seed + 1))
	if err != nil {
		t.Fatal(err)
	}
	if other[0].ClientID == a[0].ClientID {
		t.Fatal("another seed drew the same clientId")
	}
}

func TestGenerateTwice(t *testing.T) {
	t.Parallel()
	var outs [2]string
	for i := range outs {
		outs[i] = t.TempDir()
		if err := run([]string{"-out", outs[i]}, io.Discard); err != nil {
			t.Fatalf("run #%d: %v", i+1, err)
		}
		if _, err := fixtures.Dir(outs[i]); err != nil {
			t.Fatalf("run #%d output does not load: %v", i+1, err)
		}
	}
	read := func(dir, name string) []byte {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, name := range []string{"accounts.json", "banks.json", "dict.json"} {
		if !bytes.Equal(read(outs[0], name), read(outs[1], name)) {
			t.Fatalf("%s differs between two runs", name)
		}
	}
	if !bytes.Equal(read(outs[0], "certs/malformed.pem"), read(outs[1], "certs/malformed.pem")) {
		t.Fatal("malformed.pem differs between two runs")
	}
	if bytes.Equal(read(outs[0], "certs/ca-key.pem"), read(outs[1], "certs/ca-key.pem")) {
		t.Fatal("two runs produced the same CA key; keys must come from crypto/rand")
	}
}

func TestRunRejectsBadArguments(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"-nope"},
		{"-out", t.TempDir(), "extra"},
		{"-out", t.TempDir(), "-only", "dict,keys"},
	} {
		if err := run(args, io.Discard); err == nil {
			t.Errorf("run(%q) succeeded", args)
		}
	}
}

func TestUUIDV4(t *testing.T) {
	t.Parallel()
	re := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	f := gofakeit.New(fixtures.Seed)
	for range 1000 {
		if u := uuidV4(f); !re.MatchString(u) {
			t.Fatalf("uuidV4() = %q, not a lowercase UUID v4", u)
		}
	}
}

func TestSlug(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string
	}{
		{name: "plain", in: "Howell", want: "howell"},
		{name: "apostrophe", in: "O'Keefe", want: "okeefe"},
		{name: "accents folded", in: "João Conceição", want: "joaoconceicao"},
		{name: "nothing left", in: "–", want: "cliente"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := slug(tt.in); got != tt.want {
				t.Fatalf("slug(%q)=%q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
