// Publishing a job and awaiting its result over NATS JetStream, as the Go
// client (flowjob/client.go) does: Nats-Msg-Id = job id, Reply-To, the
// contract version header and W3C trace context on the job; the result
// from the Reply-To inbox first, the RESULTS stream as the fallback.
import { createInbox, ErrorCode, Events, headers, type MsgHdrs, type NatsConnection, type Subscription } from "nats";

import {
  CONTRACT_VERSION,
  DEFAULT_RESULTS_STREAM,
  DEFAULT_SUBJECT_PREFIX,
  HEADER_MSG_ID,
  HEADER_REPLY_TO,
  HEADER_TRACEPARENT,
  HEADER_TRACESTATE,
  HEADER_VERSION,
  jobsSubject,
  resultsSubjectPrefix,
} from "./contract.js";
import { startPublishSpan } from "./trace.js";
import type { Job, Result } from "./types.js";
import { assertValidJob } from "./validate.js";

/** Where the executor listens and stores: its SUBJECT_PREFIX and RESULTS_STREAM. */
export interface ContractOptions {
  /** The executor's SUBJECT_PREFIX (default "flowscript"). */
  subjectPrefix?: string;
  /** The subject jobs are published on (default `<subjectPrefix>.jobs.execute`); it must be under the JOBS stream's subjects. */
  jobsSubject?: string;
  /** The prefix results are stored under (default `<subjectPrefix>.results`: job X's result is on `<prefix>.X`). */
  resultsSubjectPrefix?: string;
  /** The executor's RESULTS_STREAM (default "RESULTS"). */
  resultsStream?: string;
}

export interface PublishOptions extends ContractOptions {
  /** An inbox the executor also sends the result to (the Reply-To header). */
  replyTo?: string;
  /** How long to wait for the broker's acknowledgement (default: the nats client's, 5 s); at most 2^31−1 (MAX_TIMEOUT_MS), as every timeout here. */
  timeoutMs?: number;
  /** Add trace context from @opentelemetry/api when it is installed (default true). */
  trace?: boolean;
}

/** What the broker said about a published job. */
export interface Published {
  /** The stream that stored the job (JOBS). */
  stream: string;
  /** The job's sequence in it. */
  seq: number;
  /** A job with the same id was already published within the stream's duplicate window: this publish was dropped. */
  duplicate: boolean;
}

export interface AwaitOptions extends ContractOptions {
  /** The inbox the job names in Reply-To: awaitResult subscribes to it before it returns. Without it, only the RESULTS stream is read. */
  inbox?: string;
  /** Give up after this long (default 30000 ms) with a ResultTimeoutError; at most 2^31−1 ms (MAX_TIMEOUT_MS, about 24.8 days): a longer one is a RangeError. */
  timeoutMs?: number;
  /** Give up when this aborts, with its reason. */
  signal?: AbortSignal;
  /** First look in the RESULTS stream after this long (default 500 ms; at once without an inbox), then at doubling intervals... */
  pollFirstMs?: number;
  /** ...up to this one (default 5000 ms). */
  pollMaxMs?: number;
}

export type SubmitOptions = Omit<PublishOptions, "replyTo"> & Omit<AwaitOptions, "inbox">;

/** A result and how it arrived. */
export interface ReceivedResult {
  result: Result;
  /** "inbox": the job's Reply-To; "stream": read from the RESULTS stream (the reply was lost, refused or never asked for). */
  source: "inbox" | "stream";
  /** W3C trace context of the executor's span that published the result, when it had one. */
  traceparent?: string;
  tracestate?: string;
}

/** No result arrived in time. */
export class ResultTimeoutError extends Error {
  override readonly name = "ResultTimeoutError";
  constructor(
    readonly jobId: string,
    readonly timeoutMs: number,
    /** The last failed lookup in the RESULTS stream, if any (a missing stream, say). */
    readonly lastError?: unknown,
  ) {
    super(
      `no result for job ${jobId} within ${timeoutMs} ms` +
        (lastError ? ` (last lookup in the RESULTS stream: ${lastError instanceof Error ? lastError.message : String(lastError)})` : ""),
      lastError ? { cause: lastError } : undefined,
    );
  }
}

/**
 * The NATS connection closed for good while a result was awaited: the job
 * may have run and its result be stored. Look it up on a new connection
 * (getResult) before submitting it again.
 */
