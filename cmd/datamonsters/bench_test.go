package main

import "testing"

// TestBenchRuns runs the bench briefly on the embedded database, so that the
// command keeps working as the API changes (its figures are not checked:
// speed belongs to benchmarks, not tests).
func TestBenchRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("a load test: drives the API for a few seconds")
	}
	t.Setenv("DATABASE_URL", "")
	t.Setenv("DATA_DIR", t.TempDir())
	if code := runBench([]string{"-clients", "2", "-duration", "300ms", "-long-turn", "3"}); code != 0 {
		t.Fatalf("exit %d", code)
	}
}
