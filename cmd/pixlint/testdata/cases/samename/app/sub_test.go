package app

import "testing"

func TestSub(t *testing.T) {}
