// Validation of jobs (before publishing) and results, from the contract's
// JSON Schemas (flowjob/schema, copied in at build time) with Ajv, plus the
// few rules a schema cannot say (bytes of UTF-8, unique input names, the
// size of the whole job). Errors name the field the way the Go package and
// the executor's INVALID_JOB messages do: `action.inputVariables[1].name`,
// `variables["contact.name"]`.
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";

import { LIMITS } from "./contract.js";
import { jobSchema, resultSchema } from "./generated/schemas.js";
import type { Job, Result } from "./types.js";

/** One broken rule: the JSON path of the field ("" for the whole document) and what is wrong. */
export interface FieldError {
  field: string;
  message: string;
}

/** How many problems one validation lists (flowjob.MaxFieldErrors). */
export const MAX_FIELD_ERRORS = 50;

/** A job that breaks the contract: every problem found, not only the first. */
export class JobValidationError extends Error {
  override readonly name = "JobValidationError";
  readonly errors: FieldError[];
  readonly #all: FieldError[];
  /**
   * errors is the list shown (at most MAX_FIELD_ERRORS, then a line that
   * says how many more); all, when given, is every problem found, which
   * has() reads.
   */
  constructor(errors: FieldError[], all: FieldError[] = errors) {
    super("invalid job: " + errors.map((e) => (e.field ? `${e.field}: ${e.message}` : e.message)).join("; "));
    this.errors = errors;
    this.#all = all;
  }
  /**
   * Whether field, or a field inside it, broke a rule. A problem of the
   * whole document makes it true for every field; the "more problems" line
   * does not (the problems past the cap count by their own fields), so a
   * job with many bad inputs still has a usable id.
   */
  has(field: string): boolean {
    return this.#all.some((e) => (e.field === "" && !MORE_PROBLEMS.test(e.message)) || within(e.field, field));
  }
}

const MORE_PROBLEMS = /^\d+ more problems not listed$/;

let compiled: { job: ValidateFunction; result: ValidateFunction } | undefined;

function validators() {
  if (!compiled) {
    const ajv = new Ajv2020({
      allErrors: true,
      verbose: true,
      // Strict, except that a "required" inside if/then/not may name a
      // member defined beside them (strictRequired wants it in the same object).
      strict: true,
      strictRequired: false,
      allowUnionTypes: true,
      // The schemas spell date-times out with a pattern; "format" is the annotation.
      formats: { "date-time": true },
    });
    compiled = { job: ajv.compile(jobSchema), result: ajv.compile(resultSchema) };
  }
  return compiled;
}

/**
 * Checks value against the job contract and returns every problem (an
 * empty array when it is a valid job). The executor may still refuse a job
 * this accepts only for the size of its interpolated inputs (1 MiB).
 */
export function validateJob(value: unknown): FieldError[] {
  return capped(everyJobProblem(value));
}

function everyJobProblem(value: unknown): FieldError[] {
  if (!isObject(value)) {
    return [{ field: "", message: `a job must be a JSON object, got ${jsonKind(value)}` }];
  }
  // A job over the cap is refused for that alone, as flowjob.Decode
  // refuses it before reading a field.
  const size = encodedSize(value);
  if (typeof size === "number" && size > LIMITS.maxJobBytes) {
    return [{ field: "", message: `job is ${size} bytes, over the ${LIMITS.maxJobBytes}-byte limit: move large data out of the job` }];
  }
  const { job } = validators();
  const list = job(value) ? [] : fromAjv(job.errors ?? [], value);
  checkBytes(value, list, size);
  return list;
}

/**
 * The bytes of UTF-8 JSON.stringify writes for job, or why it cannot
 * write it (a BigInt, a cycle, a toJSON that throws, a value nested too
 * deep for the stack).
 */
