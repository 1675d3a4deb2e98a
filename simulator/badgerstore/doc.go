// Package badgerstore implements storage.Store over an embedded Badger database.
// Values are JSON, so a dump of the database stays readable. Keys are laid out in
// keys.go so that prefix iteration yields useful orders (jobs by due time, journal
// entries by sequence). A missing record reads as storage.ErrNotFound, so the
// core never tests for Badger's errors.
package badgerstore
