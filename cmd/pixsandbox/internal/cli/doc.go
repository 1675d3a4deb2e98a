// Package cli is the command line of a running simulator: pixsandbox token,
// pay, clock, trigger, webhooks, reset, requests, listen, workspace and fault
// (docs/cli.md). Each command speaks HTTP to a simulator started elsewhere
// (pixsandbox serve, make run, a container), through its public routes and
// its /_sandbox control plane, and does in one command what would otherwise
// take a few curl calls: it prints a summary a person reads, or with --json
// the server's answer as it came.
//
// What the commands share is in cli.go: the common flags (--url,
// --admin-token, --json, --workspace) and their PIXSANDBOX_* variables, the
// usage and error messages, and the exit codes: 0 done, 1 the server said no
// or could not be reached, 2 bad usage. One file a command after that;
// trigger's requests are in the package trigger beside this one.
//
// The binary's main package dispatches to Run; tests run a command with
// RunEnv, in an Env of their own.
package cli
