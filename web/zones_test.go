package web

import (
	"testing"
	"time"

	"github.com/datamonsters/turns/accounts"
)

func TestZonesLoad(t *testing.T) {
	n := 0
	for _, g := range zoneGroups {
		for _, z := range g.Zones {
			if _, err := time.LoadLocation(z); err != nil || !accounts.ValidZone(z) {
				t.Errorf("zone %q: %v", z, err)
			}
			n++
		}
	}
	if n < 400 || zoneGroups[0].Zones[0] != "UTC" {
		t.Fatalf("%d zones, first %q", n, zoneGroups[0].Zones[0])
	}
	for _, bad := range []string{"", "Local", "Mars/Olympus", "../etc/passwd", "Europe/Paris\n"} {
		if accounts.ValidZone(bad) {
			t.Errorf("%q is a valid zone", bad)
		}
	}
}
