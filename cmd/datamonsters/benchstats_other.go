//go:build !unix

package main

// processCPU is -1 where the process's CPU time is not read: the bench
// then reports allocations only.
func processCPU() int64 { return -1 }
