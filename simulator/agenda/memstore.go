package agenda

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"
)

// MemStore is an in-memory Store for tests of packages that use the agenda.
// Its zero value is ready to use, and it is safe for concurrent use. It copies
// payloads in and out, so callers cannot alias stored jobs.
type MemStore struct {
	mu   sync.Mutex
	jobs map[string]Job
	done map[string]time.Time
}

var _ Store = (*MemStore)(nil)

// NewMemStore returns an empty MemStore.
func NewMemStore() *MemStore {
	return &MemStore{}
}

// PutJob inserts j or replaces the pending job with the same ID.
func (s *MemStore) PutJob(ctx context.Context, j Job) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.jobs == nil {
		s.jobs = make(map[string]Job)
	}
	s.jobs[j.ID] = cloneJob(j)
	return nil
}

// ReplaceJob writes next in place of prev if the pending job prev.ID is still
// the version prev.
func (s *MemStore) ReplaceJob(ctx context.Context, prev, next Job) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cur, ok := s.jobs[prev.ID]; !ok || !SameJob(cur, prev) {
		return false, nil
	}
	delete(s.jobs, prev.ID)
	s.jobs[next.ID] = cloneJob(next)
	return true, nil
}

// DeleteJob removes the pending job with the given ID, if any.
func (s *MemStore) DeleteJob(ctx context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.jobs, id)
	return nil
}

// GetJob returns the pending job with the given ID.
func (s *MemStore) GetJob(ctx context.Context, id string) (Job, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j, ok := s.jobs[id]
	if !ok {
		return Job{}, false, nil
	}
	return cloneJob(j), true, nil
}

// NextJob returns the pending job with the earliest Due, ties broken by ID.
func (s *MemStore) NextJob(ctx context.Context) (Job, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var (
		next  Job
		found bool
	)
	for _, j := range s.jobs {
		if !found || compareJobs(j, next) < 0 {
			next, found = j, true
		}
	}
	if !found {
		return Job{}, false, nil
	}
	return cloneJob(next), true, nil
}

// ListJobs returns up to limit pending jobs in due order (ties by ID); a
// limit of zero or less means all of them.
func (s *MemStore) ListJobs(ctx context.Context, limit int) ([]Job, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	jobs := make([]Job, 0, len(s.jobs))
	for _, j := range s.jobs {
		jobs = append(jobs, cloneJob(j))
	}
	slices.SortFunc(jobs, compareJobs)
	if limit > 0 && len(jobs) > limit {
		jobs = jobs[:limit]
	}
	return jobs, nil
}

// DueJobs returns up to limit pending jobs due at or before until, in due
// order (ties by ID).
func (s *MemStore) DueJobs(ctx context.Context, until time.Time, limit int) ([]Job, error) {
	jobs, err := s.ListJobs(ctx, 0)
	if err != nil {
		return nil, err
	}
	n := 0
	for n < len(jobs) && !jobs[n].Due.After(until) && (limit <= 0 || n < limit) {
		n++
	}
	return jobs[:n], nil
}

// MarkDone records that j ran at ranAt and deletes the pending job j.ID if it
// is still the version j.
func (s *MemStore) MarkDone(ctx context.Context, j Job, ranAt time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cur, ok := s.jobs[j.ID]; ok && SameJob(cur, j) {
		delete(s.jobs, j.ID)
	}
	if s.done == nil {
		s.done = make(map[string]time.Time)
	}
	s.done[j.ID] = ranAt.UTC()
	return nil
}

// DoneJob returns when the job with the given ID ran.
func (s *MemStore) DoneJob(ctx context.Context, id string) (time.Time, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ranAt, ok := s.done[id]
	return ranAt, ok, nil
}

// compareJobs orders jobs by Due, then by ID.
func compareJobs(a, b Job) int {
	if c := a.Due.Compare(b.Due); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

func cloneJob(j Job) Job {
	j.Payload = slices.Clone(j.Payload)
	return j
}

// CountingStore is a Store that counts the calls of the agenda's bookkeeping
// after a handler (GetJob, MarkDone) on another Store, for tests of what a
// store spares the agenda through Committed. It is safe for concurrent use.
type CountingStore struct {
	Store
	mu              sync.Mutex
	gets, markDones int
}

// GetJob counts the call and passes it on.
func (s *CountingStore) GetJob(ctx context.Context, id string) (Job, bool, error) {
	s.mu.Lock()
	s.gets++
	s.mu.Unlock()
	return s.Store.GetJob(ctx, id)
}

// MarkDone counts the call and passes it on.
func (s *CountingStore) MarkDone(ctx context.Context, j Job, ranAt time.Time) error {
	s.mu.Lock()
	s.markDones++
	s.mu.Unlock()
	return s.Store.MarkDone(ctx, j, ranAt)
}

// Counts returns the calls of GetJob and MarkDone so far.
func (s *CountingStore) Counts() (gets, markDones int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gets, s.markDones
}
