// Package badgerstore implements storage.Store over an embedded Badger database.
// Values are JSON, so a dump of the database stays readable. Keys are laid out in
// keys.go so that prefix iteration yields useful orders (jobs by due time, journal
// entries by sequence).
//
// It may import simulator/pix, simulator/ledger, simulator/agenda,
// simulator/storage and badger; Badger errors never escape it.
package badgerstore
