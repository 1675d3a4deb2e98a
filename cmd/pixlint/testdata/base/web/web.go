// Package web is the transport.
package web

import (
	"net/http"

	"example.com/lintme/domain"
)

// Handler answers in upper case.
func Handler(w http.ResponseWriter, r *http.Request) {
	defer observe(r.URL.Path)()
	w.Write([]byte(domain.Upper(r.URL.Path)))
}
