package faults

import "testing"

// Without the faults tag nothing is ever on, whatever the environment says.
func TestOffWithoutTheTag(t *testing.T) {
	t.Setenv("PIXSANDBOX_FAULTS", CobStatus200)
	if enabled {
		t.Skip("built with the faults tag")
	}
	for _, f := range All {
		if On(f) {
			t.Fatalf("fault %s is on in a build without the faults tag", f)
		}
	}
}