export class ConnectionClosedError extends Error {
  override readonly name = "ConnectionClosedError";
  constructor(
    readonly jobId: string,
    cause?: unknown,
  ) {
    super(
      `the NATS connection closed while awaiting job ${jobId}: the job may have run; look its result up on a new connection (getResult) before submitting it again`,
      cause ? { cause } : undefined,
    );
  }
}

/**
 * The broker did not acknowledge the job: no stream takes its subject (a
 * wrong subjectPrefix or jobsSubject), the acknowledgement did not come
 * within timeoutMs, the connection closed... The cause is the nats
 * client's error. mayBeStored says whether the job may still have been
 * stored (flowclient.ErrNotAcknowledged in Go): true when it was sent and
 * no answer came (a timeout, a connection lost meanwhile), false when it
 * was never sent or the broker refused it. Publishing it again under the
 * same id is safe either way (the JOBS stream drops a duplicate within its
 * window, and submit then reads the stored result).
 */
export class PublishError extends Error {
  override readonly name = "PublishError";
  constructor(
    readonly jobId: string,
    /** The subject the job was published on. */
    readonly subject: string,
    cause: unknown,
    /** Whether the job may have been stored although no acknowledgement came. */
    readonly mayBeStored = false,
  ) {
    super(
      `publishing job ${jobId} on ${subject}: ${cause instanceof Error ? cause.message : String(cause)}` +
        (mayBeStored ? "; it may or may not be stored: publish it again with the same id (the JOBS stream stores it once within its duplicate window)" : ""),
      { cause },
    );
  }
}

/**
 * The job, with the headers publishJob adds, is larger than a message the
 * broker takes (its max_payload, often 1 MiB: the contract's cap on the job
 * alone): nothing was sent, and publishing it again cannot succeed. Move
 * large data out of its variables. Not a PublishError, which says a retry
 * may work.
 */
export class MaxPayloadError extends Error {
  override readonly name = "MaxPayloadError";
  constructor(
    readonly jobId: string,
    /** The subject the job was to be published on. */
    readonly subject: string,
    /** The encoded job's size in bytes, without its headers. */
    readonly jobBytes: number,
    /** The broker's max_payload: the most bytes a message, headers included, may have. */
    readonly maxPayload: number,
    cause?: unknown,
  ) {
    super(
      `publishing job ${jobId} on ${subject}: the job is ${jobBytes} bytes and, with its headers, over the ${maxPayload} bytes a broker message can carry (max_payload): ` +
        "move large data out of its variables; publishing it again cannot succeed",
      cause ? { cause } : undefined,
    );
  }
}

/**
 * submit found a result stored under the job's id for another session, flow
 * or block: the id was another job's (flowclient.ErrIDReused in Go). That
 * result is not this job's, and this job did not run: give each job a new
 * id (newJobId).
 */
export class IdReusedError extends Error {
  override readonly name = "IdReusedError";
  constructor(
    readonly jobId: string,
    /** The result stored under the id, another job's. */
    readonly stored: Result,
  ) {
    super(
      `job ${jobId}: the id was already used by another job: the result stored under it is for session ${JSON.stringify(stored.sessionId)}, ` +
        `flow ${JSON.stringify(stored.flowId)}, block ${JSON.stringify(stored.blockId)}; give each job a new id (newJobId)`,
    );
  }
}

/**
 * The longest timeout (and polling interval) the client accepts: 2^31−1 ms,
 * about 24.8 days, the longest a Node timer can wait (a longer delay would
 * fire after 1 ms). Longer ones, Infinity and NaN are a RangeError.
 */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_POLL_FIRST_MS = 500;
const DEFAULT_POLL_MAX_MS = 5_000;
const JOB_ID = /^[A-Za-z0-9_-]{1,128}$/;
// flowjob.ValidSubjectPrefix and ValidStreamName.
const SUBJECT_PREFIX = /^[^.*> \t\r\n]{1,256}(\.[^.*> \t\r\n]{1,256})*$/;
const STREAM_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** ms as a timer's delay: a number, more than 0, at most MAX_TIMEOUT_MS. */
function isDelay(ms: unknown): ms is number {
  // At least 1: a timer waits whole milliseconds, and a publish given less
  // than one always timed out.
  return typeof ms === "number" && ms >= 1 && ms <= MAX_TIMEOUT_MS;
}

function checkTimeout(what: string, ms: unknown) {
  if (!isDelay(ms)) {
    throw new RangeError(
      `${what}: timeoutMs must be a number of milliseconds from 1 to ${MAX_TIMEOUT_MS} (2^31−1, about 24.8 days, the longest a Node timer waits), got ${typeof ms === "number" ? ms : JSON.stringify(ms)}`,
    );
  }
}

