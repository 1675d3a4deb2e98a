// Package wire holds the JSON forms that the HTTP routes and the webhooks
// share, so a resource reads the same whichever way it reaches a client: money
// as a number with two decimals, instants in one ISO 8601 layout, and the MED
// resource (its webhooks carry it exactly as GET /api/med lists it, Gap G-51).
package wire
