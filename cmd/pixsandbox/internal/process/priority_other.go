//go:build !unix

package process

import (
	"errors"
	"runtime"
)

// LowerPriority has no portable form here: the process keeps its priority.
func LowerPriority(int) error {
	return errors.New("no nice value on " + runtime.GOOS)
}
