// Package app wires the others.
package app

import (
	"example.com/lintme/clock"
	"example.com/lintme/store"
)

// Run stores the time.
func Run() string { return store.Put(clock.Now().String()) }
