//go:build !linux

package workerpool

// prepareHeap prepares nothing: huge-page advice is Linux's.
func prepareHeap(uint64) uint64 { return 0 }
