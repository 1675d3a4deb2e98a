// Package extra is new and has no row in the dependency table.
package extra

// X is something.
const X = 1
