//go:build unix

package main

import "syscall"

// processCPU is the CPU time of this process so far, user and system, in
// nanoseconds; -1 when it cannot be read.
func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
