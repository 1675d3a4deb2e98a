package selfcheck

import "testing"

// A test binary that runs no benchmark checks itself.
func TestOn(t *testing.T) {
	if !On() {
		t.Fatal("selfcheck.On() is false in a test run without -test.bench")
	}
}