function subjects(o: ContractOptions) {
  const prefix = o.subjectPrefix ?? DEFAULT_SUBJECT_PREFIX;
  if (!SUBJECT_PREFIX.test(prefix)) {
    throw new TypeError(`subjectPrefix must be dot-separated tokens without wildcards or spaces, as the executors' SUBJECT_PREFIX, got ${JSON.stringify(prefix)}`);
  }
  if (o.resultsStream !== undefined && !STREAM_NAME.test(o.resultsStream)) {
    throw new TypeError(`resultsStream must be 1 to 64 letters, digits, '-' or '_', as the executors' RESULTS_STREAM, got ${JSON.stringify(o.resultsStream)}`);
  }
  for (const [name, subject] of [["jobsSubject", o.jobsSubject], ["resultsSubjectPrefix", o.resultsSubjectPrefix]] as const) {
    if (subject !== undefined && !SUBJECT_PREFIX.test(subject)) {
      throw new TypeError(`${name} must be dot-separated tokens without wildcards or spaces, got ${JSON.stringify(subject)}`);
    }
  }
  return {
    jobs: o.jobsSubject ?? jobsSubject(prefix),
    results: o.resultsSubjectPrefix ?? resultsSubjectPrefix(prefix),
    stream: o.resultsStream ?? DEFAULT_RESULTS_STREAM,
  };
}

/**
 * Validates job (a JobValidationError lists every problem, and nothing is
 * sent) and publishes it to the JOBS stream with Nats-Msg-Id = job id (a
 * retried publish is stored once), Flowscript-Version, Reply-To when
 * options.replyTo is given, and the active span's trace context when
 * @opentelemetry/api is installed. A job that, with these headers, is over
 * the connection's max_payload is a MaxPayloadError, and nothing is sent.
 */
export async function publishJob(nc: NatsConnection, job: Job, options: PublishOptions = {}): Promise<Published> {
  assertValidJob(job);
  const { jobs } = subjects(options);
  if (options.timeoutMs !== undefined) {
    checkTimeout(`publishing job ${job.id}`, options.timeoutMs);
  }
  const h = headers();
  const span = options.trace === false ? undefined : await startPublishSpan(h, jobs, job.id);
  h.set(HEADER_MSG_ID, job.id); // as the msgID option sets it: counted below
  h.set(HEADER_VERSION, String(CONTRACT_VERSION));
  if (options.replyTo) {
    h.set(HEADER_REPLY_TO, options.replyTo);
  }
  const data = new TextEncoder().encode(JSON.stringify(job));
  // The broker's max_payload counts the headers too: a job at the
  // contract's 1 MiB cap validates, yet no broker of the default 1 MiB
  // takes it. Say so now, not as a PublishError that invites a retry.
  const maxPayload = nc.info?.max_payload;
  if (maxPayload !== undefined && data.length + headerBytes(h) > maxPayload) {
    const err = new MaxPayloadError(job.id, jobs, data.length, maxPayload);
    span?.end(err);
    throw err;
  }
  const js = nc.jetstream();
  const deadline = options.timeoutMs === undefined ? undefined : Date.now() + options.timeoutMs;
  let sends = 0;
  const send = () => {
    sends++;
    const timeout = deadline === undefined ? undefined : Math.max(1, deadline - Date.now());
    return js.publish(jobs, data, { msgID: job.id, headers: h, ...(timeout === undefined ? {} : { timeout }) });
  };
  const reconnects = watchReconnects(nc);
  // A connection closed or draining before the call sends nothing.
  const unsent = nc.isClosed() || nc.isDraining();
  try {
    let pending = send();
    for (;;) {
      const acked = await Promise.race([pending.then((ack) => ({ ack })), reconnects.next()]);
      if (acked) {
        span?.end();
        return { stream: acked.ack.stream, seq: acked.ack.seq, duplicate: acked.ack.duplicate };
      }
      // The connection came back while the acknowledgement was awaited:
      // nats.js drops what it had not written before a reconnect, so the
      // job may never have left. Send it again; Nats-Msg-Id makes a repeat
      // harmless (the broker acknowledges it as a duplicate).
      pending.catch(() => {});
      pending = send();
    }
  } catch (err) {
    span?.end(err);
    const code = (err as { code?: unknown })?.code;
    if (code === ErrorCode.MaxPayloadExceeded && sends === 1) {
      // The connection's max_payload changed (a reconnect to another server)
      // before the only send: nothing left. After a send again at a
      // reconnect, the first one may be stored: a PublishError below says so.
      throw new MaxPayloadError(job.id, jobs, data.length, nc.info?.max_payload ?? 0, err);
    }
    if (code === ErrorCode.NoResponders) {
      throw new PublishError(job.id, jobs, new Error(NO_STREAM, { cause: err }), sends > 1);
    }
    // Nothing was stored when this, the only send, never left (a closed
    // or draining connection) or the broker refused it (a JetStream API
    // error: a full stream, a message over the stream's size), unless the
    // refusal is that an earlier publish of this id is still being stored.
    // After a send again at a reconnect, the first one may have been stored.
    const apiError = (err as { api_error?: { err_code?: unknown } })?.api_error;
    const notSent = unsent || code === ErrorCode.ConnectionDraining;
    const refused = apiError !== undefined && apiError.err_code !== ERR_MSG_ID_IN_PROCESS;
    throw new PublishError(job.id, jobs, err, sends > 1 || !(notSent || refused));
  } finally {
    reconnects.stop();
  }
}

