package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

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

// TestCostMeter: the bench's meter reads the server's own CPU time and
// allocations through the stats path, divides them by the phase's units,
// and says nothing for a server without the path.
func TestCostMeter(t *testing.T) {
	var sink [][]byte
	work := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sum := 0
		for i := range 2_000_000 {
			sum += i % 7
		}
		sink = append(sink[:0], make([]byte, 64<<10))
		fmt.Fprint(w, sum)
	})
	srv := httptest.NewServer(withBenchStats(work))
	defer srv.Close()
	b := &bench{base: srv.URL, http: srv.Client(), whose: "server alone"}
	m := b.meter()
	for range 20 {
		b.try("GET", "/work", "", nil)
	}
	line := m.line(20, "request")
	var cpu, kb float64
	if _, err := fmt.Sscanf(line, "  server alone: %f ms of CPU and %f KB allocated per request", &cpu, &kb); err != nil {
		t.Fatalf("line %q: %v", line, err)
	}
	if cpu <= 0 || kb < 64 {
		t.Fatalf("per request: %.3f ms of CPU, %.1f KB allocated; want > 0 and ≥ 64", cpu, kb)
	}

	plain := httptest.NewServer(work)
	defer plain.Close()
	other := &bench{base: plain.URL, http: plain.Client(), whose: "server alone"}
	if line := other.meter().line(20, "request"); line != "" {
		t.Fatalf("a server without the stats path: %q", line)
	}
}
