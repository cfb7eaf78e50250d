package flowclient_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/flowscript/flowscript/flowclient"
	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/actions"
	"github.com/flowscript/flowscript/internal/consumer"
	"github.com/flowscript/flowscript/internal/sandbox"
)

// An engine publishes an executeScript job and waits for its result event.
// (The broker and the executor run in this example's process so that it is
// self-contained; an engine only needs the connection and the client.)
func ExampleClient_Run() {
	dir, _ := os.MkdirTemp("", "flowjob-example-")
	defer func() { _ = os.RemoveAll(dir) }() // best-effort cleanup of a temporary folder
	srv, _ := server.NewServer(&server.Options{JetStream: true, StoreDir: dir, DontListen: true, NoSigs: true, NoLog: true})
	go srv.Start()
	srv.ReadyForConnections(10 * time.Second)
	defer srv.Shutdown()
	nc, _ := nats.Connect("", nats.InProcessServer(srv))
	defer nc.Close()

	// The executor side (cmd/executor in production).
	exec, err := consumer.New(context.Background(), nc, consumer.Config{PullWait: 100 * time.Millisecond}, consumer.Options{
		Runner: sandbox.NewInProcess(sandbox.Limits{}),
		Policy: actions.Policy{},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = exec.Run(ctx); close(done) }()
	defer func() { stop(); <-done }()

	// The engine side.
	client, _ := flowclient.NewClient(nc)
	job := &flowjob.Job{
		ID: "job-0001", SessionID: "session-42", FlowID: "flow-1", BlockID: "block-7",
		Context: flowjob.ContextFlow,
		Action: flowjob.ExecuteScriptAction{
			Type:           flowjob.ActionTypeExecuteScript,
			Source:         "function execute(nome) { return nome.trim().toUpperCase() }",
			InputVariables: []flowjob.InputVariable{{Name: "nome", Value: "{{contact.name}}"}},
			OutputVariable: "nomeMaiusculo",
			OnError:        flowjob.OnErrorContinue,
		},
		Variables: map[string]string{"contact.name": "  maria "},
	}
	wait, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := client.Run(wait, job)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Status, res.Directive.Type, res.Variables["nomeMaiusculo"])
	// Output: succeeded continue MARIA
}
