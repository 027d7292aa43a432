//go:build !unix

package bot

import "time"

// cpuTime is unknown on this system.
func cpuTime() time.Duration { return 0 }
