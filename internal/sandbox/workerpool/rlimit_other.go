//go:build !linux

package workerpool

import "errors"

// errNoAddressSpaceLimit: the worker's OS memory limit and the figures it
// is sized from are Linux's. Production runs on Linux; elsewhere New fails.
var errNoAddressSpaceLimit = errors.New("the sandbox worker's OS memory limit (RLIMIT_AS) needs Linux")

func setAddressSpaceLimit(uint64) error { return errNoAddressSpaceLimit }

func addressSpaceBytes() (uint64, error) { return 0, errNoAddressSpaceLimit }

func residentBytes() (uint64, error) { return 0, errNoAddressSpaceLimit }
