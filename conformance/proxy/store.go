package proxy

import (
	"slices"
	"sync"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
)

// DefaultMaxFindings is how many findings the store keeps in full.
const DefaultMaxFindings = 10_000

// store keeps the latest findings (a ring of at most max), the first
// finding of every rule, and counts of all of them: its memory is bounded
// whatever the traffic.
type store struct {
	mu      sync.Mutex
	max     int
	ring    []contract.Finding
	next    int // where the next finding goes once the ring is full
	total   int
	byRule  map[string]int
	byKind  map[contract.Kind]int
	notices int
	first   map[string]contract.Finding
}

func newStore(max int) *store {
	if max <= 0 {
		max = DefaultMaxFindings
	}
	return &store{max: max, byRule: map[string]int{}, byKind: map[contract.Kind]int{}, first: map[string]contract.Finding{}}
}

func (s *store) add(f contract.Finding) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.total++
	s.byRule[f.Rule]++
	if f.Notice {
		s.notices++
	} else {
		s.byKind[f.Kind]++
	}
	if _, ok := s.first[f.Rule]; !ok {
		s.first[f.Rule] = f
	}
	if len(s.ring) < s.max {
		s.ring = append(s.ring, f)
		return
	}
	s.ring[s.next] = f
	s.next = (s.next + 1) % s.max
}

// findings returns the findings kept, oldest first.
func (s *store) findings() []contract.Finding {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.ring) < s.max {
		return slices.Clone(s.ring)
	}
	return append(slices.Clone(s.ring[s.next:]), s.ring[:s.next]...)
}

// Counts are the findings seen, by kind and by rule; notices count apart.
type Counts struct {
	Total    int                   `json:"total"`
	Response int                   `json:"response"`
	State    int                   `json:"state"`
	Request  int                   `json:"request"`
	Upstream int                   `json:"upstream"`
	Webhook  int                   `json:"webhook"`
	Notices  int                   `json:"notices"`
	ByRule   map[string]int        `json:"byRule"`
	Dropped  int                   `json:"dropped"` // findings counted but no longer kept in full
	kinds    map[contract.Kind]int // for AtOrAbove
}

// AtOrAbove counts the findings (notices aside) whose kind ranks at or
// above threshold's.
func (c Counts) AtOrAbove(threshold contract.Kind) int {
	n := 0
	for k, v := range c.kinds {
		if k.Rank() >= threshold.Rank() {
			n += v
		}
	}
	return n
}

func (s *store) counts() Counts {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := Counts{Total: s.total, Notices: s.notices, ByRule: map[string]int{}, kinds: map[contract.Kind]int{},
		Response: s.byKind[contract.KindResponse], State: s.byKind[contract.KindState],
		Request: s.byKind[contract.KindRequest], Upstream: s.byKind[contract.KindUpstream], Webhook: s.byKind[contract.KindWebhook]}
	for k, v := range s.byRule {
		c.ByRule[k] = v
	}
	for k, v := range s.byKind {
		c.kinds[k] = v
	}
	c.Dropped = s.total - len(s.ring)
	return c
}

func (s *store) firstOf(rule string) (contract.Finding, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.first[rule]
	return f, ok
}
