package workerpool

import "runtime/metrics"

// memory is what the worker's watchdog reads. runtime/metrics is cheap and
// does not stop the world (runtime.ReadMemStats does).
type memory struct {
	// liveHeap is the heap that survived the last GC.
	liveHeap uint64
	// heapObjects is the heap in objects, including garbage not yet swept.
	heapObjects uint64
	// mapped is the memory the Go runtime holds from the OS and has not
	// returned.
	mapped uint64
	// heapSpace is the address space of the heap: its objects, their
	// unused tails, stacks, and free pages, returned to the OS or not. The
	// Go runtime never unmaps heap memory, so this only grows: it is at
	// least the largest heap the process ever held, garbage included, even
	// when a GC freed it before anyone looked.
	heapSpace uint64
}

var memorySampleNames = [...]string{
	"/gc/heap/live:bytes",
	"/memory/classes/total:bytes",
	"/memory/classes/heap/released:bytes",
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/unused:bytes",
	"/memory/classes/heap/free:bytes",
	"/memory/classes/heap/stacks:bytes",
}

func readMemory() memory {
	var samples [len(memorySampleNames)]metrics.Sample
	for i, name := range memorySampleNames {
		samples[i].Name = name
	}
	metrics.Read(samples[:])
	value := func(i int) uint64 {
		if samples[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return samples[i].Value.Uint64()
	}
	return memory{
		liveHeap:    value(0),
		mapped:      value(1) - value(2),
		heapObjects: value(3),
		heapSpace:   value(2) + value(3) + value(4) + value(5) + value(6),
	}
}