function encodedSize(job: Record<string, unknown>): number | Error {
  try {
    return bytes(JSON.stringify(job));
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}

/** Whether value is a valid job. */
export function isJob(value: unknown): value is Job {
  return validateJob(value).length === 0;
}

/** Throws a JobValidationError listing every problem when value is not a valid job. */
export function assertValidJob(value: unknown): asserts value is Job {
  const all = everyJobProblem(value);
  if (all.length > 0) {
    throw new JobValidationError(capped(all), all);
  }
}

/**
 * Checks value against the result schema. Results come from the executor:
 * awaitResult does not reject one that fails this (a newer executor may
 * add codes); engines and tests that want the check call it.
 */
export function validateResult(value: unknown): FieldError[] {
  const { result } = validators();
  return result(value) ? [] : capped(fromAjv(result.errors ?? [], value));
}

/** Whether value is a valid result. */
export function isResult(value: unknown): value is Result {
  return validateResult(value).length === 0;
}

function capped(list: FieldError[]): FieldError[] {
  if (list.length <= MAX_FIELD_ERRORS) {
    return list;
  }
  const more = list.length - MAX_FIELD_ERRORS;
  return [...list.slice(0, MAX_FIELD_ERRORS), { field: "", message: `${more} more problems not listed` }];
}

// ---- Ajv errors → field errors ----

// flowjob's words for a templateVersion without its templateId.
const TEMPLATE_VERSION_ALONE = "needs templateId: name the template the version belongs to";

// flowjob's words for a required field that is missing or empty, by field
// (indices written as []); "required" for the others.
const REQUIRED: Record<string, string> = {
  id: "required: a unique id such as a UUID",
  context: 'required: "flow" or "tool"',
  action: "required: the executeScript action to run",
  "action.type": 'required: "executeScript"',
  "action.source": "required: write a function execute(...) or a body that returns a value",
  "action.inputVariables": "required: use [] when the script takes no inputs",
  "action.outputVariable": "required: the session variable to write",
  "action.onError": 'required: "blocking" or "continue"',
  "action.inputVariables[].value": 'required (it may be "")',
  defaultExceptionBlockId:
    'required when context is "flow", action.onError is "blocking" and action.errorHandoff is false: the failure redirects there',
  "resume.token": "required: the continuation of the suspended job's result",
  "resume.resolution": "required: the answer to the approval request (any JSON, null included)",
};

// What flowjob says a field must be when its JSON type is wrong, where
// that is more than the schema's type (indices written as []).
const TYPE_WORDS: Record<string, string> = {
  capabilities: "an array of strings",
  variables: "an object of strings",
};

function fromAjv(errors: ErrorObject[], root: unknown): FieldError[] {
  const out: FieldError[] = [];
  const seen = new Set<string>();
  // One problem per field, the first Ajv found (as flowjob reports a
  // field once): a number that is neither whole nor positive is "must be
  // a whole number", not that and "must be 0 or more".
  const add = (field: string, message: string) => {
    if (!seen.has(field)) {
      seen.add(field);
      out.push({ field, message });
    }
  };
  for (const e of errors) {
    const at = pathOf(e.instancePath, root);
    if (e.propertyName !== undefined) {
      // A rule on a member's name (propertyNames).
      const field = keyPath(at, e.propertyName);
      if (e.keyword === "minLength") add(field, at === "variables" ? "a variable name must not be empty" : "a name must not be empty");
      else if (e.keyword === "maxLength") add(field, `name is ${bytes(e.propertyName)} bytes, over the ${e.params.limit}-byte limit`);
      else add(field, `name ${e.message ?? "is invalid"}`);
      continue;
    }
    switch (e.keyword) {
      case "if":
      case "propertyNames":
        break; // reported by the rule inside
      case "required": {
        const field = keyPath(at, e.params.missingProperty as string);
        if (field === "templateId" && e.schemaPath.includes("/then/")) {
          add("templateVersion", TEMPLATE_VERSION_ALONE); // flowjob names the version
          break;
        }
        add(field, REQUIRED[generic(field)] ?? "required");
        break;
      }
      case "additionalProperties": {
        const name = e.params.additionalProperty as string;
        const known = Object.keys((e.parentSchema?.properties as Record<string, unknown> | undefined) ?? {});
        const near = known.find((k) => k.toLowerCase() === name.toLowerCase());
        add(keyPath(at, name), near ? `unknown field (did you mean "${near}"?)` : "unknown field");
        break;
      }
      case "type":
        if (at === "defaultExceptionBlockId" && e.data === null && e.schemaPath.includes("/then/")) {
          // null is absent to flowjob: the field is missing where it is required.
          add(at, REQUIRED[at]!);
          break;
        }
        add(at, `must be ${TYPE_WORDS[generic(at)] ?? typeWords(e.params.type as string | string[])}, got ${kindOf(e.data)}`);
        break;
      case "enum": {
        const allowed = (e.schema as unknown[]).map((v) => JSON.stringify(v));
        // An empty string is a field left blank: flowjob says "required".
        add(at, e.data === "" ? `required: ${orList(allowed)}` : `must be ${orList(allowed)}, got ${quoted(e.data)}`);
        break;
      }
      case "const":
        add(
          at,
          e.data === ""
            ? `required: ${JSON.stringify(e.params.allowedValue)}`
            : `must be ${JSON.stringify(e.params.allowedValue)}, got ${quoted(e.data)}`,
        );
        break;
      case "uniqueItems": {
        // flowjob's words, at each repeat, naming the first: capabilities[1]:
        // "kv" is already capabilities[0]. Ajv reports one pair; every
        // repeat is a problem.
        const first = new Map<string, number>();
        (e.data as unknown[]).forEach((item, i) => {
          const key = JSON.stringify(item) ?? String(item);
          const earlier = first.get(key);
          if (earlier === undefined) first.set(key, i);
          else add(`${at}[${i}]`, `${quoted(item)} is already ${at}[${earlier}]`);
        });
        break;
      }
      case "pattern":
        add(at, patternMessage(at, e.data));
        break;
      case "not":
        if (generic(at) === "action.inputVariables[].name") {
          // A name that is not a string holds the "not" trivially: its
          // type error says what is wrong.
          if (typeof e.data !== "string") break;
          // jsident.Check's two refusals: a reserved word, or FlowScript's own prefix.
          add(
            at,
            e.data.startsWith(INTERNAL_PREFIX)
              ? `${goQuote(e.data, Infinity)} starts with ${JSON.stringify(INTERNAL_PREFIX)}, which FlowScript keeps for its own names; choose another name`
              : `${goQuote(e.data, Infinity)} is a reserved word in JavaScript or in FlowScript; choose another name`,
          );
        } else if (at === "" && isObject(e.data) && "error" in e.data) {
          add("error", "only a failed result carries an error");
        } else {
          add(at, `must not match ${JSON.stringify(e.schema)}`);
        }
        break;
      case "minLength": {
        if (at === "templateId" && e.schemaPath.includes("/then/")) {
          add("templateVersion", TEMPLATE_VERSION_ALONE);
          break;
        }
        // minLength 1 is how the schema says "required, not empty".
        add(at, e.params.limit !== 1 ? `must be at least ${e.params.limit} characters` : (REQUIRED[generic(at)] ?? "required"));
        break;
      }
      case "maxLength":
        // The schema's maxLength counts characters but stands for a cap in
        // bytes of UTF-8 (over it in characters is over it in bytes): say
        // the bytes, as flowjob does.
        add(at, overBytes(at, bytes(String(e.data)), e.params.limit as number));
        break;
      case "maxItems":
        add(at, `has ${(e.data as unknown[]).length} items, over the limit of ${e.params.limit}`);
        break;
      case "maxProperties":
        add(at, `has ${Object.keys(e.data as object).length} members, over the limit of ${e.params.limit}`);
        break;
      case "maximum":
        if (isPastInt64(e.data)) {
          add(at, outOfRange(e.data));
        } else if (at === "version") {
          add(at, `contract version ${String(e.data)} is newer than this one (${e.params.limit}): upgrade the executor before sending such jobs`);
        } else {
          add(at, `must be at most ${e.params.limit}, got ${String(e.data)}`);
        }
        break;
      case "minimum":
        add(at, isPastInt64(e.data) ? outOfRange(e.data) : `must be ${e.params.limit} or more, got ${String(e.data)}`);
        break;
      default:
        add(at, e.message ?? `breaks the rule ${e.keyword}`);
    }
  }
  return out;
}

function patternMessage(at: string, data: unknown): string {
  switch (generic(at)) {
    case "id":
      // flowjob names the cap first: "é" is two bytes.
      if (typeof data === "string" && bytes(data) > LIMITS.maxIdBytes) {
        return overBytes(at, bytes(data), LIMITS.maxIdBytes);
      }
      return `must contain only letters A-Z a-z, digits, '-' and '_' (it names the result subject), got ${quoted(data)}`;
    case "jobId":
      return `must contain only letters A-Z a-z, digits, '-' and '_' (it names the result subject), got ${quoted(data)}`;
    case "action.source":
      return "required: write a function execute(...) or a body that returns a value";
    case "action.outputVariable":
    case "action.errorVariable":
      return `is only white space, got ${quoted(data)}: name the session variable to write`;
    case "sessionId":
    case "flowId":
    case "blockId":
      return `is only white space, got ${quoted(data)}: send the id`;
    case "defaultExceptionBlockId":
    case "tenantId":
    case "templateId":
      return `is only white space, got ${quoted(data)}: send the id, or leave the field out`;
    case "action.inputVariables[].name":
      return `${quoted(data)} is not a JavaScript identifier: start with a letter, '_' or '$', then letters, digits, '_' or '$'`;
    case "deadline":
    case "completedAt":
      return timeMessage(String(data));
    default:
      return `does not have the required form, got ${quoted(data)}`;
  }
}

// ---- the rules a schema cannot say ----

const utf8 = new TextEncoder();
// Bytes of UTF-8, as Go's len() of the decoded string: a lone surrogate
// counts 3, as the U+FFFD both TextEncoder and encoding/json make of it.
const bytes = (s: string) => utf8.encode(s).length;

// flowjob.MaxResolutionNesting: the sandbox's JSON.parse reads no deeper.
const MAX_RESOLUTION_NESTING = LIMITS.maxResolutionNesting;

// jsident.InternalPrefix: input names FlowScript keeps for its own bindings.
const INTERNAL_PREFIX = "$flowscript$";

/** flowjob's words for a string over its cap in bytes, by field. */
function overBytes(field: string, n: number, max: number): string {
  switch (generic(field)) {
    case "action.source":
      return `is ${n} bytes, over the ${max}-byte limit: move data out of the script into input variables`;
    case "resume.token":
      return `is ${n} bytes, over the ${max}-byte limit: pass the continuation as the executor gave it`;
    case "action.inputVariables[].name":
      return `must be at most ${max} bytes, got ${n}`; // jsident.Check
    default:
      return `is ${n} bytes, over the ${max}-byte limit`;
  }
}

function checkBytes(job: Record<string, unknown>, list: FieldError[], size: number | Error) {
  const add = (field: string, message: string) => {
    if (!list.some((e) => e.field !== "" && (within(e.field, field) || within(field, e.field)))) {
      list.push({ field, message });
    }
  };
  const cap = (field: string, v: unknown, max: number) => {
    if (typeof v === "string" && bytes(v) > max) {
      add(field, overBytes(field, bytes(v), max));
    }
  };
  for (const f of ["sessionId", "flowId", "blockId", "defaultExceptionBlockId", "tenantId", "templateId"]) {
    cap(f, job[f], LIMITS.maxRefBytes);
  }
  // Whole numbers past 2^53 are not exact in JSON: flowjob refuses them.
  for (const f of ["version", "timeoutMs", "templateVersion"]) {
    const v = job[f];
    if (isOutOfRange(v)) {
      add(f, outOfRange(v));
    }
  }
  // The schema checks a deadline's form; the calendar is checked here
  // (2026-02-30 is no day), as Go's time.Parse does.
  const deadline = job["deadline"];
  if (typeof deadline === "string" && /^\d{4}-\d{2}-\d{2}T/.test(deadline)) {
    const [y, m, d] = deadline.slice(0, 10).split("-").map(Number) as [number, number, number];
    if (d > daysIn(y, m)) {
      add("deadline", timeMessage(deadline));
    }
  }
  const resume = job["resume"];
  if (isObject(resume)) {
    cap("resume.token", resume["token"], LIMITS.maxTokenBytes);
    if ("resolution" in resume && resume["resolution"] !== undefined) {
      const { why, tooDeep } = inspectJSON(resume["resolution"], MAX_RESOLUTION_NESTING);
      if (why) {
        add("resume.resolution", `must be JSON: ${why}`);
      } else if (tooDeep) {
        add("resume.resolution", `nests arrays and objects more than ${MAX_RESOLUTION_NESTING} levels deep: resume with a flatter resolution`);
      }
    }
  }
  const action = job["action"];
  if (isObject(action)) {
    cap("action.source", action["source"], LIMITS.maxSourceBytes);
    cap("action.outputVariable", action["outputVariable"], LIMITS.maxNameBytes);
    cap("action.errorVariable", action["errorVariable"], LIMITS.maxNameBytes);
    cap("action.errorMessage", action["errorMessage"], LIMITS.maxErrorMessageBytes);
    const inputs = action["inputVariables"];
    if (Array.isArray(inputs)) {
      const first = new Map<string, number>();
      inputs.forEach((input: unknown, i) => {
        if (!isObject(input) || typeof input["name"] !== "string") return;
        const name = input["name"];
        const field = `action.inputVariables[${i}].name`;
        cap(field, name, LIMITS.maxInputNameBytes);
        const earlier = first.get(name);
        if (earlier === undefined) {
          first.set(name, i);
        } else {
          add(field, `${goQuote(name, Infinity)} is already the name of action.inputVariables[${earlier}]; each input needs its own name`);
        }
      });
    }
  }
  const vars = job["variables"];
  if (vars instanceof Map || vars instanceof Set) {
    // JSON writes a Map or a Set as {}: its variables would be dropped without a word.
    add("variables", vars instanceof Map
      ? "must be an object of strings, got a Map (JSON writes it as {}): convert it with Object.fromEntries(map)"
      : "must be an object of strings, got a Set (JSON writes it as {}): send an object of names and values");
  } else if (isObject(vars)) {
    let total = 0;
    // JSON carries a lone surrogate, but flowjob reads it as U+FFFD: two
    // names that differ only there ("a\uD800", "a\uFFFD") are the same
    // name to it, and the later one is a duplicate.
    const seen = new Set<string>();
    for (const k of Object.keys(vars)) {
      const name = k.replace(LONE_SURROGATE, "\uFFFD");
      if (seen.has(name)) {
        add(keyPath("variables", name), "duplicate variable");
      }
      seen.add(name);
    }
    for (const [k, v] of Object.entries(vars)) {
      total += bytes(k) + (typeof v === "string" ? bytes(v) : 0);
      if (bytes(k) > LIMITS.maxNameBytes) {
        add(keyPath("variables", k), `name is ${bytes(k)} bytes, over the ${LIMITS.maxNameBytes}-byte limit`);
      }
    }
    if (total > LIMITS.maxVariablesBytes) {
      add("variables", `total ${total} bytes, over the ${LIMITS.maxVariablesBytes}-byte limit: send only the ones the action uses`);
    }
  }
  if (size instanceof Error && list.length === 0) {
    // A BigInt, a cycle or a toJSON that throws: the field's own problem
    // is listed above when the schema or the checks here saw it.
    list.push({ field: "", message: `cannot be encoded as JSON: ${size.name}: ${size.message.split("\n")[0]}` });
  }
}

/** flowjob's words for whole numbers past 2^53 (not exact in JSON: refused). */
function isOutOfRange(v: unknown): v is number {
  return typeof v === "number" && Number.isInteger(v) && Math.abs(v) > 2 ** 53;
}

/** Whole numbers flowjob reads as out of range even when they are written as digits: past Go's int. */
function isPastInt64(v: unknown): v is number {
  return typeof v === "number" && Number.isInteger(v) && Math.abs(v) >= 2 ** 63;
}

/** What flowjob says of such a number: the number as JSON writes it. */
const outOfRange = (v: number) => `${JSON.stringify(v)} is out of range`;

/** The days in month m (1-12) of year y. */
function daysIn(y: number, m: number): number {
  const last = new Date(0);
  last.setUTCFullYear(y, m, 0); // the month's last day (Date.UTC would read years 0-99 as 1900-1999)
  return last.getUTCDate();
}

// What Go's time.Parse(time.RFC3339Nano) takes beyond the schema's
// pattern: a comma before the fraction, an offset of 24 hours or of 60
// minutes. (It also takes a one-digit hour, which the schema refuses.)
const GO_TIME = /^(\d{4})-(\d\d)-(\d\d)T(\d\d?):(\d\d):(\d\d)([.,]\d+)?(?:Z|([+-])(\d\d):(\d\d))$/;

/**
 * flowjob's words for a time the schema refuses (or a day the calendar
 * lacks): the reason when Go's time.Parse reads it but flowjob refuses it
 * (a comma before the fraction, an offset's minutes of 60, an offset of 24
 * hours), else only the time.
 */
function timeMessage(s: string): string {
  const base = `must be an RFC 3339 time such as 2026-01-02T15:04:05Z, got`;
  const m = GO_TIME.exec(s);
  const [y, mo, d, h, mi, sec] = (m?.slice(1, 7) ?? []).map(Number) as number[];
  const parsed =
    m !== null && mo! >= 1 && mo! <= 12 && d! >= 1 && d! <= daysIn(y!, mo!) && h! < 24 && mi! < 60 && sec! < 60 &&
    (m[8] === undefined || (Number(m[9]) <= 24 && Number(m[10]) <= 60));
  if (!parsed) return `${base} ${goQuote(s)}`;
  if (m[7]?.startsWith(",")) return `${base} ${goQuote(s)}: a fraction of a second follows a period, not a comma`;
  if (m[4]!.length === 1) return `${base} ${goQuote(s)}: the hour takes two digits`;
  if (m[10] === "60") return `${base} ${goQuote(s)}: an offset's minutes run from 00 to 59`;
  if (m[9] === "24") return `${base} an offset of ${m[8] === "-" ? "-" : ""}24 hours: offsets run from -23:59 to +23:59`;
  return `${base} ${goQuote(s)}`;
}

// ---- paths and words ----

/** The Go-style path of a JSON pointer into root: a.b[0]["odd key"]. */
function pathOf(pointer: string, root: unknown): string {
  if (pointer === "") return "";
  let path = "";
  let cur: unknown = root;
  for (const raw of pointer.slice(1).split("/")) {
    const tok = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(cur)) {
      path += `[${tok}]`;
      cur = cur[Number(tok)];
    } else {
      path = keyPath(path, tok);
      cur = isObject(cur) ? cur[tok] : undefined;
    }
  }
  return path;
}

