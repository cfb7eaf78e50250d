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
  const { job } = validators();
  const list = job(value) ? [] : fromAjv(job.errors ?? [], value);
  if (isObject(value)) {
    checkBytes(value, list);
  }
  return list;
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

// Hints after "required", by field (indices written as []).
const REQUIRED_HINTS: Record<string, string> = {
  id: "a unique id such as a UUID",
  context: '"flow" or "tool"',
  action: "the executeScript action to run",
  "action.type": '"executeScript"',
  "action.source": "write a function execute(...) or a body that returns a value",
  "action.inputVariables": "use [] when the script takes no inputs",
  "action.outputVariable": "the session variable to write",
  "action.onError": '"blocking" or "continue"',
  "action.inputVariables[].value": 'it may be ""',
  defaultExceptionBlockId:
    'when context is "flow", action.onError is "blocking" and action.errorHandoff is false: the failure redirects there',
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
      if (e.keyword === "minLength") add(field, "a name must not be empty");
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
        const hint = REQUIRED_HINTS[generic(field)];
        add(field, hint ? `required: ${hint}` : "required");
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
        add(at, `must be ${typeWords(e.params.type as string | string[])}, got ${kindOf(e.data)}`);
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
            typeof e.data === "string" && e.data.startsWith(INTERNAL_PREFIX)
              ? `${quoted(e.data)} starts with ${JSON.stringify(INTERNAL_PREFIX)}, which FlowScript keeps for its own names; choose another name`
              : `${quoted(e.data)} is a reserved word in JavaScript or in FlowScript; choose another name`,
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
        const hint = REQUIRED_HINTS[generic(at)];
        add(at, e.params.limit !== 1 ? `must be at least ${e.params.limit} characters` : hint ? `required: ${hint}` : "required");
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
        if (at === "version") {
          add(at, `contract version ${String(e.data)} is newer than this one (${e.params.limit}): upgrade the executor before sending such jobs`);
        } else {
          add(at, `must be at most ${e.params.limit}, got ${String(e.data)}`);
        }
        break;
      case "minimum":
        add(at, `must be ${e.params.limit} or more, got ${String(e.data)}`);
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
      // flowjob's words for an offset's minutes past 59 (+00:60).
      if (typeof data === "string" && /[+-]\d\d:([6-9]\d)$/.test(data)) {
        return `must be an RFC 3339 time such as 2026-01-02T15:04:05Z, got ${quoted(data)}: an offset's minutes run from 00 to 59`;
      }
      return `must be an RFC 3339 time such as 2026-01-02T15:04:05Z, got ${quoted(data)}`;
    default:
      return `does not have the required form, got ${quoted(data)}`;
  }
}

// ---- the rules a schema cannot say ----

const utf8 = new TextEncoder();
// Bytes of UTF-8, as Go's len() of the decoded string: a lone surrogate
// counts 3, as the U+FFFD both TextEncoder and encoding/json make of it.
const bytes = (s: string) => utf8.encode(s).length;

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

function checkBytes(job: Record<string, unknown>, list: FieldError[]) {
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
    if (typeof v === "number" && Number.isInteger(v) && Math.abs(v) > 2 ** 53) {
      add(f, `${JSON.stringify(v)} is out of range`);
    }
  }
  // The schema checks a deadline's form; the calendar is checked here
  // (2026-02-30 is no day), as Go's time.Parse does.
  const deadline = job["deadline"];
  if (typeof deadline === "string" && /^\d{4}-\d{2}-\d{2}T/.test(deadline)) {
    const [y, m, d] = deadline.slice(0, 10).split("-").map(Number) as [number, number, number];
    const last = new Date(0);
    last.setUTCFullYear(y, m, 0); // the month's last day (Date.UTC would read years 0-99 as 1900-1999)
    if (d > last.getUTCDate()) {
      add("deadline", `must be an RFC 3339 time such as 2026-01-02T15:04:05Z, got ${JSON.stringify(deadline)}: ${deadline.slice(0, 10)} is no day`);
    }
  }
  const resume = job["resume"];
  if (isObject(resume)) {
    cap("resume.token", resume["token"], LIMITS.maxTokenBytes);
    if ("resolution" in resume && resume["resolution"] !== undefined) {
      const why = notJSON(resume["resolution"]);
      if (why) add("resume.resolution", `must be JSON: ${why}`);
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
          add(field, `${JSON.stringify(name)} is already the name of action.inputVariables[${earlier}]; each input needs its own name`);
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
    // names that differ only there are the same name to it.
    const seen = new Set<string>();
    for (const k of Object.keys(vars)) {
      const name = k.replace(LONE_SURROGATE, "\uFFFD");
      if (name !== k && seen.has(name)) {
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
  let text: string;
  try {
    text = JSON.stringify(job);
  } catch (err) {
    // A BigInt, or a toJSON that throws: the field's own problem is
    // listed above when the schema saw it.
    if (list.length === 0) list.push({ field: "", message: `cannot be encoded as JSON: ${String(err)}` });
    return;
  }
  const size = bytes(text);
  if (size > LIMITS.maxJobBytes) {
    list.push({ field: "", message: `job is ${size} bytes, over the ${LIMITS.maxJobBytes}-byte limit: move large data out of the job` });
  }
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
 * boundary (then "…" after the quotes), in Go's strconv.Quote escapes.
 */
function goQuote(s: string): string {
  let cut = s;
  let more = false;
  if (bytes(s) > MAX_QUOTED_BYTES) {
    let n = 0;
    let end = 0;
    for (const ch of s) {
      n += bytes(ch);
      if (n > MAX_QUOTED_BYTES) break;
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

function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "number" : String(v);
  return typeof v;
}

function quoted(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 42 ? s.slice(0, 41) + "…" : s;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

// notJSON says why v is not a JSON value that JSON.stringify writes as it
// is ("" when it is): a function, a symbol or undefined it leaves out, a
// BigInt it refuses, NaN and the infinities it writes as null, a Map or a
// Set it writes as {}.
export function notJSON(v: unknown, depth = 0): string {
  switch (typeof v) {
    case "bigint":
      return "a BigInt has no JSON form; send it as a string or a number";
    case "function":
    case "symbol":
    case "undefined":
      return `a ${typeof v} has no JSON form`;
    case "number":
      return Number.isFinite(v) ? "" : `${String(v)} has no JSON form (JSON.stringify writes null)`;
    case "object":
      if (v === null || depth > 64) return "";
      if (v instanceof Map || v instanceof Set) {
        return `a ${v instanceof Map ? "Map" : "Set"} is written as {}; convert it first (Object.fromEntries, [...set])`;
      }
      if (typeof (v as { toJSON?: unknown }).toJSON === "function") return "";
      for (const item of Array.isArray(v) ? v : Object.values(v)) {
        const why = item === undefined && !Array.isArray(v) ? "" : notJSON(item, depth + 1);
        if (why) return why;
      }
      return "";
    default:
      return "";
  }
}
