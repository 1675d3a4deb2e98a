//go:build !faults

package faults

const enabled = false

func active(string) bool { return false }