/** JetStream's "duplicate message id is in process": an earlier publish of the id is still being stored. */
const ERR_MSG_ID_IN_PROCESS = 10158;

/** Why a publish nobody answers failed, in Go's words (flowclient). */
const NO_STREAM =
  "no JetStream stream takes this subject (an executor creates the JOBS stream when it starts: start one, " +
  "or check that this client's subject prefix is the executors' SUBJECT_PREFIX)";

/**
 * The connection's reconnections from now on: next() resolves (to
 * undefined) at the next one; stop() ends the watch.
 */
function watchReconnects(nc: NatsConnection): { next(): Promise<undefined>; stop(): void } {
  const status = nc.status();
  let wake: (() => void) | undefined;
  void (async () => {
    for await (const s of status) {
      if (s.type === Events.Reconnect) wake?.();
    }
  })().catch(() => {});
  return {
    next: () => new Promise<undefined>((resolve) => (wake = () => resolve(undefined))),
    stop: () => (status as { stop?: () => void }).stop?.(),
  };
}

/** The bytes of headers as NATS sends them: "NATS/1.0", a line per value, a blank line. */
function headerBytes(h: MsgHdrs): number {
  let text = "NATS/1.0";
  for (const [k, values] of h) {
    for (const v of values) text += `\r\n${k}: ${v}`;
  }
  return new TextEncoder().encode(text + "\r\n\r\n").length;
}

/**
 * Waits for the result of jobId: from options.inbox (subscribed before
 * this returns, so call it before publishing), and from the RESULTS stream
 * (`<resultsSubjectPrefix>.<jobId>`, last message), looked up after
 * pollFirstMs and then at doubling intervals, so a lost or refused reply
 * still ends in the stored result. Rejects with a ResultTimeoutError after
 * timeoutMs, or with the signal's reason; with a RangeError when timeoutMs
 * or the polling intervals are not in 1 <= ms <= MAX_TIMEOUT_MS.
 */
export function awaitResult(nc: NatsConnection, jobId: string, options: AwaitOptions = {}): Promise<ReceivedResult> {
  try {
    return waitForResult(nc, jobId, options).promise;
  } catch (err) {
    return Promise.reject(err); // a bad argument rejects, as the other functions do
  }
}

