// Package gcpace sets how often the garbage collector runs in the
// service. Go's default (GOGC=100: a collection each time the heap has
// doubled since the last) suits a program whose live heap is large. This
// service's is small (tens of megabytes) and each request allocates about
// 100 KB that dies with it, so at the default the heap doubles every few
// hundred requests and the collector took a quarter of the CPU of a board
// page drawn anew (docs/performance.md). Percent lets the heap grow to
// five times what is live between collections; Limit, a soft memory
// limit, makes the collector run more often as the heap nears it, so
// that the heap stays bounded whatever Percent allows.
package gcpace

import "runtime/debug"

const (
	// Percent is the service's GOGC.
	Percent = 400
	// Limit is the service's GOMEMLIMIT, in bytes: 1 GiB.
	Limit = 1 << 30
)

// Apply sets Percent, unless gogc says GOGC is set, and Limit, unless
// memLimit says GOMEMLIMIT is: the runtime applies those itself, and an
// operator who sets them (a container with less memory) has the last
// word.
func Apply(gogc, memLimit bool) {
	if !gogc {
		debug.SetGCPercent(Percent)
	}
	if !memLimit {
		debug.SetMemoryLimit(Limit)
	}
}
