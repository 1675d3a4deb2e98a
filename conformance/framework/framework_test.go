package framework

import (
	"regexp"
	"testing"
	"time"
)

func TestUUIDv4(t *testing.T) {
	re := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := map[string]bool{}
	for range 100 {
		u := UUIDv4()
		if !re.MatchString(u) {
			t.Fatalf("UUIDv4() = %q, not a version 4 UUID", u)
		}
		if seen[u] {
			t.Fatalf("UUIDv4() repeated %q", u)
		}
		seen[u] = true
	}
}

func TestUniqueID(t *testing.T) {
	f := &Framework{}
	a, b := f.UniqueID("ext"), f.UniqueID("ext")
	if a == b || !regexp.MustCompile(`^ext[0-9a-f]{20}$`).MatchString(a) {
		t.Fatalf("UniqueID = %q, %q", a, b)
	}
}

func TestPollInterval(t *testing.T) {
	for timeout, want := range map[time.Duration]time.Duration{
		time.Second:      10 * time.Millisecond,
		5 * time.Second:  50 * time.Millisecond,
		30 * time.Second: 300 * time.Millisecond,
		time.Hour:        time.Second,
	} {
		if got := pollInterval(timeout); got != want {
			t.Errorf("pollInterval(%s) = %s, want %s", timeout, got, want)
		}
	}
}

func TestRes(t *testing.T) {
	if got := Res("cash-out"); len(got) != 1 || got[0] != "res:cash-out" {
		t.Errorf("Res(cash-out) = %v", got)
	}
	for _, bad := range []string{"", "a/b", "a b", "a,b", "a&b", "(a)", "!a", "a|b"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Res(%q) did not panic", bad)
				}
			}()
			Res(bad)
		}()
	}
}
