package pix

import (
	"testing"
	"time"
)

func TestNightWindow(t *testing.T) {
	for at, want := range map[string]bool{
		"2025-01-15T22:59:00Z": false, // 19:59 BRT
		"2025-01-15T23:00:00Z": true,  // 20:00
		"2025-07-16T08:59:59Z": true,  // 05:59:59
		"2025-07-16T09:00:00Z": false, // 06:00
	} {
		ts, _ := time.Parse(time.RFC3339, at)
		if got := IsNight(ts); got != want {
			t.Errorf("IsNight(%s) = %v, want %v", at, got, want)
		}
	}
	late, _ := time.Parse(time.RFC3339, "2025-01-16T02:00:00Z")  // 23:00 on the 15th BRT
	early, _ := time.Parse(time.RFC3339, "2025-01-16T08:00:00Z") // 05:00 on the 16th BRT
	if NightKey(late) != "2025-01-15" || NightKey(early) != "2025-01-15" || DayKey(early) != "2025-01-16" || DayKey(late) != "2025-01-15" {
		t.Errorf("keys: night %s %s, day %s %s", NightKey(late), NightKey(early), DayKey(late), DayKey(early))
	}
	if DefaultSettings("52998224725").Limits.Night != 1_000_00 || DefaultSettings("60746948000112").Limits.Night != 0 {
		t.Error("night limit applies to individuals only")
	}
}
