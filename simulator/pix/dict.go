package pix

// DictEntry is one key of the DICT directory the sandbox plays for POST
// /dict/pix: who holds the key and where. Keys of sandbox accounts carry their
// AccountID, so a PIX to them settles into that account.
type DictEntry struct {
	Key           string
	Type          KeyType
	Name          string
	Document      string
	ISPB          string
	BankName      string
	BankCode      string
	Branch        string
	AccountNumber string
	AccountType   string
	// Scenario is the outcome a magic key forces (fixtures/dict.json).
	Scenario string
	// AccountID is the sandbox account holding the key, 0 when outside.
	AccountID AccountID
}

// Bank is a PIX participant.
type Bank struct {
	ISPB string
	Name string
	Code string
}

// Counterpart returns the entry as a transaction's counterpart.
func (e DictEntry) Counterpart() Counterpart {
	return Counterpart{Name: e.Name, Document: e.Document, ISPB: e.ISPB, BankName: e.BankName, BankCode: e.BankCode,
		Branch: e.Branch, AccountNumber: e.AccountNumber, AccountType: e.AccountType, AccountID: e.AccountID}
}
