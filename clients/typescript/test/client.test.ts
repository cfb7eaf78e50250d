// The client against a real executor (built from this repository and
// started by the tests): every directive, INVALID_JOB, a lost and a
// refused reply that fall back to the RESULTS stream, a duplicate publish,
// timeouts (of the wait and of the publish, each rejected once), and a
// trace that continues from the engine's span.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { type AddressInfo, connect as netConnect, createServer, type Socket } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { connect, createInbox, headers, type NatsConnection, StorageType } from "nats";

import {
  awaitResult,
  buildJob,
  getResult,
  JobValidationError,
  LIMITS,
  MAX_TIMEOUT_MS,
  MaxPayloadError,
  publishJob,
  PublishError,
  ResultTimeoutError,
  ConnectionClosedError,
  submit,
  IdReusedError,
  validateJob,
  validateResult,
  type Job,
  type JobInit,
  type ReceivedResult,
} from "@flowscript/client";

import { CONTRACT, repoRoot, startExecutor, type Executor } from "./executor.js";

let exec: Executor;
let seq = 0;

before(async () => {
  exec = await startExecutor();
});

after(async () => {
  await exec?.stop();
});

/** A job with a fresh id, a flow block by default. */
function job(action: JobInit["action"], rest: Partial<JobInit> = {}): Job {
  seq++;
  return buildJob({
    id: `ts-${process.pid}-${Date.now()}-${seq}`,
    sessionId: `session-${seq}`,
    flowId: "flow-ts",
    blockId: `block-${seq}`,
    context: "flow",
    ...rest,
    action,
  });
}

/** Checks the result event against the contract's schema and the job. */
function contractTrue(got: ReceivedResult, j: Job) {
  assert.deepEqual(validateResult(got.result), [], "the result follows result.schema.json");
  assert.equal(got.result.jobId, j.id);
  assert.equal(got.result.sessionId, j.sessionId);
  assert.equal(got.result.attempt, 1);
}

const opts = { ...CONTRACT, timeoutMs: 30_000 };
// For the tests that say the result came by the inbox: no stream lookup
// races it, however slow the machine.
const byInbox = { ...opts, pollFirstMs: 25_000, pollMaxMs: 25_000 };

describe("submit against the executor", () => {
  test("success: the output goes to outputVariable and the flow continues", async () => {
    const j = job(
      {
        source: "function execute(nome) { return nome.trim().toUpperCase() }",
        inputVariables: [{ name: "nome", value: "{{contact.name}}" }],
        outputVariable: "nomeMaiusculo",
        onError: "continue",
      },
      { variables: { "contact.name": "  maria " } },
    );
    const got = await submit(exec.nc, j, byInbox);
    contractTrue(got, j);
    assert.equal(got.source, "inbox");
    assert.equal(got.result.status, "succeeded");
    assert.deepEqual(got.result.directive, { type: "continue" });
    assert.deepEqual(got.result.variables, { nomeMaiusculo: "MARIA" });
    assert.equal(got.result.error, undefined);
  });

  test("continue on error: output \"\", the message in errorVariable, directive continue", async () => {
    const j = job({
      source: "throw new Error('sem CPF')",
      outputVariable: "cpf",
      errorVariable: "erroCpf",
      onError: "continue",
    });
    const got = await submit(exec.nc, j, opts);
    contractTrue(got, j);
    assert.equal(got.result.status, "failed");
    assert.equal(got.result.error?.code, "SCRIPT_ERROR");
    assert.match(got.result.error?.message ?? "", /sem CPF/);
    assert.deepEqual(got.result.directive, { type: "continue" });
    assert.equal(got.result.variables["cpf"], "");
    assert.match(got.result.variables["erroCpf"] ?? "", /sem CPF/);
  });

  test("freeze_handoff: a blocking failure freezes the session with the interpolated message", async () => {
    const j = job(
      {
        source: "return undefinedThing.x",
        outputVariable: "o",
        errorVariable: "erro",
        onError: "blocking",
        errorMessage: "Falhou para {{contact.name}}: {{erro}}",
      },
      { variables: { "contact.name": "Ana" } },
    );
    const got = await submit(exec.nc, j, opts);
    contractTrue(got, j);
    assert.equal(got.result.status, "failed");
    assert.equal(got.result.directive.type, "freeze_handoff");
    assert.match(got.result.directive.message ?? "", /^Falhou para Ana: .*undefinedThing/);
    assert.equal(got.result.error?.line, 1);
  });

  test("redirect: errorHandoff false sends the message and redirects to defaultExceptionBlockId", async () => {
    const j = job(
      {
        source: "function execute() {\n  return )\n}",
        outputVariable: "o",
        onError: "blocking",
        errorMessage: "Vamos tentar de outro jeito.",
        errorHandoff: false,
      },
      { defaultExceptionBlockId: "block-exception" },
    );
    const got = await submit(exec.nc, j, opts);
    contractTrue(got, j);
    assert.equal(got.result.error?.code, "SCRIPT_SYNTAX_ERROR");
    assert.deepEqual(got.result.directive, {
      type: "redirect",
      blockId: "block-exception",
      message: "Vamos tentar de outro jeito.",
    });
  });

  test("throw: a blocking failure inside a Tool is rethrown to its caller", async () => {
    const j = job(
      { source: "throw new Error('tool quebrou')", outputVariable: "o", onError: "blocking" },
      { context: "tool" },
    );
    const got = await submit(exec.nc, j, opts);
    contractTrue(got, j);
    assert.equal(got.result.context, "tool");
    assert.equal(got.result.directive.type, "throw");
    assert.match(got.result.directive.message ?? "", /tool quebrou/);
    assert.deepEqual(got.result.variables, {});
  });
});

