//go:build !faults

package httpapi

// injectFaults installs the self-check's faults of the HTTP layer: none
// outside the faults build (faults_on.go).
func (s *Server) injectFaults() {}
