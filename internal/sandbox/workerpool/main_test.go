package workerpool

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	MaybeRunWorker()
	if len(os.Args) > 2 && os.Args[1] == fakeWorkerArg {
		os.Exit(runFakeWorker(os.Args[2]))
	}
	goleak.VerifyTestMain(m)
}
