package workerpool

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// setAddressSpaceLimit sets RLIMIT_AS (soft and hard) to limit bytes; the
// hard limit too, so nothing in the worker can raise it again. An
// allocation past it makes the runtime die with "fatal error: out of
// memory", which the parent reports as SCRIPT_MEMORY_LIMIT.
//
// Why not RLIMIT_DATA: the Go runtime reserves address space PROT_NONE and
// then maps heap over the reservation with MAP_FIXED, and Linux nets the
// replaced pages out of the RLIMIT_DATA check. Measured on this machine
// (Linux 6.18, Go 1.26): with RLIMIT_DATA at 200 MB, VmData reached 237 MB
// and a 300 MB typed array was allocated; the next GC then faulted
// (SIGSEGV in the green-tea GC, whose span-queue allocation is unchecked)
// instead of failing cleanly. RLIMIT_AS counts reservations too, so a large
// allocation fails at once with a clean out-of-memory error.
func setAddressSpaceLimit(limit uint64) error {
	rl := syscall.Rlimit{Cur: limit, Max: limit}
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &rl); err != nil {
		return fmt.Errorf("setting RLIMIT_AS to %d bytes: %w", limit, err)
	}
	return nil
}

// addressSpaceBytes returns the process's VmSize: the address space
// RLIMIT_AS is compared with.
func addressSpaceBytes() (uint64, error) {
	return procStatus("VmSize:")
}

// residentBytes returns the process's VmRSS.
func residentBytes() (uint64, error) {
	return procStatus("VmRSS:")
}

// procStatus reads one "<key> <n> kB" line of /proc/self/status, in bytes.
func procStatus(key string) (uint64, error) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, fmt.Errorf("reading %s: %w", key, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.HasPrefix(line, []byte(key)) {
			continue
		}
		fields := bytes.Fields(line[len(key):])
		if len(fields) != 2 || string(fields[1]) != "kB" {
			return 0, fmt.Errorf("reading %s: unexpected line %q", key, line)
		}
		kb, err := strconv.ParseUint(string(fields[0]), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("reading %s: %w", key, err)
		}
		return kb << 10, nil
	}
	return 0, fmt.Errorf("reading %s: not in /proc/self/status", key)
}
