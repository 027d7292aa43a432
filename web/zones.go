package web

import (
	_ "embed"
	"strings"
)

//go:embed zones.txt
var zonesText string

// zoneGroup is the time zones of one region ("Europe"), for an <optgroup>.
type zoneGroup struct {
	Region string
	Zones  []string
}

// zoneGroups are the zones the menus offer, by region, in the order of
// zones.txt (UTC first, alone).
var zoneGroups = groupZones(zonesText)

func groupZones(text string) []zoneGroup {
	var out []zoneGroup
	for _, line := range strings.Split(text, "\n") {
		z := strings.TrimSpace(line)
		if z == "" || strings.HasPrefix(z, "#") {
			continue
		}
		region, _, _ := strings.Cut(z, "/")
		if region == z {
			region = "Universal"
		}
		if n := len(out); n == 0 || out[n-1].Region != region {
			out = append(out, zoneGroup{Region: region})
		}
		out[len(out)-1].Zones = append(out[len(out)-1].Zones, z)
	}
	return out
}
