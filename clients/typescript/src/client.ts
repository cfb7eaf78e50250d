// Publishing a job and awaiting its result over NATS JetStream, as the Go
// client (flowjob/client.go) does: Nats-Msg-Id = job id, Reply-To, the
// contract version header and W3C trace context on the job; the result
// from the Reply-To inbox first, the RESULTS stream as the fallback.
import { createInbox, headers, type MsgHdrs, type NatsConnection, type Subscription } from "nats";

import {
  CONTRACT_VERSION,
  DEFAULT_RESULTS_STREAM,
  DEFAULT_SUBJECT_PREFIX,
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
  /** How long to wait for the broker's acknowledgement (default: the nats client's, 5 s). */
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
  /** Give up after this long (default 30000 ms) with a ResultTimeoutError. */
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

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_POLL_FIRST_MS = 500;
const DEFAULT_POLL_MAX_MS = 5_000;
const JOB_ID = /^[A-Za-z0-9_-]{1,128}$/;
// flowjob.ValidSubjectPrefix and ValidStreamName.
const SUBJECT_PREFIX = /^[^.*> \t\r\n]{1,256}(\.[^.*> \t\r\n]{1,256})*$/;
const STREAM_NAME = /^[A-Za-z0-9_-]{1,64}$/;

function subjects(o: ContractOptions) {
  const prefix = o.subjectPrefix ?? DEFAULT_SUBJECT_PREFIX;
  if (!SUBJECT_PREFIX.test(prefix)) {
    throw new TypeError(`subjectPrefix must be dot-separated tokens without wildcards or spaces, as the executors' SUBJECT_PREFIX, got ${JSON.stringify(prefix)}`);
  }
  if (o.resultsStream !== undefined && !STREAM_NAME.test(o.resultsStream)) {
    throw new TypeError(`resultsStream must be 1 to 64 letters, digits, '-' or '_', as the executors' RESULTS_STREAM, got ${JSON.stringify(o.resultsStream)}`);
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
 * @opentelemetry/api is installed.
 */
export async function publishJob(nc: NatsConnection, job: Job, options: PublishOptions = {}): Promise<Published> {
  assertValidJob(job);
  const { jobs } = subjects(options);
  const h = headers();
  const span = options.trace === false ? undefined : await startPublishSpan(h, jobs, job.id);
  h.set(HEADER_VERSION, String(CONTRACT_VERSION));
  if (options.replyTo) {
    h.set(HEADER_REPLY_TO, options.replyTo);
  }
  try {
    const ack = await nc.jetstream().publish(jobs, new TextEncoder().encode(JSON.stringify(job)), {
      msgID: job.id,
      headers: h,
      ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
    });
    span?.end();
    return { stream: ack.stream, seq: ack.seq, duplicate: ack.duplicate };
  } catch (err) {
    span?.end(err);
    throw new Error(`publishing job ${job.id} on ${jobs}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}

/**
 * Waits for the result of jobId: from options.inbox (subscribed before
 * this returns, so call it before publishing), and from the RESULTS stream
 * (`<resultsSubjectPrefix>.<jobId>`, last message), looked up after
 * pollFirstMs and then at doubling intervals, so a lost or refused reply
 * still ends in the stored result. Rejects with a ResultTimeoutError after
 * timeoutMs, or with the signal's reason.
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
 */
export async function submit(nc: NatsConnection, job: Job, options: SubmitOptions = {}): Promise<ReceivedResult> {
  assertValidJob(job);
  const inbox = createInbox((nc as { options?: { inboxPrefix?: string } }).options?.inboxPrefix); // the connection's own prefix, as its requests use
  const waiting = waitForResult(nc, job.id, { ...options, inbox });
  let published: Published;
  try {
    published = await publishJob(nc, job, { ...options, replyTo: inbox });
  } catch (err) {
    waiting.cancel();
    waiting.promise.catch(() => {}); // cancelled on purpose
    throw err;
  }
  if (published.duplicate) {
    waiting.pollSoon(); // its executor will not reply to this inbox: the result is (or will be) stored
  }
  const got = await waiting.promise;
  const r = got.result;
  if (r.sessionId !== "" && (r.sessionId !== job.sessionId || r.flowId !== job.flowId || r.blockId !== job.blockId)) {
    throw new IdReusedError(job.id, r);
  }
  return got;
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
  if (!(timeoutMs > 0)) {
    throw new RangeError(`awaiting job ${jobId}: timeoutMs must be a positive number of milliseconds, got ${timeoutMs}`);
  }
  const pollMax = options.pollMaxMs ?? DEFAULT_POLL_MAX_MS;
  let wait = options.pollFirstMs ?? DEFAULT_POLL_FIRST_MS;
  if (!(wait > 0 && pollMax >= wait)) {
    throw new RangeError(`awaiting job ${jobId}: polling needs 0 < pollFirstMs <= pollMaxMs, got ${wait} and ${pollMax}`);
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
    sub = nc.subscribe(options.inbox, {
      callback(err, msg) {
        if (err) return; // the stream lookup still runs
        const result = parseResult(msg.data);
        if (result && result.jobId === jobId) {
          settle(() => resolveP(received(result, "inbox", msg.headers)));
        }
        // Anything else on the inbox is not this job's result: keep waiting.
      },
    });
    schedule(wait);
  } else {
    void lookUp();
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
