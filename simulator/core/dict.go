package core

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/refs"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

// DictKey looks a key up in the DICT directory (control plane).
func (s *Simulator) DictKey(ctx context.Context, key string) (pix.DictEntry, error) {
	return view(ctx, s.store, func(tx storage.Tx) (pix.DictEntry, error) {
		e, err := tx.DictEntry(key)
		return e, refs.NotFound(err, "key %q not found in DICT", key)
	})
}

// RegisterDictKey adds or replaces a key held outside the sandbox (control plane).
// The key's format must match its type, the document must be a valid CPF or
// CNPJ, the ISPB a known participant, and a scenario one of the catalogue's
// PIX-out scenarios; keys of sandbox accounts cannot be replaced.
func (s *Simulator) RegisterDictKey(ctx context.Context, e pix.DictEntry) (pix.DictEntry, error) {
	var vs []pix.Violation
	typ, key, ok := pix.ParseDICTKey(e.Key)
	switch {
	case !ok:
		vs = append(vs, pix.Violation{Field: "key", Message: "must be a CPF, CNPJ (valid check digits), email, +55 phone or EVP key"})
	case e.Type != "" && e.Type != typ:
		vs = append(vs, pix.Violation{Field: "type", Message: fmt.Sprintf("is %s but the key is a %s key", e.Type, typ)})
	}
	if strings.TrimSpace(e.Name) == "" || utf8.RuneCountInString(e.Name) > 140 {
		vs = append(vs, pix.Violation{Field: "name", Message: "is required, at most 140 characters"})
	}
	if !pix.ValidDocument(e.Document) {
		vs = append(vs, pix.Violation{Field: "document", Message: "must be a CPF (11 digits) or CNPJ (14 digits) with valid check digits"})
	}
	bank, known := s.banks.ByISPB[e.ISPB]
	if !known || bank.Code == "" || e.ISPB == s.banks.Sandbox.ISPB {
		vs = append(vs, pix.Violation{Field: "ispb", Message: "must be the ISPB of a participant outside the sandbox (GET /_sandbox/banks)"})
	}
	if e.Scenario != "" && scenarios.ForKey(e.Scenario, scenarios.OpTransfer).IsNone() {
		vs = append(vs, pix.Violation{Field: "scenario", Message: "must be a PIX-out scenario of GET /_sandbox/scenarios"})
	}
	if len(vs) > 0 {
		return pix.DictEntry{}, pix.Invalid(pix.CodeInvalidRequest, vs...)
	}
	e.Key, e.Type, e.BankName, e.BankCode, e.AccountID = key, typ, bank.Name, bank.Code, 0
	if e.AccountType == "" {
		e.AccountType = "CACC"
	}
	err := s.store.Update(ctx, func(tx storage.Tx) error {
		if prev, err := tx.DictEntry(e.Key); err == nil && prev.AccountID != 0 {
			return pix.Errorf(pix.KindConflict, pix.CodeInvalidRequest, "key %q belongs to sandbox account %d", e.Key, prev.AccountID)
		} else if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return err
		}
		return tx.PutDictEntry(e)
	})
	return e, err
}

// Banks lists the participants the sandbox knows, its own institution first.
func (s *Simulator) Banks() []pix.Bank {
	return append([]pix.Bank{s.banks.Sandbox}, s.banks.List...)
}
