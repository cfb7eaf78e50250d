package executorapp

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// clockTick is the unit of /proc/<pid>/stat's times (USER_HZ, 100 on Linux).
const clockTick = 10 * time.Millisecond

// procCPU is the user + system CPU time pid has used, 0 when it cannot be
// read (the process is gone).
func procCPU(pid int) time.Duration {
	f := procStat(pid)
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * clockTick
}

// procFaults is the page faults, minor and major, of the processes so far,
// in the unit of faultsPrefix entries; a process that is gone counts 0.
func procFaults(pids ...int) time.Duration {
	var n int64
	for _, pid := range pids {
		f := procStat(pid)
		if len(f) < 10 {
			continue
		}
		minor, _ := strconv.ParseInt(f[7], 10, 64)
		major, _ := strconv.ParseInt(f[9], 10, 64)
		n += minor + major
	}
	return time.Duration(n * 1000)
}

// procStat is the fields of /proc/<pid>/stat after the command name, so
// that f[0] is field 3 (the state); nil when it cannot be read.
func procStat(pid int) []string {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return nil
	}
	// The command name (field 2) may hold spaces: fields count from its ")".
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(string(data[i+1:]))
}

// childPIDs are the processes pid started (its sandbox workers), not
// their own children.
func childPIDs(pid int) []int {
	tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "children"))
	var pids []int
	for _, t := range tasks {
		data, _ := os.ReadFile(t) //nolint:gosec // a /proc path
		for _, s := range strings.Fields(string(data)) {
			if n, err := strconv.Atoi(s); err == nil {
				pids = append(pids, n)
			}
		}
	}
	return pids
}

// procFigures is, for each named group of processes, its CPU time, and its
// context switches, reads and writes and page faults (under their
// prefixes), so far: a drain's or a paced run's per-process figures.
func procFigures(groups map[string][]int) map[string]time.Duration {
	m := make(map[string]time.Duration, 4*len(groups))
	for name, pids := range groups {
		m[name] = cpuOf(pids...)
		m[switchesPrefix+name] = procSwitches(pids...)
		m[syscallsPrefix+name] = procSyscalls(pids...)
		m[faultsPrefix+name] = procFaults(pids...)
	}
	return m
}

// cpuOf is the CPU time the processes have used in total.
func cpuOf(pids ...int) time.Duration {
	var d time.Duration
	for _, p := range pids {
		d += procCPU(p)
	}
	return d
}

// natsPID is the pid of the nats-server process listening on port, 0 when
// none is found.
func natsPID(port int) int {
	cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	want := []byte("\x00-p\x00" + strconv.Itoa(port) + "\x00")
	for _, c := range cmdlines {
		data, err := os.ReadFile(c) //nolint:gosec // a /proc path
		if err != nil || !bytes.Contains(data, []byte("nats")) || !bytes.Contains(data, want) {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(c)))
		return pid
	}
	return 0
}

// switchesPrefix marks the entries of a drain's CPU map that count context
// switches instead of CPU time: 1 ns of such an entry is a thousandth of a
// switch, so that drainWith's per-job division keeps three decimals.
const switchesPrefix = "switches_"

// procSwitches is the context switches, voluntary or not, of every thread
// of the processes so far, in the unit of switchesPrefix entries. Threads
// that already exited are not counted (the Go runtime seldom ends one).
func procSwitches(pids ...int) time.Duration {
	var files []string
	for _, pid := range pids {
		tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "status"))
		files = append(files, tasks...)
	}
	return sumProcLines(files, "voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")
}

// syscallsPrefix marks the entries that count the read and write system
// calls (sockets and pipes included, from /proc/<pid>/io), in the same unit
// as switchesPrefix entries.
const syscallsPrefix = "syscalls_"

// faultsPrefix marks the entries that count page faults (minor and major,
// from /proc/<pid>/stat), in the same unit as switchesPrefix entries.
const faultsPrefix = "faults_"

// isCount says whether a drain's entry k counts events (switchesPrefix,
// syscallsPrefix, faultsPrefix) instead of CPU time.
func isCount(k string) bool {
	return strings.Contains(k, switchesPrefix) || strings.Contains(k, syscallsPrefix) ||
		strings.Contains(k, faultsPrefix)
}

// procSyscalls is the read and write system calls of the processes so far
// (every thread's, the exited ones included), in the unit of
// syscallsPrefix entries.
func procSyscalls(pids ...int) time.Duration {
	var files []string
	for _, pid := range pids {
		files = append(files, filepath.Join("/proc", strconv.Itoa(pid), "io"))
	}
	return sumProcLines(files, "syscr", "syscw")
}

// sumProcLines sums the values of the "name: value" lines of the /proc
// files whose name is one of names, in the unit of switchesPrefix entries.
// A file that cannot be read (its process or thread is gone) counts 0.
func sumProcLines(files []string, names ...string) time.Duration {
	var n int64
	for _, f := range files {
		data, _ := os.ReadFile(f) //nolint:gosec // a /proc path
		for line := range strings.Lines(string(data)) {
			name, value, ok := strings.Cut(line, ":")
			if ok && slices.Contains(names, name) {
				v, _ := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
				n += v
			}
		}
	}
	return time.Duration(n * 1000)
}