/** Looks the stored result of jobId up in the RESULTS stream once; null when there is none yet. */
export async function getResult(nc: NatsConnection, jobId: string, options: ContractOptions = {}): Promise<ReceivedResult | null> {
  checkJobId(jobId);
  const { results, stream } = subjects(options);
  const jsm = await nc.jetstreamManager({ checkAPI: false });
  let msg;
  try {
    msg = await jsm.streams.getMessage(stream, { last_by_subj: `${results}.${jobId}` });
  } catch (err) {
    if (isNoMessage(err)) {
      return null;
    }
    throw new Error(`looking up the result of job ${jobId} in stream ${stream}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  const result = parseResult(msg.data);
  if (!result) {
    throw new Error(`decoding the stored result of job ${jobId}: not a result event`);
  }
  if (result.jobId !== jobId) {
    throw new Error(`the result stored for job ${jobId} names job ${JSON.stringify(result.jobId)}: the RESULTS stream holds a message no executor wrote`);
  }
  return received(result, "stream", msg.header);
}

/**
 * Publishes job with a fresh Reply-To inbox and waits for its result
 * (inbox first, RESULTS stream as the fallback). A job that was already
 * published (a duplicate id) gets the stored result.
 *
 * It resolves as soon as the result comes, even when the broker's
 * acknowledgement of the publish is late or lost (the job ran). It rejects
 * once: with a PublishError when the broker did not acknowledge the job and
 * no result came (within timeoutMs: the result's wait and the publish share
 * it, so a publish still unanswered when the wait ends is reported as the
 * publish's failure), a MaxPayloadError when the job with its headers is
 * over the broker's max_payload (nothing sent), a ResultTimeoutError when the job was stored but no
 * result came within timeoutMs, the signal's reason when it aborts (at
 * once, even while the publish is in flight; before it, nothing is sent).
 */
export async function submit(nc: NatsConnection, job: Job, options: SubmitOptions = {}): Promise<ReceivedResult> {
  assertValidJob(job);
  const inbox = createInbox((nc as { options?: { inboxPrefix?: string } }).options?.inboxPrefix); // the connection's own prefix, as its requests use
  let waiting: Waiting;
  try {
    waiting = waitForResult(nc, job.id, { ...options, inbox });
  } catch (err) {
    if (!(err instanceof ConnectionClosedError)) throw err; // a bad option
    throw new PublishError(job.id, subjects(options).jobs, err.cause); // nothing was sent
  }
  // The wait's timer runs from now, and the publish's acknowledgement has
  // the same timeoutMs: the wait can end (or the signal abort it) while the
  // publish is still in flight. Its promise is awaited below, after the
  // publish; a handler now keeps that early rejection from being an
  // unhandled one (which would end the process).
  waiting.promise.catch(() => {});
  if (options.signal?.aborted) {
    throw options.signal.reason; // the wait is over already; publish nothing
  }
  // One timeoutMs for both: the publish waits for its acknowledgement as
  // long as the result's wait (not the nats client's 5 s) when none is given.
  const publishing = untilAborted(
    publishJob(nc, job, { ...options, timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS, replyTo: inbox }),
    options.signal,
  );
  // The result can come before the broker's acknowledgement, or without it
  // (an acknowledgement lost or later than timeoutMs): the job was stored
  // and ran, so its result is the answer. When the wait fails first, the
  // publish's own outcome is what submit reports.
  const resultFirst = waiting.promise.then(
    (got) => ({ got }),
    () => publishing,
  );
  publishing.catch(() => {}); // handled below, or lost the race to the result
  resultFirst.catch(() => {});
  let first: Published | { got: ReceivedResult };
  try {
    first = await Promise.race([publishing, resultFirst]);
  } catch (err) {
    waiting.cancel(); // its subscription and timers, if it has not ended yet
    throw err;
  }
  if ("got" in first) {
    return ownResult(job, first.got);
  }
  if (first.duplicate) {
    waiting.pollSoon(); // its executor will not reply to this inbox: the result is (or will be) stored
  }
  return ownResult(job, await waiting.promise);
}

/**
 * got, unless it is another job's result stored under job's id. A result names each of the
 * session, flow and block its job had usable (an INVALID_JOB result may lack some): each it
 * names must be job's.
 */
function ownResult(job: Job, got: ReceivedResult): ReceivedResult {
  const r = got.result;
  const differs = (stored: string | undefined, own: string) => !!stored && stored !== own;
  if (differs(r.sessionId, job.sessionId) || differs(r.flowId, job.flowId) || differs(r.blockId, job.blockId)) {
    throw new IdReusedError(job.id, r);
  }
  return got;
}

/** p, or the signal's reason as soon as it aborts (p then settles unobserved, but handled). */
function untilAborted<T>(p: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return p;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (err: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(err);
      },
    );
  });
}

interface Waiting {
  promise: Promise<ReceivedResult>;
  pollSoon(): void;
  cancel(): void;
}

function waitForResult(nc: NatsConnection, jobId: string, options: AwaitOptions): Waiting {
  checkJobId(jobId);
  subjects(options); // its names are checked before anything waits
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  checkTimeout(`awaiting job ${jobId}`, timeoutMs);
  const pollMax = options.pollMaxMs ?? DEFAULT_POLL_MAX_MS;
  let wait = options.pollFirstMs ?? DEFAULT_POLL_FIRST_MS;
  if (!(isDelay(wait) && isDelay(pollMax) && pollMax >= wait)) {
    throw new RangeError(`awaiting job ${jobId}: polling needs 1 <= pollFirstMs <= pollMaxMs <= ${MAX_TIMEOUT_MS}, got ${String(wait)} and ${String(pollMax)}`);
  }

  let settled = false;
  let lastError: unknown;
  let pollTimer: ReturnType<typeof setTimeout> | undefined;
  let deadline: ReturnType<typeof setTimeout> | undefined;
  let sub: Subscription | undefined;
  let looking = false;
  let resolveP!: (r: ReceivedResult) => void;
  let rejectP!: (e: unknown) => void;
  const promise = new Promise<ReceivedResult>((res, rej) => {
    resolveP = res;
    rejectP = rej;
  });

  const onAbort = () => settle(() => rejectP(options.signal?.reason));
  function settle(fn: () => void) {
    if (settled) return;
    settled = true;
    clearTimeout(pollTimer);
    clearTimeout(deadline);
    sub?.unsubscribe();
    options.signal?.removeEventListener("abort", onAbort);
    fn();
  }

  async function lookUp() {
    if (settled || looking) return;
    looking = true;
    clearTimeout(pollTimer);
    try {
      const got = await getResult(nc, jobId, options);
      if (got) {
        settle(() => resolveP(got));
        return;
      }
    } catch (err) {
      lastError = err;
      if (nc.isClosed()) {
        // No lookup can succeed now: say so instead of waiting out timeoutMs.
        settle(() => rejectP(new ConnectionClosedError(jobId, err)));
        return;
      }
    } finally {
      looking = false;
    }
    schedule(wait);
    wait = Math.min(wait * 2, pollMax);
  }
  function schedule(ms: number) {
    if (settled) return;
    clearTimeout(pollTimer);
    pollTimer = setTimeout(() => void lookUp(), ms);
  }

  if (options.signal?.aborted) {
    settle(() => rejectP(options.signal?.reason));
    return { promise, pollSoon() {}, cancel() {} };
  }
  options.signal?.addEventListener("abort", onAbort, { once: true });
  deadline = setTimeout(() => settle(() => rejectP(new ResultTimeoutError(jobId, timeoutMs, lastError))), timeoutMs);

  if (options.inbox) {
    try {
      sub = subscribeInbox(options.inbox);
    } catch (err) {
      // A closed or draining connection refuses the subscription: end the
      // wait here, its timer and listener with it, and let the caller
      // report the refusal (submit: as the publish's).
      settle(() => {});
      throw nc.isClosed() || nc.isDraining() ? new ConnectionClosedError(jobId, err) : err;
    }
    schedule(wait);
  } else {
    void lookUp();
  }
  function subscribeInbox(inbox: string) {
    return nc.subscribe(inbox, {
      callback(err, msg) {
        if (err) return; // the stream lookup still runs
        const result = parseResult(msg.data);
        if (result && result.jobId === jobId) {
          settle(() => resolveP(received(result, "inbox", msg.headers)));
        }
        // Anything else on the inbox is not this job's result: keep waiting.
      },
    });
  }
  return {
    promise,
    pollSoon: () => schedule(Math.min(100, wait)),
    cancel: () => settle(() => rejectP(new Error(`awaiting job ${jobId}: cancelled`))),
  };
}

function checkJobId(jobId: unknown) {
  if (typeof jobId !== "string" || !JOB_ID.test(jobId)) {
    throw new TypeError(`job id ${JSON.stringify(jobId)} must be 1 to 128 letters, digits, '-' or '_' (it names the result subject)`);
  }
}

function parseResult(data: Uint8Array): Result | null {
  try {
    const v: unknown = JSON.parse(new TextDecoder().decode(data));
    if (typeof v === "object" && v !== null && !Array.isArray(v) && typeof (v as { jobId?: unknown }).jobId === "string") {
      return v as Result;
    }
  } catch {
    // not JSON: not a result
  }
  return null;
}

function received(result: Result, source: ReceivedResult["source"], h?: MsgHdrs): ReceivedResult {
  const out: ReceivedResult = { result, source };
  const tp = h?.get(HEADER_TRACEPARENT);
  const ts = h?.get(HEADER_TRACESTATE);
  if (tp) out.traceparent = tp;
  if (ts) out.tracestate = ts;
  return out;
}

// "no message found" (JetStream API error 10037) is the normal "not yet".
function isNoMessage(err: unknown): boolean {
  const e = err as { code?: string; api_error?: { err_code?: number } };
  return e?.api_error?.err_code === 10037 || (e?.code === "404" && !e?.api_error);
}