describe("INVALID_JOB", () => {
  const broken = () => ({
    ...job({ source: "return 1", outputVariable: "o", onError: "blocking" }),
    action: { type: "executeScript", source: "return 1", inputVariables: [], outputVariable: "o", onError: "later" },
  });

  test("the client refuses the job before sending it, naming the field", async () => {
    const bad = broken();
    await assert.rejects(
      publishJob(exec.nc, bad as unknown as Job, opts),
      (err: unknown) => err instanceof JobValidationError && err.has("action.onError") && /later/.test(err.message),
    );
    assert.equal(await getResult(exec.nc, bad.id, CONTRACT), null, "nothing was published");
  });

  test("the executor answers a job published around the client with INVALID_JOB naming the same field", async () => {
    const bad = broken();
    const fields = validateJob(bad).map((e) => e.field);
    assert.deepEqual(fields, ["action.onError"]);

    const inbox = createInbox();
    const waiting = awaitResult(exec.nc, bad.id, { ...byInbox, inbox });
    const h = headers();
    h.set("Reply-To", inbox);
    await exec.nc.jetstream().publish(`${CONTRACT.subjectPrefix}.jobs.execute`, new TextEncoder().encode(JSON.stringify(bad)), {
      msgID: bad.id,
      headers: h,
    });
    const got = await waiting;
    assert.equal(got.source, "inbox");
    assert.deepEqual(validateResult(got.result), []);
    assert.equal(got.result.status, "failed");
    assert.equal(got.result.error?.code, "INVALID_JOB");
    assert.match(got.result.error?.message ?? "", /action\.onError/);
    assert.equal(got.result.directive.type, "freeze_handoff", "an unusable onError gets the safe directive");
  });
});

