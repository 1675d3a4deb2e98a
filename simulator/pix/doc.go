// Package pix is the PIX domain vocabulary: pure rules, standard library only, no clock, no I/O.
package pix
