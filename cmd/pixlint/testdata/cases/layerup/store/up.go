package store

import "example.com/lintme/clock"

// Stamp reads the clock, which its row allows in TestLayers_importUpALayer
// but which sits a layer above the store there.
var Stamp = clock.Now
