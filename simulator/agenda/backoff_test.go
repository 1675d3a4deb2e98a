package agenda

import (
	"testing"
	"time"
)

func TestBackoff(t *testing.T) {
	tests := []struct {
		name     string
		attempts int
		want     time.Duration
		ok       bool
	}{
		{name: "first failure", attempts: 1, want: time.Second, ok: true},
		{name: "second failure", attempts: 2, want: 5 * time.Second, ok: true},
		{name: "third failure", attempts: 3, want: 30 * time.Second, ok: true},
		{name: "fourth failure", attempts: 4, want: 2 * time.Minute, ok: true},
		{name: "fifth failure", attempts: 5, want: 10 * time.Minute, ok: true},
		{name: "sixth failure gives up", attempts: 6},
		{name: "no failure", attempts: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := backoff(tt.attempts)
			if got != tt.want || ok != tt.ok {
				t.Fatalf("backoff(%d)=%v, %v; want %v, %v", tt.attempts, got, ok, tt.want, tt.ok)
			}
		})
	}
}
