//go:build !linux

package sysmonhold

import "time"

const supported = false

func rawSleep(time.Duration) {}

func processCPU() time.Duration { return 0 }
