// Package store keeps domain values.
package store

import "example.com/lintme/domain"

// Put stores a value.
func Put(s string) string { return domain.Upper(s) }