/** parent.key for a plain key, parent["odd key"] otherwise, a long key cut, as flowjob writes it. */
function keyPath(parent: string, key: string): string {
  if (/^[A-Za-z0-9_$]{1,64}$/.test(key)) {
    return parent === "" ? key : `${parent}.${key}`;
  }
  return `${parent}[${goQuote(key)}]`;
}

const MAX_QUOTED_BYTES = 40;

/**
 * s as flowjob's quote writes it: cut to 40 bytes of UTF-8 on a character
 * boundary (then "…" after the quotes), in Go's strconv.Quote escapes;
 * with max Infinity, as Go's %q writes it, whole.
 */
function goQuote(s: string, max = MAX_QUOTED_BYTES): string {
  let cut = s;
  let more = false;
  if (bytes(s) > max) {
    let n = 0;
    let end = 0;
    for (const ch of s) {
      n += bytes(ch);
      if (n > max) break;
      end += ch.length;
    }
    cut = s.slice(0, end);
    more = true;
  }
  let out = '"';
  // flowjob reads a lone surrogate as U+FFFD, and quotes that.
  for (const ch of cut.replace(LONE_SURROGATE, "\uFFFD")) {
    const c = ch.codePointAt(0)!;
    const esc = GO_ESCAPES[ch];
    if (esc) out += esc;
    else if (c < 0x20 || c === 0x7f) out += "\\x" + c.toString(16).padStart(2, "0");
    else if (c === 0x20 || !NOT_PRINTABLE.test(ch)) out += ch;
    else if (c < 0x10000) out += "\\u" + c.toString(16).padStart(4, "0");
    else out += "\\U" + c.toString(16).padStart(8, "0");
  }
  return out + '"' + (more ? "…" : "");
}

