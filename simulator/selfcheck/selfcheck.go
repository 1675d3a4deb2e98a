// Package selfcheck says whether the running binary is a test binary, so that
// production code can check, in tests only, what it otherwise trusts: the
// store's cache hits and PutNewJob's claims (badgerstore), and that the
// response encoder writes what encoding/json would (httpapi).
package selfcheck

import (
	"flag"
	"sync"
	"testing"
)

// On is true in test binaries, except while they run benchmarks, which
// measure the code and not its checks.
var On = sync.OnceValue(func() bool {
	bench := flag.Lookup("test.bench")
	return testing.Testing() && (bench == nil || bench.Value.String() == "")
})
