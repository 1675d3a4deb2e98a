//go:build special

package store

import "example.com/lintme/web"

// Serve reaches the transport, in the special build only.
var Serve = web.Handler
