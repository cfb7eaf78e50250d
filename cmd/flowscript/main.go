// Command flowscript is the users' tool: it runs scripts in the sandbox the
// executor uses (`flowscript help` lists the commands). The wiring lives in
// internal/cli.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/flowscript/flowscript/internal/cli"
	"github.com/flowscript/flowscript/internal/sandbox/workerpool"
)

func main() {
	workerpool.MaybeRunWorker() // a sandbox worker never returns from here
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, cli.Env{
		Args:   os.Args[1:],
		Stdin:  os.Stdin,
		Stdout: os.Stdout,
		Stderr: os.Stderr,
		Getenv: os.Getenv,
	})
	stop()
	os.Exit(code)
}
