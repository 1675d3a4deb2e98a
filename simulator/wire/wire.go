package wire

import (
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// Money renders centavos as a JSON number with exactly two decimals
// (1234.50); it never passes through a float.
type Money pix.Cents

// MarshalJSON implements json.Marshaler.
func (m Money) MarshalJSON() ([]byte, error) { return []byte(pix.Cents(m).Decimal2()), nil }

// Time renders an instant as ISO 8601 in UTC with milliseconds.
func Time(t time.Time) string { return t.UTC().Format(pix.TimeLayout) }

// Optional is nil for "" (JSON null), else a pointer to s.
func Optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// MEDBank is a bank of the MED resource.
type MEDBank struct {
	ISPB string `json:"ispb"`
	Name string `json:"name"`
}

// MEDOriginal is the contested PIX as the MED resource shows it.
type MEDOriginal struct {
	Amount          Money  `json:"amount"`
	Type            string `json:"type"`
	TransactionType string `json:"transactionType"`
	Name            string `json:"name"`
	Document        string `json:"document"`
	DateTime        string `json:"dateTime"`
}

// MED is spec "Resources > MED".
type MED struct {
	ID                    int64        `json:"id"`
	EndToEnd              string       `json:"endToEnd"`
	Status                string       `json:"status"`
	Reason                string       `json:"reason"`
	Cause                 *string      `json:"cause"`
	Description           *string      `json:"description"`
	AnalysisResult        *string      `json:"analysisResult"`
	AnalysisDetails       *string      `json:"analysisDetails"`
	RequestingBank        MEDBank      `json:"requestingBank"`
	ContestedBank         MEDBank      `json:"contestedBank"`
	OriginalTransaction   *MEDOriginal `json:"originalTransaction"`
	IsReconciled          bool         `json:"isReconciled"`
	OriginalTransactionID *int64       `json:"originalTransactionId"`
	CreatedAt             string       `json:"createdAt"`
	UpdatedAt             string       `json:"updatedAt"`
}

// NewMED renders m; the original's document is masked.
func NewMED(m pix.MED) MED {
	j := MED{ID: m.ID, EndToEnd: m.EndToEnd, Status: string(m.Status), Reason: m.Reason, Cause: Optional(m.Cause),
		Description: Optional(m.Description), AnalysisResult: Optional(m.AnalysisResult), AnalysisDetails: Optional(m.AnalysisDetails),
		RequestingBank: MEDBank{ISPB: m.RequestingBank.ISPB, Name: m.RequestingBank.Name},
		ContestedBank:  MEDBank{ISPB: m.ContestedBank.ISPB, Name: m.ContestedBank.Name},
		IsReconciled:   m.IsReconciled, CreatedAt: Time(m.CreatedAt), UpdatedAt: Time(m.UpdatedAt)}
	if m.IsReconciled {
		id := m.OriginalTransactionID
		j.OriginalTransactionID = &id
	}
	if o := m.Original; o != nil {
		j.OriginalTransaction = &MEDOriginal{Amount: Money(o.Amount), Type: o.Type, TransactionType: o.TransactionType,
			Name: o.Name, Document: pix.MaskDocument(o.Document), DateTime: Time(o.DateTime)}
	}
	return j
}
