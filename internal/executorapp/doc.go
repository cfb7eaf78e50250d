// Package executorapp wires the executor binary (cmd/executor): it reads
// the configuration from the environment, starts an embedded NATS server
// when no NATS_URL is given, builds the sandbox runner and the JetStream
// consumer, sets up telemetry (spans, the metrics served on the admin
// port's /metrics, trace-stamped JSON logs), serves /healthz and /readyz,
// runs the demo, and shuts down in order on SIGTERM or SIGINT: stop
// pulling (and stop replacing sandbox workers), finish the jobs in flight
// within SHUTDOWN_GRACE, drain the connection (at most 10 s), stop the
// embedded server, flush the telemetry (at most 5 s).
//
// It starts without a broker: the admin port answers first, /readyz says
// 503 and why ("connecting to NATS", "provisioning ...") while the
// connection retries in the background and provisioning retries with
// backoff, and the executor takes jobs once both are done. A rollout
// during a broker restart waits instead of crash-looping. The connection
// pings the broker every 5 s and drops one that left two pings unanswered;
// /readyz also asks the broker about the jobs stream and its consumer
// every 2 s and says 503 when no answer came for 6 s, so a half-open
// connection (a stopped broker process, a partition) or a cluster where
// the stream or the consumer has no leader turns it 503 within 10 s, where
// an idle queue keeps it 200.
//
// It must never hold the executor's logic (internal/consumer does), never
// print a secret (NATS_URL's password is redacted), and never read the
// process environment directly: Main takes getenv, so tests pass their own.
//
// # Environment
//
// Every variable is optional; the defaults run a complete executor on a bare
// machine. Durations are Go durations ("30s", "5m", "24h").
//
//	NATS_URL            broker URL, e.g. nats://user:pass@nats:4222, or a
//	                    comma-separated list of a cluster's URLs (spaces
//	                    allowed), each checked on its own. Empty: an
//	                    embedded NATS server with JetStream runs in the process.
//	NATS_CREDS          path to a NATS .creds file (JWT + nkey) for NATS_URL.
//	EXECUTOR_DATA_DIR   the embedded server's JetStream store (default ./data/nats).
//	EMBEDDED_NATS_ADDR  host:port the embedded server also listens on, so engines
//	                    can connect (default: none, in-process only).
//	JOBS_STREAM         jobs stream (default JOBS).
//	RESULTS_STREAM      results stream (default RESULTS).
//	DLQ_STREAM          dead-letter stream (default DLQ).
//	CONSUMER_NAME       durable pull consumer shared by all replicas (default executor).
//	SUBJECT_PREFIX      root of the subjects: <p>.jobs.>, <p>.results.<id>,
//	                    <p>.dlq.<id> (default flowscript).
//	MAX_DELIVER         attempts of one job before it is failed
//	                    (DELIVERY_EXHAUSTED) and dead-lettered (default 5). The
//	                    executor keeps this budget, not the broker: deliveries
//	                    cut short by a replica's shutdown do not count (up to
//	                    MAX_DELIVER of them), and no delivery, however it ends,
//	                    leaves a job in JOBS that is never delivered again.
//	MAX_ACK_PENDING     jobs in flight across all replicas, the consumer's
//	                    MaxAckPending (default 1000): a replica holds up to
//	                    twice SANDBOX_MAX_PARALLEL, so raise it past replicas
//	                    × 2 × SANDBOX_MAX_PARALLEL before scaling that far.
//	ACK_WAIT            redelivery timeout of an unacked job (default 3 ×
//	                    SANDBOX_TIMEOUT_MS, at least 30s).
//	DUPLICATE_WINDOW    JOBS deduplication window on the job id (default 5m).
//	JOBS_MAX_MSGS       jobs the JOBS stream holds before refusing new ones
//	                    (default 1000000; -1 no limit).
//	JOBS_MAX_BYTES      bytes the JOBS stream holds before refusing new jobs
//	                    (default 1 GiB; -1 no limit).
//	RESULTS_MAX_AGE     how long results are kept (default 24h).
//	RESULTS_MAX_BYTES   bytes RESULTS keeps, oldest dropped first (default 2 GiB; -1 no limit).
//	RESULTS_MAX_MSGS    results RESULTS keeps (default 5000000; -1 no limit).
//	DLQ_MAX_AGE         how long dead letters are kept (default 336h).
//	DLQ_MAX_BYTES       bytes DLQ keeps, oldest dropped first (default 512 MiB; -1 no limit).
//	DLQ_MAX_MSGS        dead letters DLQ keeps (default 100000; -1 no limit).
//	FAILURES_MAX_AGE    how long the failure records of jobs whose script failed are
//	                    kept in <JOBS_STREAM>_FAILURES, for flowscript replay (default 168h).
//	FAILURES_MAX_BYTES  bytes the failures stream keeps, oldest dropped first
//	                    (default 256 MiB; -1 no limit).
//	FAILURES_MAX_MSGS   failure records kept (default 50000; -1 no limit).
//	FAILURE_RECORDS     on (default) or off: off keeps no failure records (no
//	                    failures stream is created or written to).
//	STREAM_REPLICAS     replicas of the streams and the bucket in a clustered
//	                    broker (default 1; 3 on a 3-node cluster). Above 1,
//	                    every delivery looks its result up before running.
//	MAX_JOB_BYTES       largest job message run; larger ones are dead-lettered
//	                    (default and maximum 1048576).
//	SHUTDOWN_GRACE      how long in-flight jobs may finish after SIGTERM (default 30s).
//	EXECUTOR_HOLD_PROCESSOR  on (default) or off: while busy, cmd/executor holds
//	                    one more Go processor so the Go runtime's monitor thread
//	                    stays at its slow pace (package sysmonhold).
//	ADMIN_ADDR          address of the admin HTTP server with /healthz, /readyz
//	                    and /metrics (Prometheus text; default :9090).
//	LOG_LEVEL           debug, info, warn or error (default info). Logs are JSON
//	                    on stderr; every line about a job carries job_id, and
//	                    trace_id and span_id when the job has a trace.
//	OTEL_*              the standard OpenTelemetry variables (package
//	                    telemetry): OTEL_EXPORTER_OTLP_ENDPOINT turns on OTLP
//	                    export of traces (and metrics, unless
//	                    OTEL_METRICS_EXPORTER=prometheus); with none set nothing
//	                    is exported and the engine's traceparent is still passed
//	                    on to the result. service.name is flowscript-executor.
//	CAPABILITIES_POLICY_FILE  the operator's policy of host functions (YAML:
//	                    tenants and their capabilities, connectors with
//	                    secrets from this process's environment or files;
//	                    package capabilities). None: nothing is granted.
//	KV_BUCKET           key-value bucket of the kv capability (default
//	                    FLOWSCRIPT_KV), provisioned when a tenant may use kv.
//	KV_TTL              how long a kv value lives at most (default 24h).
//	KV_MAX_VALUE_BYTES  largest kv value, as JSON (default 65536).
//	KV_MAX_KEY_BYTES    longest kv key (default 256).
//	KV_MAX_KEYS         keys one session may hold (default 100).
//	CONTINUATION_KEY    the key (32 bytes or more, not a pattern; e.g. openssl rand -base64 48)
//	                    that signs the continuations of suspended jobs (DESIGN.md
//	                    §10). The same on every replica. Unset: the approval
//	                    capability is never granted, resume jobs fail
//	                    INVALID_CONTINUATION.
//	CONTINUATION_PREVIOUS_KEY  the key before the current one, still accepted
//	                    while keys rotate (tokens are signed with the new one).
//	CONTINUATION_TTL    how long a suspended job can be resumed: its token's and
//	                    its journal's lifetime (default 24h). Journals live in
//	                    the bucket <JOBS_STREAM>_JOURNALS.
//	SANDBOX_*           the sandbox limits (see sandbox.LimitsFromEnv):
//	                    SANDBOX_TIMEOUT_MS, SANDBOX_MEMORY_MB, SANDBOX_MAX_PARALLEL
//	                    (jobs in flight per replica), SANDBOX_MAX_SOURCE_BYTES,
//	                    SANDBOX_MAX_INPUT_BYTES, SANDBOX_MAX_OUTPUT_BYTES,
//	                    SANDBOX_MAX_CALL_STACK, SANDBOX_TIMEZONE,
//	                    SANDBOX_MAX_LOG_ENTRIES, SANDBOX_MAX_LOG_BYTES (console
//	                    lines kept), SANDBOX_MAX_HOST_CALLS,
//	                    SANDBOX_MAX_HOST_BYTES (host calls of one run).
//
// # Flags
//
//	-demo auto|on|off  publish the sample jobs of examples/ through the flowjob
//	                   client and print their result events, one JSON line each,
//	                   on stdout (auto: only with the embedded server).
//	-demo-only         run the demo, then shut down instead of serving.
//	-version           print the build's version and exit.
//
// A variable of the environment that the executor does not read but that
// is a letter or two from one of its names, the start or end of one, or a
// SANDBOX_ name, is ignored, with a warning at start naming the variable
// it likely meant, or beside the configuration error it causes
// (unknown_vars.go; Kubernetes' Service variables aside).
//
// # Exit codes
//
// 0 after a clean stop; 2 for a bad flag or configuration (a variable
// above, or an OTEL_* one), named on stderr; 1 when the executor failed
// while starting or running (the log says why).
package executorapp
