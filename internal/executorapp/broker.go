package executorapp

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/flowscript/flowscript/internal/natsurl"
)

// startEmbedded runs a NATS server with JetStream in this process, storing
// under cfg.DataDir, which it locks (unlock to release it, after the
// server's shutdown). It listens on cfg.EmbeddedNATSAddr when set and on no
// port otherwise (clients in this process connect in-process).
func startEmbedded(cfg Config, log *slog.Logger) (srv *server.Server, unlock func(), err error) {
	if err := os.MkdirAll(cfg.DataDir, 0o750); err != nil {
		return nil, nil, fmt.Errorf("creating EXECUTOR_DATA_DIR %s: %w", cfg.DataDir, err)
	}
	// Two servers on one store would each take the other's messages for
	// their own: one executor per folder.
	release, err := lockDir(cfg.DataDir)
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		if err != nil {
			release()
		}
	}()
	opts := &server.Options{
		ServerName: "flowscript-embedded",
		JetStream:  true,
		StoreDir:   cfg.DataDir,
		NoSigs:     true,
		NoLog:      true,
		DontListen: cfg.EmbeddedNATSAddr == "",
	}
	if cfg.EmbeddedNATSAddr != "" {
		host, port, err := net.SplitHostPort(cfg.EmbeddedNATSAddr)
		if err != nil {
			return nil, nil, fmt.Errorf("EMBEDDED_NATS_ADDR must be host:port such as 127.0.0.1:4222, got %q", cfg.EmbeddedNATSAddr)
		}
		p, err := strconv.Atoi(port)
		if err != nil {
			return nil, nil, fmt.Errorf("EMBEDDED_NATS_ADDR must be host:port such as 127.0.0.1:4222, got %q", cfg.EmbeddedNATSAddr)
		}
		if p == 0 { // nats-server reads port 0 as its default, 4222
			p = server.RANDOM_PORT
		} else {
			// The server logs nothing (NoLog) and would only time out on an
			// address it cannot listen on: try it first.
			l, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", cfg.EmbeddedNATSAddr)
			if err != nil {
				return nil, nil, fmt.Errorf("the embedded NATS server cannot listen on EMBEDDED_NATS_ADDR %s: %w (another NATS server?): choose a free address, or set NATS_URL to use that server", cfg.EmbeddedNATSAddr, err)
			}
			_ = l.Close()
		}
		opts.Host, opts.Port = host, p
	}
	srv, err = server.NewServer(opts)
	if err != nil {
		return nil, nil, fmt.Errorf("creating the embedded NATS server: %w", err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(30 * time.Second) {
		srv.Shutdown()
		return nil, nil, fmt.Errorf("the embedded NATS server (store %s) was not ready within 30s", cfg.DataDir)
	}
	attrs := []any{"store_dir", cfg.DataDir}
	if cfg.EmbeddedNATSAddr != "" {
		attrs = append(attrs, "url", srv.ClientURL())
	}
	log.Info("embedded NATS server started", attrs...)
	return srv, release, nil
}

// Connection liveness: the client pings the broker every pingInterval and
// drops a connection that left maxPingsOut pings unanswered (a half-open
// TCP connection, a stopped broker process), then reconnects.
const (
	pingInterval = 5 * time.Second
	maxPingsOut  = 2
)

// connect opens the executor's connection. It never fails for a broker
// that is down: the connection retries in the background (forever, also
// after a later loss), so a replica started during a broker restart waits
// for it instead of exiting, and a broker restart only pauses the executor.
// lastDial returns the error of its last failed attempt to connect.
func connect(cfg Config, srv *server.Server, log *slog.Logger) (nc *nats.Conn, lastDial func() error, err error) {
	var dialErr atomic.Pointer[error]
	lastDial = func() error {
		if p := dialErr.Load(); p != nil {
			return *p
		}
		return nil
	}
	opts := []nats.Option{
		nats.Name("flowscript-executor"),
		nats.MaxReconnects(-1),
		nats.RetryOnFailedConnect(true),
		nats.ReconnectWait(250 * time.Millisecond),
		nats.PingInterval(pingInterval),
		nats.MaxPingsOutstanding(maxPingsOut),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil { // nil: we closed it
				log.Warn("disconnected from NATS; reconnecting", "error", err)
			}
		}),
		nats.ReconnectErrHandler(func(_ *nats.Conn, err error) { dialErr.Store(&err) }),
		nats.ReconnectHandler(func(nc *nats.Conn) {
			log.Info("connected to NATS", "server", nc.ConnectedUrlRedacted())
		}),
		nats.ErrorHandler(func(_ *nats.Conn, sub *nats.Subscription, err error) {
			subject := ""
			if sub != nil {
				subject = sub.Subject
			}
			log.Warn("NATS asynchronous error", "subject", subject, "error", err)
		}),
	}
	url := natsurl.Join(cfg.NATSServers())
	if srv != nil {
		opts = append(opts, nats.InProcessServer(srv))
		url = srv.ClientURL()
	}
	if cfg.NATSCreds != "" {
		opts = append(opts, nats.UserCredentials(cfg.NATSCreds))
	}
	nc, err = nats.Connect(url, opts...)
	if err != nil {
		return nil, nil, fmt.Errorf("connecting to NATS at %s: %w (check NATS_URL, or unset it to use the embedded server)", natsurl.Redact(url), err)
	}
	return nc, lastDial, nil
}
