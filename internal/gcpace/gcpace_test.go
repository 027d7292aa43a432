package gcpace_test

import (
	"runtime/debug"
	"testing"

	"github.com/datamonsters/turns/internal/gcpace"
)

// TestApplyLeavesTheOperatorsSettings: with neither GOGC nor GOMEMLIMIT
// set, Apply sets the service's pace; with them set, it changes nothing.
func TestApplyLeavesTheOperatorsSettings(t *testing.T) {
	percent := debug.SetGCPercent(100)
	limit := debug.SetMemoryLimit(-1)
	t.Cleanup(func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	})
	now := func() (int, int64) {
		p := debug.SetGCPercent(-1)
		debug.SetGCPercent(p)
		return p, debug.SetMemoryLimit(-1)
	}

	debug.SetMemoryLimit(1 << 40)
	gcpace.Apply(false, false)
	if p, l := now(); p != gcpace.Percent || l != gcpace.Limit {
		t.Errorf("nothing set: GOGC %d, limit %d; want %d, %d", p, l, gcpace.Percent, gcpace.Limit)
	}

	debug.SetGCPercent(150)
	debug.SetMemoryLimit(256 << 20)
	gcpace.Apply(true, true)
	if p, l := now(); p != 150 || l != 256<<20 {
		t.Errorf("both set: GOGC %d, limit %d; want them left at 150, %d", p, l, 256<<20)
	}

	gcpace.Apply(true, false)
	if p, l := now(); p != 150 || l != gcpace.Limit {
		t.Errorf("GOGC set: GOGC %d, limit %d; want 150, %d", p, l, gcpace.Limit)
	}
}
