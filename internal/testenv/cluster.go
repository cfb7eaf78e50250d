package testenv

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Cluster is a JetStream cluster of nats-server processes of one kind on
// loopback, routed to each other, started by a test and stopped when it
// ends. Its nodes are named n1, n2, ...; each can be killed, paused and
// restarted on its own store.
type Cluster struct {
	Kind  NATSKind
	Nodes []*NATSProcess
	t     testing.TB
}

// StartCluster starts n nodes of kind as one cluster and waits until
// JetStream has a meta leader that every node reaches (up to 60 s).
func StartCluster(t testing.TB, kind NATSKind, n int) *Cluster {
	t.Helper()
	name := "fs-" + strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-"))
	if len(name) > 48 {
		name = name[:48]
	}
	clusterPorts := make([]int, n)
	routes := make([]string, n)
	for i := range n {
		clusterPorts[i] = FreePort(t)
		routes[i] = fmt.Sprintf("nats://127.0.0.1:%d", clusterPorts[i])
	}
	c := &Cluster{Kind: kind, t: t}
	for i := range n {
		c.Nodes = append(c.Nodes, StartNATSProcess(t, kind, NATSProcessOptions{
			Name:        fmt.Sprintf("n%d", i+1),
			ClusterPort: clusterPorts[i],
			ClusterName: name,
			Routes:      routes,
		}))
	}
	c.WaitJetStream(60 * time.Second)
	return c
}

// URLs is the client URL list of every node, as an operator writes it in
// NATS_URL: comma and space separated.
func (c *Cluster) URLs() string {
	urls := make([]string, len(c.Nodes))
	for i, n := range c.Nodes {
		urls[i] = n.URL()
	}
	return strings.Join(urls, ", ")
}

// Node is the node named name (a stream or consumer leader's name), nil
// when none is.
func (c *Cluster) Node(name string) *NATSProcess {
	for _, n := range c.Nodes {
		if n.Name == name {
			return n
		}
	}
	return nil
}

// WaitJetStream waits until every running node answers a JetStream API
// request (so the meta group has a leader every node reaches), failing the
// test after d.
func (c *Cluster) WaitJetStream(d time.Duration) {
	c.t.Helper()
	deadline := time.Now().Add(d)
	for _, n := range c.Nodes {
		if !n.Answering() {
			continue
		}
		var last error
		for {
			if last = jetStreamAnswers(n.URL()); last == nil {
				break
			}
			if time.Now().After(deadline) {
				c.t.Fatalf("the %s cluster's node %s did not answer JetStream requests within %s: %v\n%s", c.Kind, n.Name, d, last, n.Log())
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

func jetStreamAnswers(url string) error {
	nc, err := nats.Connect(url, nats.Timeout(2*time.Second), nats.MaxReconnects(0))
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err = js.AccountInfo(ctx)
	return err
}

// Restart kills every node (SIGKILL), then starts them all again on their
// stores and waits for JetStream.
func (c *Cluster) Restart() {
	c.t.Helper()
	for _, n := range c.Nodes {
		n.Resume()
		n.Kill()
	}
	for _, n := range c.Nodes {
		n.Start()
	}
	c.WaitJetStream(90 * time.Second)
}

// ErrNoLeader reports a stream or consumer without a leader now.
var ErrNoLeader = errors.New("no leader")

// StreamLeader is the node that leads stream now.
func (c *Cluster) StreamLeader(ctx context.Context, stream string) (*NATSProcess, error) {
	return c.leader(ctx, func(js jetstream.JetStream) (*jetstream.ClusterInfo, error) {
		s, err := js.Stream(ctx, stream)
		if err != nil {
			return nil, err
		}
		return s.CachedInfo().Cluster, nil
	})
}

// ConsumerLeader is the node that leads the consumer now.
func (c *Cluster) ConsumerLeader(ctx context.Context, stream, consumer string) (*NATSProcess, error) {
	return c.leader(ctx, func(js jetstream.JetStream) (*jetstream.ClusterInfo, error) {
		cons, err := js.Consumer(ctx, stream, consumer)
		if err != nil {
			return nil, err
		}
		return cons.CachedInfo().Cluster, nil
	})
}

// WaitStreamLeader waits up to d for stream to have a leader and returns
// it, failing the test otherwise.
func (c *Cluster) WaitStreamLeader(stream string, d time.Duration) *NATSProcess {
	c.t.Helper()
	deadline := time.Now().Add(d)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		n, err := c.StreamLeader(ctx, stream)
		cancel()
		if err == nil {
			return n
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("stream %s had no leader within %s: %v", stream, d, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (c *Cluster) leader(ctx context.Context, info func(jetstream.JetStream) (*jetstream.ClusterInfo, error)) (*NATSProcess, error) {
	var running []string
	for _, n := range c.Nodes {
		if n.Answering() {
			running = append(running, n.URL())
		}
	}
	nc, err := nats.Connect(strings.Join(running, ","), nats.Timeout(2*time.Second), nats.MaxReconnects(0))
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	ci, err := info(js)
	if err != nil {
		return nil, err
	}
	if ci == nil || ci.Leader == "" {
		return nil, ErrNoLeader
	}
	n := c.Node(ci.Leader)
	if n == nil {
		return nil, fmt.Errorf("the leader %q is no node of this cluster", ci.Leader)
	}
	return n, nil
}

// MoveLeader asks the current leader of stream (of its consumer when
// consumer is not "") to step down until node leads it, trying up to 20
// elections. It reports whether node leads in the end.
func (c *Cluster) MoveLeader(stream, consumer string, node *NATSProcess) bool {
	c.t.Helper()
	subject := "$JS.API.STREAM.LEADER.STEPDOWN." + stream
	if consumer != "" {
		subject = "$JS.API.CONSUMER.LEADER.STEPDOWN." + stream + "." + consumer
	}
	for range 20 {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		var leader *NATSProcess
		var err error
		if consumer == "" {
			leader, err = c.StreamLeader(ctx, stream)
		} else {
			leader, err = c.ConsumerLeader(ctx, stream, consumer)
		}
		cancel()
		switch {
		case err == nil && leader == node:
			return true
		case err == nil:
			if err := c.request(subject); err != nil {
				c.t.Logf("asking the leader of %s %s to step down: %v", stream, consumer, err)
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
	return false
}

func (c *Cluster) request(subject string) error {
	var running []string
	for _, n := range c.Nodes {
		if n.Answering() {
			running = append(running, n.URL())
		}
	}
	nc, err := nats.Connect(strings.Join(running, ","), nats.Timeout(2*time.Second), nats.MaxReconnects(0))
	if err != nil {
		return err
	}
	defer nc.Close()
	_, err = nc.Request(subject, nil, 3*time.Second)
	return err
}