describe("the RESULTS stream fallback", () => {
  const quick = { ...opts, pollFirstMs: 100, pollMaxMs: 400 };

  test("a reply sent to an inbox nobody reads: awaitResult reads the stored result", async () => {
    const j = job({ source: "return 'ok'", outputVariable: "o", onError: "continue" });
    await publishJob(exec.nc, j, { ...CONTRACT, replyTo: createInbox() });
    const got = await awaitResult(exec.nc, j.id, { ...quick, inbox: createInbox() });
    assert.equal(got.source, "stream");
    contractTrue(got, j);
    assert.equal(got.result.variables["o"], "ok");
  });

  test("a Reply-To the executor refuses (a subject of its own): the stored result still arrives", async () => {
    const j = job({ source: "return 'refused reply'", outputVariable: "o", onError: "continue" });
    const refused = `${CONTRACT.subjectPrefix}.not-an-inbox.${j.id}`;
    const waiting = awaitResult(exec.nc, j.id, { ...quick, inbox: refused });
    await publishJob(exec.nc, j, { ...CONTRACT, replyTo: refused });
    const got = await waiting;
    assert.equal(got.source, "stream");
    assert.equal(got.result.variables["o"], "refused reply");
    // The executor stores the result, then refuses the reply: its log line may come a moment later.
    await exec.waitForLog(new RegExp(`ignoring a Reply-To that is not a plain inbox subject.*${refused}`));
  });

  test("awaitResult without an inbox reads the stream at once", async () => {
    const j = job({ source: "return 'stored'", outputVariable: "o", onError: "continue" });
    await submit(exec.nc, j, opts);
    const got = await awaitResult(exec.nc, j.id, CONTRACT);
    assert.equal(got.source, "stream");
    assert.equal(got.result.variables["o"], "stored");
  });

  test("a duplicate publish is dropped by the broker and submit gets the stored result", async () => {
    const j = job({ source: "return 'once'", outputVariable: "o", onError: "continue" });
    const first = await submit(exec.nc, j, opts);
    const again = await publishJob(exec.nc, j, CONTRACT);
    assert.equal(again.duplicate, true);
    const second = await submit(exec.nc, j, opts);
    assert.equal(second.source, "stream");
    assert.deepEqual(second.result, first.result);
  });

  test("an id another session's job used: IdReusedError, not that job's result", async () => {
    const j = job({ source: "return 'theirs'", outputVariable: "o", onError: "continue" });
    await submit(exec.nc, j, opts);
    const mine: Job = { ...j, sessionId: j.sessionId + "-other" };
    await assert.rejects(submit(exec.nc, mine, opts), (err: unknown) => {
      return err instanceof IdReusedError && err.jobId === j.id && err.stored.sessionId === j.sessionId && /already used by another job/.test(err.message);
    });
  });

  test("a bad job's INVALID_JOB result names no session: another job under its id gets IdReusedError, not that result", async () => {
    const bad = { ...job({ source: "return 'bad'", outputVariable: "o", onError: "continue" }), sessionId: "" };
    await exec.nc.jetstream().publish(`${CONTRACT.subjectPrefix}.jobs.execute`, new TextEncoder().encode(JSON.stringify(bad)), {
      msgID: bad.id,
    });
    const stored = await awaitResult(exec.nc, bad.id, CONTRACT);
    assert.equal(stored.result.error?.code, "INVALID_JOB");
    assert.equal(stored.result.sessionId, "");
    const mine: Job = { ...bad, sessionId: "s-other", flowId: bad.flowId + "-other" };
    await assert.rejects(submit(exec.nc, mine, opts), (err: unknown) => err instanceof IdReusedError && err.jobId === bad.id);
  });

  test("no result in time: ResultTimeoutError", async () => {
    const started = Date.now();
    await assert.rejects(awaitResult(exec.nc, "never-published-job", { ...quick, timeoutMs: 700 }), (err: unknown) => {
      // "no message found" is the normal "not yet", not a failed lookup.
      return err instanceof ResultTimeoutError && err.jobId === "never-published-job" && err.timeoutMs === 700 && err.lastError === undefined;
    });
    assert.ok(Date.now() - started >= 690, "it waited for the timeout");
  });

  test("a results stream that does not exist: the timeout says why", async () => {
    await assert.rejects(
      awaitResult(exec.nc, "any-job", { ...quick, resultsStream: "NO_SUCH_STREAM", timeoutMs: 500 }),
      (err: unknown) => err instanceof ResultTimeoutError && /NO_SUCH_STREAM/.test(err.message),
    );
  });

  test("a stored result that names another job is refused, not returned", async () => {
    await exec.nc.jetstream().publish(`${CONTRACT.subjectPrefix}.results.forged-1`, new TextEncoder().encode(JSON.stringify({ jobId: "someone-else" })));
    await assert.rejects(getResult(exec.nc, "forged-1", CONTRACT), /names job "someone-else"/);
  });

  test("ids and names no job can have reject (they never throw) before anything waits", async () => {
    for (const id of ["*", ">", "a.b", "", undefined as unknown as string]) {
      await assert.rejects(awaitResult(exec.nc, id, quick), TypeError);
      await assert.rejects(getResult(exec.nc, id, quick), TypeError);
    }
    await assert.rejects(awaitResult(exec.nc, "ok-id", { ...quick, subjectPrefix: "*" }), /subjectPrefix must be/);
    await assert.rejects(awaitResult(exec.nc, "ok-id", { ...quick, resultsStream: "a.b" }), /resultsStream must be/);
    await assert.rejects(awaitResult(exec.nc, "ok-id", { ...quick, resultsSubjectPrefix: "flowscript.>" }), /resultsSubjectPrefix must be/);
    await assert.rejects(submit(exec.nc, job({ source: "return 1", outputVariable: "o", onError: "continue" }), { ...quick, jobsSubject: "flowscript.jobs.*" }), /jobsSubject must be/);
    await assert.rejects(awaitResult(exec.nc, "ok-id", { ...quick, timeoutMs: Number.NaN }), /timeoutMs must be a number of milliseconds from 1/);
  });

  test("a connection that closes while a result is awaited: ConnectionClosedError at the next lookup, not a timeout", async () => {
    const nc = await connect({ servers: exec.url, name: "flowscript-ts-tests-closing" });
    const started = Date.now();
    const waiting = awaitResult(nc, "closed-while-waiting", { ...quick, inbox: createInbox(), timeoutMs: 20_000 });
    await nc.close();
    await assert.rejects(waiting, (err: unknown) => err instanceof ConnectionClosedError && err.jobId === "closed-while-waiting" && /getResult/.test(err.message));
    assert.ok(Date.now() - started < 10_000, "it did not wait out the timeout");
  });

  test("an aborted wait rejects with the signal's reason", async () => {
    const ac = new AbortController();
    const waiting = awaitResult(exec.nc, "aborted-job", { ...quick, inbox: createInbox(), signal: ac.signal });
    ac.abort(new Error("engine shutting down"));
    await assert.rejects(waiting, /engine shutting down/);
  });
});

