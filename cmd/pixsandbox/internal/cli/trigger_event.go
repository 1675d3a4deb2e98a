package cli

import (
	"context"
	"strings"

	"github.com/pixsandbox/pixsandbox/cmd/pixsandbox/internal/trigger"
	"github.com/pixsandbox/pixsandbox/simulator/events"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// triggerEvent runs pixsandbox trigger EVENT.
func (cc *cliCmd) triggerEvent(ctx context.Context, e *trigger.Event) int {
	ev, ok := events.Lookup(e.Name)
	if !ok {
		return cc.usageError("unknown event %q; known events: %s", e.Name, strings.Join(events.Names(), ", "))
	}
	if e.ErrorCode != "" {
		if _, ok := pix.LookupFailure(pix.Code(e.ErrorCode)); !ok {
			return cc.usageError("--error-code %q must be one of TAX_ID_MISMATCH, INVALID_TAX_ID, BLOCKED_ACCOUNT, ACCOUNT_CLOSED, ORDER_REJECTED, PAYMENT_EXPIRED, SETTLEMENT_TIMEOUT", e.ErrorCode)
		}
	}
	if e.Wait < 0 {
		return cc.usageError("--wait must not be negative")
	}
	e.Name = ev.Name
	if cc.json {
		e.Wait = 0
	}
	if err := e.Do(ctx); err != nil {
		return cc.fail(err)
	}
	if cc.json {
		cc.printRaw(e.Raw)
	} else {
		cc.printf("%s", e.Summary(cc.self))
	}
	return cliExitOK
}
