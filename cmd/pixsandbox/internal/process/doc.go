// Package process holds what the server process sets for itself, apart from
// the commands: the memory budget (--memory-limit: sizes in bytes, Go's soft
// memory limit, the heap given back once writes stop), the processors a
// server confined to one CPU runs Go code on (the governor), the value of
// --sync, the listener of Go's profiles (PIXSANDBOX_PPROF), and the
// lowest priority the proxy's judging process runs at (LowerPriority).
package process
