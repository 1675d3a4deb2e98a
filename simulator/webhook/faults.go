//go:build faults

package webhook

import (
	"fmt"
	"strings"

	"github.com/pixsandbox/pixsandbox/simulator/faults"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// The faults of this package (simulator/faults), put in place of the
// production behaviour when PIXSANDBOX_FAULTS names them.
func init() {
	if faults.On(faults.WebhookNewIDOnRetry) {
		attemptEventID = func(eventID string, number int) string {
			if number > 1 {
				return fmt.Sprintf("%s-%d", eventID, number)
			}
			return eventID
		}
	}
	if faults.On(faults.TransferAmountTrimmed) {
		transferAmount = trimmedAmount
	}
	if faults.On(faults.ReceiveAmountTrimmed) {
		receiveAmount = trimmedAmount
	}
	if faults.On(faults.WebhookRetriesOneShort) {
		s := DefaultPolicy.(Schedule)
		DefaultPolicy = s[:len(s)-1]
	}
	if faults.On(faults.WebhookRedirectDelivered) {
		success = func(status int) bool { return status >= 200 && status <= 399 }
	}
}

// trimmedAmount is an amount with its trailing zeros dropped ("10.5", "12").
func trimmedAmount(amount pix.Cents) string {
	return strings.TrimSuffix(strings.TrimRight(amount.Decimal2(), "0"), ".")
}
