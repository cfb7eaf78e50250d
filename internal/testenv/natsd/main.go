// Command natsd is the nats-server of go.mod (the one the executor embeds)
// as a process of its own, with the same command line as nats-server: the
// tests start it to kill, stop and restart a broker, or to run a cluster
// of them, as they do with the machine's nats-server binary. It is test
// support, not a product.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/nats-io/nats-server/v2/server"
)

func main() {
	fs := flag.NewFlagSet("natsd", flag.ExitOnError)
	opts, err := server.ConfigureOptions(fs, os.Args[1:], server.PrintServerAndExit, fs.Usage, server.PrintTLSHelpAndDie)
	if err != nil {
		fmt.Fprintln(os.Stderr, "natsd:", err)
		os.Exit(2)
	}
	s, err := server.NewServer(opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "natsd:", err)
		os.Exit(1)
	}
	s.ConfigureLogger()
	if err := server.Run(s); err != nil {
		fmt.Fprintln(os.Stderr, "natsd:", err)
		os.Exit(1)
	}
	s.WaitForShutdown()
}
