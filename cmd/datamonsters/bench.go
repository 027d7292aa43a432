package main

import (
	"fmt"
	"os"
)

// runBench is replaced below once the load benchmark lands.
func runBench(args []string) int {
	fmt.Fprintln(os.Stderr, "datamonsters bench: not implemented")
	return 2
}
