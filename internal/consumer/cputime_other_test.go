//go:build !unix

package consumer

import "time"

// processCPU is not measured here.
func processCPU() time.Duration { return 0 }
