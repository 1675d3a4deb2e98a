//go:build faults

package auth

import (
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/faults"
)

// The faults of this package (simulator/faults), put in place of the
// production values when PIXSANDBOX_FAULTS names them.
func init() {
	if faults.On(faults.TokenValidAtExp) {
		expiryLeeway = time.Second
	}
}
