//go:build faults

package faults

import (
	"os"
	"slices"
	"strings"
)

const enabled = true

var set = strings.Split(os.Getenv("PIXSANDBOX_FAULTS"), ",")

func active(f string) bool { return slices.Contains(set, f) }
