// Starts a real FlowScript executor for the tests: `go build ./cmd/executor`
// from the repository root, run with an embedded NATS server on a free
// loopback port, a temporary data directory and its own subject prefix and
// stream names (so the client's options are exercised), then waits until
// its /readyz says it pulls jobs.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

import { connect, type NatsConnection } from "nats";

/** The repository root: the nearest parent with go.mod. */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "go.mod"))) {
    const up = dirname(dir);
    if (up === dir) throw new Error("no go.mod above " + fileURLToPath(import.meta.url));
    dir = up;
  }
  return dir;
}

/** The names the test executor runs with (not the defaults, on purpose). */
export const CONTRACT = {
  subjectPrefix: "enginetest",
  resultsStream: "ENGINETEST_RESULTS",
} as const;

export interface Executor {
  nc: NatsConnection;
  url: string;
  /** Everything the executor wrote on stderr (JSON logs). */
  logs(): string;
  /** Resolves when the logs match re; rejects after 10 s. */
  waitForLog(re: RegExp): Promise<void>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === "object" && addr ? resolve(addr.port) : reject(new Error("no port"))));
    });
  });
}

export async function startExecutor(): Promise<Executor> {
  const dir = mkdtempSync(join(tmpdir(), "flowscript-ts-"));
  const bin = join(dir, "executor");
  const root = repoRoot();
  await promisify(execFile)("go", ["build", "-o", bin, "./cmd/executor"], {
    cwd: root,
    env: process.env,
    timeout: 300_000,
    maxBuffer: 16 << 20,
  });
  const port = await freePort();
  const env: Record<string, string> = {
    EMBEDDED_NATS_ADDR: `127.0.0.1:${port}`,
    EXECUTOR_DATA_DIR: join(dir, "data"),
    ADMIN_ADDR: "127.0.0.1:0",
    SUBJECT_PREFIX: CONTRACT.subjectPrefix,
    RESULTS_STREAM: CONTRACT.resultsStream,
    JOBS_STREAM: "ENGINETEST_JOBS",
    DLQ_STREAM: "ENGINETEST_DLQ",
    SANDBOX_MAX_PARALLEL: "2",
    LOG_LEVEL: "info",
  };
  for (const k of ["PATH", "HOME", "TMPDIR"]) {
    const v = process.env[k];
    if (v) env[k] = v;
  }
  const child = spawn(bin, ["-demo=off"], { env, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  try {
    const admin = await waitFor(() => /"msg":"admin server listening".*?"addr":"([^"]+)"/.exec(stderr)?.[1], exited, () => stderr, "the admin address in the logs");
    await waitFor(async () => {
      try {
        const res = await fetch(`http://${admin}/readyz`);
        return res.ok ? true : undefined;
      } catch {
        return undefined;
      }
    }, exited, () => stderr, "/readyz");
    const url = `nats://127.0.0.1:${port}`;
    const nc = await connect({ servers: url, name: "flowscript-ts-tests" });
    return {
      nc,
      url,
      logs: () => stderr,
      async waitForLog(re: RegExp) {
        await waitFor(() => (re.test(stderr) ? true : undefined), exited, () => stderr, `a log line matching ${re}`, 10_000);
      },
      async stop() {
        await nc.drain().catch(() => {});
        await terminate(child, exited);
        cleanup();
      },
    };
  } catch (err) {
    await terminate(child, exited);
    cleanup();
    throw err;
  }
}

async function waitFor<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  exited: Promise<number | null>,
  logs: () => string,
  what: string,
  timeoutMs = 60_000,
): Promise<T> {
  let gone: number | null | undefined;
  void exited.then((code) => (gone = code));
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const v = await probe();
    if (v !== undefined) return v;
    if (gone !== undefined) throw new Error(`the executor exited (${gone}) before ${what}:\n${logs()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the executor gave no ${what} within ${timeoutMs} ms:\n${logs()}`);
}

async function terminate(child: ChildProcess, exited: Promise<number | null>) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  const killer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  await exited;
  clearTimeout(killer);
}