/**
 * Runs fn with a process "unhandledRejection" listener and returns what it
 * saw (after a few ms: Node reports an unhandled rejection once the
 * microtasks have run). An unhandled rejection ends a Node process by
 * default, whatever the caller's try/catch.
 */
async function unhandledDuring(fn: () => Promise<void>): Promise<unknown[]> {
  const seen: unknown[] = [];
  const listener = (reason: unknown) => void seen.push(reason);
  process.on("unhandledRejection", listener);
  try {
    await fn();
    await new Promise((r) => setTimeout(r, 50));
  } finally {
    process.off("unhandledRejection", listener);
  }
  return seen;
}

/** The connection's subscriptions and the process's timers, to tell that nothing was left behind. */
function pending(nc: NatsConnection) {
  const subs = (nc as unknown as { protocol: { subscriptions: { size(): number } } }).protocol.subscriptions.size();
  const timers = process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
  return { subs, timers };
}

describe("submit when the publish or the wait fails: one rejection, nothing left", () => {
  // No stream takes stalltest.>: a core NATS subscriber there receives the
  // publish's request and never answers, so no acknowledgement comes.
  const stalled = { subjectPrefix: "stalltest", resultsStream: CONTRACT.resultsStream, pollFirstMs: 60_000, pollMaxMs: 60_000 };

  test("a connection closed or draining before the call: PublishError or ConnectionClosedError now, no timer left to reject later", async () => {
    for (const end of ["close", "drain"] as const) {
      const timersBefore = pending(exec.nc).timers;
      const nc = await connect({ servers: exec.url, name: `flowscript-ts-tests-${end}d` });
      const ending = end === "close" ? nc.close() : nc.drain();
      const j = job({ source: "return 1", outputVariable: "o", onError: "continue" });
      const caught: unknown[] = [];
      const unhandled = await unhandledDuring(async () => {
        // A timeout shorter than unhandledDuring's pause: a timer left
        // behind would reject unhandled before it returns.
        await submit(nc, j, { ...CONTRACT, timeoutMs: 20 }).catch((err: unknown) => void caught.push(err));
        await awaitResult(nc, j.id, { ...CONTRACT, inbox: createInbox(), timeoutMs: 20 }).catch((err: unknown) => void caught.push(err));
      });
      await ending; // the connection's own timers end with it
      assert.deepEqual(unhandled, [], `${end}: no unhandled rejection`);
      assert.ok(caught[0] instanceof PublishError && caught[0].jobId === j.id, `${end}: submit rejects with a PublishError, got ${String(caught[0])}`);
      assert.equal(caught[0].mayBeStored, false, `${end}: nothing was sent`);
      assert.ok(caught[1] instanceof ConnectionClosedError && caught[1].jobId === j.id, `${end}: awaitResult rejects with a ConnectionClosedError, got ${String(caught[1])}`);
      assert.equal(pending(exec.nc).timers, timersBefore, `${end}: no timer left`);
    }
  });

  test("a publish nobody acknowledges within timeoutMs: PublishError, not an unhandled ResultTimeoutError", async () => {
    const staller = exec.nc.subscribe("stalltest.jobs.execute");
    await exec.nc.flush();
    try {
      const before = pending(exec.nc);
      const j = job({ source: "return 1", outputVariable: "o", onError: "continue" });
      let caught: unknown;
      const started = Date.now();
      const unhandled = await unhandledDuring(async () => {
        try {
          await submit(exec.nc, j, { ...stalled, timeoutMs: 500 });
        } catch (err) {
          caught = err;
        }
      });
      assert.deepEqual(unhandled, [], "no unhandled rejection");
      assert.ok(caught instanceof PublishError, `a PublishError, got ${String(caught)}`);
      assert.equal(caught.jobId, j.id);
      assert.equal(caught.subject, "stalltest.jobs.execute");
      assert.match(caught.message, new RegExp(`^publishing job ${j.id} on stalltest\\.jobs\\.execute: `));
      assert.equal(caught.mayBeStored, true, "sent and never answered: it may be stored");
      assert.match(caught.message, /it may or may not be stored: publish it again with the same id/);
      assert.ok(Date.now() - started >= 490, "it waited for the acknowledgement");
      assert.equal(staller.getReceived(), 1, "the job was sent once");
      assert.deepEqual(pending(exec.nc), before, "no subscription or timer left");
    } finally {
      staller.unsubscribe();
    }
  });

  test("an acknowledgement that never comes while the job runs: submit resolves with the result, at once", async () => {
    // A relay takes the publish's request on stalltest's subject, stores
    // the job in the executor's JOBS stream with its headers, and never
    // answers: the job runs and its result comes, its acknowledgement not.
    const relay = exec.nc.subscribe("stalltest.jobs.execute", {
      callback: (err, m) => {
        if (!err && m.headers) exec.nc.publish(`${CONTRACT.subjectPrefix}.jobs.execute`, m.data, { headers: m.headers });
      },
    });
    await exec.nc.flush();
    try {
      const j = job({ source: "return 6 * 7", outputVariable: "o", onError: "continue" });
      const started = Date.now();
      let got: ReceivedResult | undefined;
      let caught: unknown;
      const unhandled = await unhandledDuring(async () => {
        try {
          got = await submit(exec.nc, j, { ...stalled, timeoutMs: 20_000 });
        } catch (err) {
          caught = err;
        }
      });
      assert.equal(caught, undefined, `no rejection, got ${String(caught)}`);
      assert.ok(got);
      contractTrue(got, j);
      assert.equal(got.result.variables.o, "42");
      assert.equal(got.source, "inbox");
      assert.ok(Date.now() - started < 15_000, "it did not wait for the acknowledgement's timeout");
      assert.deepEqual(unhandled, [], "no unhandled rejection, not even the publish's later timeout");
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(relay.getReceived(), 1, "the job was sent once");
    } finally {
      relay.unsubscribe();
    }
  });

  test("a job published while the connection is down is sent again once it is back, not lost", async () => {
    // nats.js drops what it had not written when it reconnects: a job
    // published while the connection was down never reached the broker,
    // and submit waited out timeoutMs for an acknowledgement that could not
    // come (a probe; Go's client buffers it and sends it after the reconnect).
    const link = await cuttableLink(exec.url);
    const nc = await connect({ servers: link.url, reconnectTimeWait: 100, maxReconnectAttempts: -1 });
    try {
      const down = nextStatus(nc, "disconnect");
      link.cut();
      await down;
      const j = job({ source: "return 'after the outage'", outputVariable: "o", onError: "continue" });
      const started = Date.now();
      const submitting = submit(nc, j, { ...opts, timeoutMs: 15_000 });
      await new Promise((r) => setTimeout(r, 500)); // several reconnect attempts fail meanwhile
      link.restore();
      const got = await submitting;
      assert.equal(got.result.variables["o"], "after the outage");
      assert.ok(Date.now() - started < 10_000, `it took ${Date.now() - started} ms: the publish was waited out, not sent again`);
    } finally {
      await nc.close();
      link.close();
    }
  });

  test("a subject no stream takes and nobody listens on: PublishError at once", async () => {
    const before = pending(exec.nc);
    const j = job({ source: "return 1", outputVariable: "o", onError: "continue" });
    const started = Date.now();
    let caught: unknown;
    const unhandled = await unhandledDuring(async () => {
      try {
        await submit(exec.nc, j, { ...stalled, subjectPrefix: "nostreamtest", timeoutMs: 5_000 });
      } catch (err) {
        caught = err;
      }
    });
    assert.deepEqual(unhandled, []);
    assert.ok(caught instanceof PublishError, `a PublishError, got ${String(caught)}`);
    assert.match(caught.message, /: no JetStream stream takes this subject \(an executor creates the JOBS stream when it starts/, "it says why, as Go's client does (it said 503)");
    assert.equal(caught.mayBeStored, false, "no stream took it");
    assert.ok(Date.now() - started < 4_000, "no responders is an answer: it did not wait for the timeout");
    assert.deepEqual(pending(exec.nc), before, "no subscription or timer left");
  });

  test("a publish the broker refuses (a stream's message size): PublishError at once, nothing stored", async () => {
    const jsm = await exec.nc.jetstreamManager();
    const name = `TS_SMALL_${process.pid}_${Date.now()}`;
    const prefix = `smalltest${process.pid}x${Date.now()}`;
    await jsm.streams.add({ name, subjects: [`${prefix}.jobs.>`], max_msg_size: 100, storage: StorageType.Memory });
    try {
      const j = job({ source: "return 1", outputVariable: "o", onError: "continue" });
      const caught = await publishJob(exec.nc, j, { subjectPrefix: prefix, timeoutMs: 5_000 }).then(
        () => undefined,
        (err: unknown) => err,
      );
      assert.ok(caught instanceof PublishError, `a PublishError, got ${String(caught)}`);
      assert.equal(caught.mayBeStored, false, "the broker answered: nothing was stored");
      assert.doesNotMatch(caught.message, /may or may not be stored/);
      assert.equal((await jsm.streams.info(name)).state.messages, 0);
    } finally {
      await jsm.streams.delete(name);
    }
  });

  test("a job at the 1 MiB cap is valid, but over max_payload with its headers: MaxPayloadError at once, not a PublishError, nothing sent", async () => {
    const maxPayload = exec.nc.info?.max_payload;
    assert.equal(maxPayload, LIMITS.maxJobBytes, "the broker's default max_payload is the contract's cap on the job");
    const j = job({ source: "return 1", outputVariable: "o", onError: "continue" }, { variables: { pad: "" } });
    j.variables!["pad"] = "x".repeat(LIMITS.maxJobBytes - Buffer.byteLength(JSON.stringify(j)));
    assert.equal(Buffer.byteLength(JSON.stringify(j)), LIMITS.maxJobBytes);
    assert.deepEqual(validateJob(j), []);
    const before = pending(exec.nc);
    const sent = exec.nc.subscribe(`${CONTRACT.subjectPrefix}.jobs.>`);
    const want = (err: unknown) =>
      err instanceof MaxPayloadError &&
      !(err instanceof PublishError) &&
      err.jobId === j.id &&
      err.jobBytes === LIMITS.maxJobBytes &&
      err.maxPayload === maxPayload &&
      err.message ===
        `publishing job ${j.id} on ${CONTRACT.subjectPrefix}.jobs.execute: the job is ${LIMITS.maxJobBytes} bytes and, with its headers, ` +
          `over the ${maxPayload} bytes a broker message can carry (max_payload): move large data out of its variables; publishing it again cannot succeed`;
    try {
      const unhandled = await unhandledDuring(async () => {
        await assert.rejects(submit(exec.nc, j, opts), want);
      });
      assert.deepEqual(unhandled, []);
      await assert.rejects(publishJob(exec.nc, j, CONTRACT), want);
      await exec.nc.flush();
      assert.equal(sent.getReceived(), 0, "nothing was published");
    } finally {
      sent.unsubscribe();
    }
    assert.deepEqual(pending(exec.nc), before, "no subscription or timer left");
  });

  test("max_payload counts the job and its headers, to the byte: a job that fits with them is published", async () => {
    const maxPayload = exec.nc.info!.max_payload;
    const j = job({ source: "return 1", outputVariable: "o", onError: "continue" }, { variables: { pad: "" } });
    // What publishJob sends without Reply-To and trace context.
    const headerBytes = Buffer.byteLength(`NATS/1.0\r\nNats-Msg-Id: ${j.id}\r\nFlowscript-Version: 1\r\n\r\n`);
    const pad = "x".repeat(maxPayload - headerBytes - Buffer.byteLength(JSON.stringify(j)));
    await assert.rejects(publishJob(exec.nc, { ...j, variables: { pad: pad + "x" } }, { ...CONTRACT, trace: false }), MaxPayloadError);
    j.variables!["pad"] = pad;
    assert.equal(Buffer.byteLength(JSON.stringify(j)) + headerBytes, maxPayload);
    const published = await publishJob(exec.nc, j, { ...CONTRACT, trace: false });
    assert.equal(published.duplicate, false);
    const got = await awaitResult(exec.nc, j.id, opts);
    assert.equal(got.result.status, "succeeded");
  });

  test("timeoutMs 1 against the executor: at most one rejection, of the publish or of the wait", async () => {
    for (let i = 0; i < 5; i++) {
      const j = job({ source: "return 1", outputVariable: "o", onError: "continue" });
      const errors: unknown[] = [];
      const unhandled = await unhandledDuring(async () => {
        try {
          await submit(exec.nc, j, { ...opts, timeoutMs: 1 });
        } catch (err) {
          errors.push(err);
        }
      });
      assert.deepEqual(unhandled, [], "no unhandled rejection");
      // A fast executor may answer within the millisecond: then submit resolves.
      assert.ok(errors.length <= 1, `${errors.length} rejections, want at most 1`);
      for (const err of errors) {
        assert.ok(err instanceof PublishError || (err instanceof ResultTimeoutError && err.timeoutMs === 1), `PublishError or ResultTimeoutError, got ${String(err)}`);
      }
    }
  });

  test("the signal aborts while the publish is in flight: its reason at once", async () => {
    const staller = exec.nc.subscribe("stalltest.jobs.execute");
    await exec.nc.flush();
    try {
      const ac = new AbortController();
      const j = job({ source: "return 1", outputVariable: "o", onError: "continue" });
      const started = Date.now();
      let caught: unknown;
      const unhandled = await unhandledDuring(async () => {
        setTimeout(() => ac.abort(new Error("engine shutting down")), 100);
        try {
          await submit(exec.nc, j, { ...stalled, timeoutMs: 1_500, signal: ac.signal });
        } catch (err) {
          caught = err;
        }
      });
      assert.deepEqual(unhandled, []);
      assert.match(String(caught), /engine shutting down/);
      assert.ok(Date.now() - started < 1_000, "it did not wait for the publish's timeout");
      // The publish still times out on its own, handled: no rejection is left for the process.
      const late = await unhandledDuring(() => new Promise((r) => setTimeout(r, 1_600)));
      assert.deepEqual(late, []);
    } finally {
      staller.unsubscribe();
    }
  });

  test("a signal aborted before submit: its reason, and nothing is sent", async () => {
    const staller = exec.nc.subscribe("stalltest.jobs.execute");
    await exec.nc.flush();
    try {
      const before = pending(exec.nc);
      const j = job({ source: "return 1", outputVariable: "o", onError: "continue" });
      const unhandled = await unhandledDuring(async () => {
        await assert.rejects(submit(exec.nc, j, { ...stalled, timeoutMs: 1_000, signal: AbortSignal.abort(new Error("already gone")) }), /already gone/);
      });
      assert.deepEqual(unhandled, []);
      await exec.nc.flush();
      assert.equal(staller.getReceived(), 0, "nothing was published");
      assert.deepEqual(pending(exec.nc), before, "no subscription or timer left");
    } finally {
      staller.unsubscribe();
    }
  });
});

describe("timeouts a Node timer cannot wait", () => {
  const quick = { ...opts, pollFirstMs: 100, pollMaxMs: 400 };
  const tooLong = [2 ** 31, MAX_TIMEOUT_MS + 1, 1e10, Infinity, 0, 0.5, -1, Number.NaN];
  const message = /timeoutMs must be a number of milliseconds from 1 to 2147483647 \(2\^31−1/;

  test("MAX_TIMEOUT_MS is 2^31−1", () => {
    assert.equal(MAX_TIMEOUT_MS, 2147483647);
  });

  test("over 2^31−1 ms, Infinity, 0, −1 and NaN are a RangeError naming timeoutMs, and nothing is sent", async () => {
    for (const timeoutMs of tooLong) {
      const j = job({ source: "return 1", outputVariable: "o", onError: "continue" });
      const isRange = (err: unknown) => err instanceof RangeError && message.test(err.message) && err.message.endsWith(`got ${timeoutMs}`);
      await assert.rejects(submit(exec.nc, j, { ...quick, timeoutMs }), isRange, `submit, timeoutMs ${timeoutMs}`);
      await assert.rejects(awaitResult(exec.nc, j.id, { ...quick, timeoutMs }), isRange, `awaitResult, timeoutMs ${timeoutMs}`);
      await assert.rejects(publishJob(exec.nc, j, { ...CONTRACT, timeoutMs }), isRange, `publishJob, timeoutMs ${timeoutMs}`);
      assert.equal(await getResult(exec.nc, j.id, CONTRACT), null, `nothing was published, timeoutMs ${timeoutMs}`);
    }
  });

  test("polling intervals over 2^31−1 ms are a RangeError too", async () => {
    await assert.rejects(awaitResult(exec.nc, "poll-job", { ...quick, pollMaxMs: 1e10 }), /pollFirstMs <= pollMaxMs <= 2147483647/);
    await assert.rejects(awaitResult(exec.nc, "poll-job", { ...quick, pollFirstMs: Infinity, pollMaxMs: Infinity }), RangeError);
  });

  test("2^31−1 ms itself waits (it does not time out at once)", async () => {
    const ac = new AbortController();
    const waiting = awaitResult(exec.nc, "long-wait-job", { ...quick, inbox: createInbox(), timeoutMs: MAX_TIMEOUT_MS, signal: ac.signal });
    setTimeout(() => ac.abort(new Error("stopped waiting")), 200);
    await assert.rejects(waiting, /stopped waiting/);
  });
});

describe("trace context", () => {
  test("the executor's result continues the engine's trace, through the producer span", async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const contextManager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(contextManager);
    trace.setGlobalTracerProvider(provider);
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    try {
      const tracer = trace.getTracer("engine");
      const j = job({ source: "return 'traced'", outputVariable: "o", onError: "continue" });
      const { got, engineTraceId, engineSpanId } = await tracer.startActiveSpan("engine step", async (span) => {
        try {
          const got = await submit(exec.nc, j, byInbox);
          return { got, engineTraceId: span.spanContext().traceId, engineSpanId: span.spanContext().spanId };
        } finally {
          span.end();
        }
      });
      assert.equal(got.source, "inbox");
      const [, traceId] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/.exec(got.traceparent ?? "") ?? [];
      assert.equal(traceId, engineTraceId, `the result's traceparent ${got.traceparent} continues the engine's trace`);

      const producer = exporter.getFinishedSpans().find((s) => s.name === `send ${CONTRACT.subjectPrefix}.jobs.execute`);
      assert.ok(producer, "the client recorded a producer span");
      assert.equal(producer.spanContext().traceId, engineTraceId);
      assert.equal(producer.parentSpanContext?.spanId, engineSpanId);
      assert.equal(producer.attributes["messaging.message.id"], j.id);

      const stored = await getResult(exec.nc, j.id, CONTRACT);
      assert.equal(stored?.traceparent?.split("-")[1], engineTraceId, "the stored result carries the trace too");
    } finally {
      trace.disable();
      propagation.disable();
      context.disable();
      contextManager.disable();
    }
  });

  test("without an active span no trace headers are sent, and it still works", async () => {
    const j = job({ source: "return 1", outputVariable: "o", onError: "continue" });
    const got = await submit(exec.nc, j, opts);
    assert.equal(got.result.status, "succeeded");
  });
});

describe("shared goldens", () => {
  // A job built by this client, written where the Go tests read it
  // (flowjob/testdata/jobs/valid_*.json must decode and validate in Go).
  const file = join(repoRoot(), "flowjob", "testdata", "jobs", "valid_from_typescript.json");

  function goldenJob(): Job {
    return buildJob({
      id: "job-from-typescript-1",
      sessionId: "session-ts",
      flowId: "flow-ts",
      blockId: "block-saudacao",
      context: "flow",
      action: {
        source: "function execute(nome, hora) {\n  const h = Number(hora)\n  return (h < 12 ? 'Bom dia' : 'Boa tarde') + ', ' + nome.trim() + '!'\n}\n",
        inputVariables: [
          { name: "nome", value: "{{ contact.name }}" },
          { name: "hora", value: "{{hora}}" },
        ],
        outputVariable: "saudacao",
        errorVariable: "erroSaudacao",
        onError: "blocking",
        errorMessage: "Não consegui montar a saudação: {{erroSaudacao}}",
        errorHandoff: false,
      },
      variables: { "contact.name": " Ana ", hora: "9" },
      defaultExceptionBlockId: "block-exception",
      timeoutMs: 1500,
    });
  }

  test("the job the client builds is the committed valid_from_typescript.json (UPDATE_GOLDEN=1 rewrites it)", () => {
    const want = JSON.stringify(goldenJob(), null, 2) + "\n";
    assert.deepEqual(validateJob(JSON.parse(want)), []);
    if (process.env["UPDATE_GOLDEN"] === "1") {
      writeFileSync(file, want);
    }
    assert.equal(readFileSync(file, "utf8"), want, `${file} is stale: run UPDATE_GOLDEN=1 npm test and commit it`);
  });

  test("the executor runs it", async () => {
    const j = { ...goldenJob(), id: `from-ts-${process.pid}-${Date.now()}` };
    const got = await submit(exec.nc, j, opts);
    assert.equal(got.result.status, "succeeded");
    assert.equal(got.result.variables["saudacao"], "Bom dia, Ana!");
  });
});

/** A TCP link to a broker that can be cut (its connections closed, new ones refused) and restored. */
async function cuttableLink(brokerURL: string): Promise<{ url: string; cut(): void; restore(): void; close(): void }> {
  const broker = new URL(brokerURL.replace(/^nats:/, "http:"));
  const sockets = new Set<Socket>();
  let refusing = false;
  const server = createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = netConnect(Number(broker.port), broker.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => {});
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `nats://127.0.0.1:${port}`,
    cut() {
      refusing = true;
      for (const s of sockets) s.destroy();
    },
    restore() {
      refusing = false;
    },
    close() {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

/** Resolves at the connection's next status event of type. */
async function nextStatus(nc: NatsConnection, type: string): Promise<void> {
  for await (const s of nc.status()) {
    if (s.type === type) return;
  }
}
