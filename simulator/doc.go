// Package simulator is what a program that embeds pixsandbox imports: the
// simulator's configuration, its constructor, and the fixtures a server's
// workspaces share. The application core itself, one method of Simulator per
// operation of the PIX API and of the control plane, is simulator/core; the
// packages beside it under simulator/ are its transport (httpapi), its control
// plane (sandboxapi), its procedures, its store and the domain's rules
// (docs/architecture.md maps them by layer).
//
// Most embedders want one of the kits instead: simulatortest (a simulator on
// an in-memory store for a Go test) or sandboxtest (a whole server on a
// loopback port).
package simulator