const GO_ESCAPES: Record<string, string> = { '"': '\\"', "\\": "\\\\", "\x07": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v" };

// What Go's unicode.IsPrint refuses: controls, formats, private use,
// surrogates, unassigned, and the separators but for the ASCII space.
const NOT_PRINTABLE = /^[\p{C}\p{Z}]$/u;

function within(path: string, field: string): boolean {
  if (!path.startsWith(field)) return false;
  const rest = path.slice(field.length);
  return rest === "" || rest[0] === "." || rest[0] === "[";
}

const generic = (path: string) => path.replace(/\[\d+\]/g, "[]");

function typeWords(types: string | string[]): string {
  const words: Record<string, string> = {
    string: "a string",
    integer: "a whole number",
    number: "a number",
    boolean: "true or false",
    object: "an object",
    array: "an array",
    null: "null",
  };
  const list = (Array.isArray(types) ? types : types.split(",")).filter((t) => t !== "null");
  return orList(list.map((t) => words[t] ?? t));
}

function orList(items: string[]): string {
  if (items.length <= 1) return items[0] ?? "";
  return `${items.slice(0, -1).join(", ")} or ${items[items.length - 1]}`;
}

/** The JSON type of v as flowjob names it ("array", "null", "number"...), or its JavaScript type. */
function jsonKind(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "number" : String(v);
  return typeof v;
}

/** v quoted for a message: a string as flowjob's quote writes it, anything else as JSON (cut). */
function quoted(v: unknown): string {
  if (typeof v === "string") return goQuote(v);
  let s: string;
  try {
    s = JSON.stringify(v) ?? String(v);
  } catch {
    s = kindOf(v); // a cycle, or nested too deep to write
  }
  return s.length > 42 ? s.slice(0, 41) + "…" : s;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** What inspectJSON found. */
export interface JSONInspection {
  /** Why the value is not JSON as it is ("" when it is). */
  why: string;
  /** Whether it nests arrays and objects deeper than the maxNesting given. */
  tooDeep: boolean;
}

/**
 * Says whether v is a JSON value that JSON.stringify writes as it is, and
 * why not ("" when it is): a function, a symbol or undefined it leaves out,
 * a BigInt it refuses, NaN and the infinities it writes as null, a Map or
 * a Set it writes as {}, an array or object that contains itself (a cycle
 * it refuses); and whether it nests arrays and objects more than
 * maxNesting levels deep, as flowjob.JSONNesting counts them (a scalar is
 * 0, [] is 1, [[]] is 2). It walks without recursion, each array and
 * object once, and stops at the first problem or past maxNesting, so a
 * value nested 100,000 deep or a cycle of objects does not overflow the
 * stack. An object with a toJSON method is taken as it is.
 */
export function inspectJSON(v: unknown, maxNesting = Number.POSITIVE_INFINITY): JSONInspection {
  const fine: JSONInspection = { why: "", tooDeep: false };
  const deep: JSONInspection = { why: "", tooDeep: true };
  const problem = (why: string): JSONInspection => ({ why, tooDeep: false });
  // The arrays and objects walked to the end, with how deeply each nests;
  // those on the way down from v, with the members still to look at.
  const done = new Map<object, number>();
  const open = new Set<object>();
  const stack: { node: object; items: unknown[]; array: boolean; next: number; below: number }[] = [];
  // look: a problem, the nesting of a value known (0 for a scalar), or
  // undefined when it is an array or object to walk (pushed on the stack).
  const look = (item: unknown, inArray: boolean): JSONInspection | number | undefined => {
    switch (typeof item) {
      case "bigint":
        return problem("a BigInt has no JSON form; send it as a string or a number");
      case "undefined":
        // A member left undefined is left out, as in any JSON.stringify'd
        // object; in an array JSON writes null.
        return inArray || stack.length === 0 ? problem("an undefined has no JSON form") : 0;
      case "function":
      case "symbol":
        return problem(`a ${typeof item} has no JSON form`);
      case "number":
        return Number.isFinite(item) ? 0 : problem(`${String(item)} has no JSON form (JSON.stringify writes null)`);
      case "object": {
        if (item === null || typeof (item as { toJSON?: unknown }).toJSON === "function") return 0;
        if (item instanceof Map || item instanceof Set) {
          return problem(`a ${item instanceof Map ? "Map" : "Set"} is written as {}; convert it first (Object.fromEntries, [...set])`);
        }
        const known = done.get(item);
        if (known !== undefined) return known;
        if (open.has(item)) return problem("it contains itself (a cycle), which cannot be encoded as JSON");
        if (stack.length >= maxNesting) return deep;
        open.add(item);
        const array = Array.isArray(item);
        stack.push({ node: item, items: array ? item : Object.values(item), array, next: 0, below: 0 });
        return undefined;
      }
      default:
        return 0;
    }
  };
  const first = look(v, false);
  if (typeof first === "object") return first;
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.next < top.items.length) {
      const got = look(top.items[top.next++], top.array);
      if (typeof got === "object") return got;
      if (got !== undefined) {
        if (stack.length + got > maxNesting) return deep; // one walked before, under a shallower parent
        top.below = Math.max(top.below, got);
      }
      continue;
    }
    stack.pop();
    open.delete(top.node);
    const nesting = top.below + 1;
    done.set(top.node, nesting);
    const parent = stack[stack.length - 1];
    if (parent) parent.below = Math.max(parent.below, nesting);
  }
  return fine;
}

/** Why v is not a JSON value that JSON.stringify writes as it is ("" when it is): inspectJSON's why. */
export function notJSON(v: unknown): string {
  return inspectJSON(v).why;
}
