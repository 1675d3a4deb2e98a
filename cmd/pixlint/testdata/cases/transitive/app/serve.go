package app

import "example.com/lintme/web"

// Serve is allowed by the row (web), but web brings net/http, which app's row never allows.
var Serve = web.Handler
