// Package domain is pure: no clock, no I/O.
package domain

import "strings"

// Upper is a rule of the domain.
func Upper(s string) string { return strings.ToUpper(s) }
