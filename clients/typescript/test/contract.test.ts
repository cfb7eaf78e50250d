// The TypeScript contract against the JSON Schemas and the Go package,
// without an executor: field lists and enums against the schemas, defaults
// and caps against flowjob's Go source, the Go golden files through the
// TypeScript validator, and the validator's messages.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";

import {
  ACTION_TYPE_EXECUTE_SCRIPT,
  CAPABILITIES,
  LOG_LEVELS,
  assertValidJob,
  buildJob,
  resumeJob,
  CONTEXTS,
  CONTRACT_VERSION,
  DEFAULT_RESULTS_STREAM,
  DEFAULT_SUBJECT_PREFIX,
  DIRECTIVE_TYPES,
  ERROR_CODES,
  FIELDS,
  HEADER_MSG_ID,
  HEADER_REPLY_TO,
  HEADER_TRACEPARENT,
  HEADER_TRACESTATE,
  HEADER_VERSION,
  isJob,
  jobSchema,
  jobsSubject,
  JobValidationError,
  LIMITS,
  newJobId,
  ON_ERROR,
  resultSchema,
  resultsSubjectPrefix,
  STATUSES,
  validateJob,
  validateResult,
  type FieldError,
  type Job,
  type JobInit,
} from "@flowscript/client";

import { repoRoot } from "./executor.js";

const flowjob = join(repoRoot(), "flowjob");
const readJSON = (path: string): unknown => JSON.parse(readFileSync(path, "utf8"));

type Node = { properties?: Record<string, Node>; $ref?: string; $defs?: Record<string, Node>; items?: Node; enum?: unknown[]; const?: unknown };

function node(root: Node, ...path: string[]): Node {
  const deref = (n: Node): Node => (n.$ref ? deref(root.$defs![n.$ref.replace("#/$defs/", "")]!) : n);
  let cur = deref(root);
  for (const step of path) {
    cur = deref(step === "items" ? cur.items! : cur.properties![step]!);
  }
  return cur;
}

const sorted = (xs: readonly unknown[]) => [...xs].map(String).sort();

describe("the types follow the JSON Schemas", () => {
  const job = jobSchema as Node;
  const result = resultSchema as Node;

  test("every member of every type, and no other", () => {
    const cases: [string, readonly string[], Node][] = [
      ["job", FIELDS.job, node(job)],
      ["action", FIELDS.action, node(job, "action")],
      ["inputVariable", FIELDS.inputVariable, node(job, "action", "inputVariables", "items")],
      ["resume", FIELDS.resume, node(job, "resume")],
      ["result", FIELDS.result, node(result)],
      ["directive", FIELDS.directive, node(result, "directive")],
      ["error", FIELDS.error, node(result, "error")],
      ["logEntry", FIELDS.logEntry, node(result, "logs", "items")],
    ];
    for (const [name, fields, n] of cases) {
      assert.deepEqual(sorted(fields), sorted(Object.keys(n.properties ?? {})), `${name}: FIELDS.${name} vs the schema`);
    }
  });

  test("every enum", () => {
    assert.deepEqual(sorted(ON_ERROR), sorted(node(job, "action", "onError").enum!));
    assert.deepEqual(sorted(CONTEXTS), sorted(node(job, "context").enum!));
    assert.deepEqual(sorted([...CONTEXTS, ""]), sorted(node(result, "context").enum!));
    assert.deepEqual(sorted(STATUSES), sorted(node(result, "status").enum!));
    assert.deepEqual(sorted(DIRECTIVE_TYPES), sorted(node(result, "directive", "type").enum!));
    assert.deepEqual(sorted(ERROR_CODES), sorted(node(result, "error", "code").enum!));
    assert.equal(node(job, "action", "type").const, ACTION_TYPE_EXECUTE_SCRIPT);
    assert.deepEqual(sorted(CAPABILITIES), sorted(node(job, "capabilities", "items").enum!));
    assert.deepEqual(sorted(LOG_LEVELS), sorted(node(result, "logs", "items", "level").enum!));
  });
});

describe("the constants follow the Go package", () => {
  const goSource = readdirSync(flowjob)
    .filter((f) => f.endsWith(".go") && !f.endsWith("_test.go"))
    .map((f) => readFileSync(join(flowjob, f), "utf8"))
    .join("\n");
  // The value of a Go constant declared as `Name = "text"` or `Name = 123`.
  const goConst = (name: string): string => {
    const m = new RegExp(`\\b${name}\\s*=\\s*(.+)`).exec(goSource);
    assert.ok(m, `flowjob declares ${name}`);
    return m[1]!.trim().replace(/\s*\/\/.*$/, "");
  };
  // A Go string constant: a literal, or literals and other constants joined
  // with "+".
  const goString = (name: string): string =>
    goConst(name)
      .split("+")
      .map((part) => part.trim())
      .map((part) => (part.startsWith('"') ? (JSON.parse(part) as string) : goString(part)))
      .join("");

  test("subjects, streams, headers and version", () => {
    assert.equal(jobsSubject(), `${goString("JobsSubjectPrefix")}.execute`);
    assert.equal(goConst("JobsSubject"), 'JobsSubjectPrefix + ".execute"');
    assert.equal(resultsSubjectPrefix(), goString("ResultsSubjectPrefix"));
    assert.equal(`${DEFAULT_SUBJECT_PREFIX}.jobs`, goString("JobsSubjectPrefix"));
    assert.equal(DEFAULT_RESULTS_STREAM, goString("DefaultResultsStream"));
    assert.equal(HEADER_MSG_ID, goString("HeaderMsgID"));
    assert.equal(HEADER_REPLY_TO, goString("HeaderReplyTo"));
    assert.equal(HEADER_VERSION, goString("HeaderVersion"));
    assert.equal(HEADER_TRACEPARENT, goString("HeaderTraceParent"));
    assert.equal(HEADER_TRACESTATE, goString("HeaderTraceState"));
    assert.equal(String(CONTRACT_VERSION), goConst("ContractVersion"));
  });

  test("the byte caps the schema cannot say", () => {
    // Go writes them as expressions such as 256 << 10 or jsident.MaxLen.
    const value = (expr: string): number => {
      const e = expr.replace("jsident.MaxLen", "128").replace("MaxJobBytes", String(LIMITS.maxJobBytes));
      assert.match(e, /^[\d\s<()+*]+$/, `a plain expression: ${expr}`);
      return Function(`"use strict"; return (${e})`)() as number;
    };
    const pairs: [keyof typeof LIMITS, string][] = [
      ["maxJobBytes", "MaxJobBytes"],
      ["maxIdBytes", "MaxIDBytes"],
      ["maxRefBytes", "MaxRefBytes"],
      ["maxSourceBytes", "MaxSourceBytes"],
      ["maxInputVariables", "MaxInputVariables"],
      ["maxInputNameBytes", "MaxInputNameBytes"],
      ["maxNameBytes", "MaxNameBytes"],
      ["maxErrorMessageBytes", "MaxErrorMessageBytes"],
      ["maxVariables", "MaxVariables"],
      ["maxVariablesBytes", "MaxVariablesBytes"],
      ["maxTokenBytes", "MaxTokenBytes"],
      ["maxResolutionNesting", "MaxResolutionNesting"],
    ];
    for (const [ts, go] of pairs) {
      assert.equal(LIMITS[ts], value(goConst(go)), `LIMITS.${ts} vs flowjob.${go}`);
    }
  });
});

describe("the Go golden files through the TypeScript validator", () => {
  test("job.golden.json and every valid_*.json are valid jobs", () => {
    const files = readdirSync(join(flowjob, "testdata", "jobs")).filter((f) => f.startsWith("valid_"));
    assert.ok(files.length >= 4);
    for (const f of ["../job.golden.json", ...files]) {
      const doc = readJSON(join(flowjob, "testdata", "jobs", f));
      assert.deepEqual(validateJob(doc), [], f);
      assert.ok(isJob(doc));
    }
  });

  test("every invalid_*.json is refused", () => {
    const files = readdirSync(join(flowjob, "testdata", "jobs")).filter((f) => f.startsWith("invalid_"));
    assert.ok(files.length >= 3);
    for (const f of files) {
      assert.notDeepEqual(validateJob(readJSON(join(flowjob, "testdata", "jobs", f))), [], f);
    }
  });

  test("result.golden.json is a valid result, and a broken one is not", () => {
    const golden = readJSON(join(flowjob, "testdata", "result.golden.json")) as Record<string, unknown>;
    assert.deepEqual(validateResult(golden), []);
    const { error: _, ...noError } = golden;
    assert.deepEqual(validateResult(noError), [{ field: "error", message: "required" }], "a failed result carries its error");
    assert.deepEqual(validateResult({ ...golden, directive: { type: "redirect" } }), [{ field: "directive.blockId", message: "required" }]);
    assert.deepEqual(validateResult({ ...golden, status: "succeeded" }), [{ field: "error", message: "only a failed result carries an error" }]);
  });
});

describe("validation messages name the field", () => {
  const valid = (): Job =>
    buildJob({
      id: "job-1",
      sessionId: "s",
      flowId: "f",
      blockId: "b",
      context: "flow",
      action: { source: "return x", inputVariables: [{ name: "x", value: "{{x}}" }], outputVariable: "o", onError: "continue" },
    });
  const errors = (mutate: (j: Record<string, any>) => void) => {
    const j = structuredClone(valid()) as Record<string, any>;
    mutate(j);
    return validateJob(j);
  };

  test("a valid job has none", () => {
    assert.deepEqual(validateJob(valid()), []);
  });

  test("variables given as a Map to buildJob: refused, not dropped", () => {
    const j = buildJob({ ...valid(), variables: new Map([["cpf", "1"]]) as unknown as Record<string, string> });
    assert.deepEqual(validateJob(j).map((e) => e.field), ["variables"]);
  });

  test("a deadline on a leap day of the years 0-99 is a day, as Go reads it", () => {
    for (const deadline of ["0000-02-29T00:00:00Z", "0004-02-29T10:00:00-03:00", "0096-02-29T00:00:00Z"]) {
      assert.deepEqual(validateJob({ ...valid(), deadline }), [], deadline);
    }
  });

  const cases: [string, (j: Record<string, any>) => void, { field: string; message: RegExp }[]][] = [
    ["a missing id", (j) => delete j["id"], [{ field: "id", message: /^required: a unique id/ }]],
    ["an id with a dot", (j) => (j["id"] = "a.b"), [{ field: "id", message: /letters A-Z a-z, digits, '-' and '_'.*"a\.b"/ }]],
    ["a wrong type", (j) => (j["sessionId"] = 7), [{ field: "sessionId", message: /^must be a string, got number$/ }]],
    ["an unknown member, misspelt", (j) => (j["action"]["OnError"] = "x"), [{ field: "action.OnError", message: /unknown field \(did you mean "onError"\?\)/ }]],
    ["an enum", (j) => (j["context"] = "bot"), [{ field: "context", message: /^must be "flow" or "tool", got "bot"$/ }]],
    ["an enum left blank", (j) => (j["context"] = ""), [{ field: "context", message: /^required: "flow" or "tool"$/ }]],
    ["a blank onError", (j) => (j["action"]["onError"] = ""), [{ field: "action.onError", message: /^required: "blocking" or "continue"$/ }]],
    ["a blank action type", (j) => (j["action"]["type"] = ""), [{ field: "action.type", message: /^required: "executeScript"$/ }]],
    ["a capability asked twice", (j) => { j["tenantId"] = "t"; j["capabilities"] = ["kv", "api", "kv"]; }, [{ field: "capabilities[2]", message: /^"kv" is already capabilities\[0\]$/ }]],
    ["a capability asked three times: each repeat, naming the first", (j) => { j["tenantId"] = "t"; j["capabilities"] = ["kv", "kv", "kv"]; }, [
      { field: "capabilities[1]", message: /^"kv" is already capabilities\[0\]$/ },
      { field: "capabilities[2]", message: /^"kv" is already capabilities\[0\]$/ },
    ]],
    ["a reserved input name", (j) => (j["action"]["inputVariables"][0]["name"] = "class"), [{ field: "action.inputVariables[0].name", message: /"class" is a reserved word/ }]],
    ["a non-identifier input name", (j) => (j["action"]["inputVariables"][0]["name"] = "2x"), [{ field: "action.inputVariables[0].name", message: /"2x" is not a JavaScript identifier/ }]],
    ["duplicate input names", (j) => j["action"]["inputVariables"].push({ name: "x", value: "" }), [{ field: "action.inputVariables[1].name", message: /already the name of action\.inputVariables\[0\]/ }]],
    ["a dotted variable name", (j) => (j["variables"] = { "contact.name": 3 }), [{ field: 'variables["contact.name"]', message: /must be a string, got number/ }]],
    ["variables in a Map", (j) => (j["variables"] = new Map([["cpf", "1"]])), [{ field: "variables", message: /^must be an object of strings, got a Map .*Object\.fromEntries/ }]],
    ["variables in a Set", (j) => (j["variables"] = new Set(["cpf"])), [{ field: "variables", message: /^must be an object of strings, got a Set/ }]],
    ["a deadline offset of 60 minutes, in flowjob's words", (j) => (j["deadline"] = "2026-01-01T00:00:00+00:60"), [{ field: "deadline", message: /: an offset's minutes run from 00 to 59$/ }]],
    ["a variable name with a lone surrogate: U+FFFD, as flowjob reads and quotes it", (j) => (j["variables"] = { "\uD800 x": 3 }), [{ field: 'variables["\uFFFD x"]', message: /must be a string/ }]],
    ["a long variable name: cut to 40 bytes, as flowjob cuts it", (j) => (j["variables"] = { ["contact." + "x".repeat(60)]: 3 }), [{ field: 'variables["contact.xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"…]', message: /must be a string/ }]],
    ["a variable name with controls: in Go's escapes, as flowjob writes it", (j) => (j["variables"] = { "a\u0001b\u2028\u0007": 3 }), [{ field: 'variables["a\\x01b\\u2028\\a"]', message: /must be a string/ }]],
    ["an empty variable name", (j) => (j["variables"] = { "": "x" }), [{ field: 'variables[""]', message: /must not be empty/ }]],
    ["a blank source", (j) => (j["action"]["source"] = " \n\t"), [{ field: "action.source", message: /^required: write a function execute/ }]],
    ["a blank outputVariable", (j) => (j["action"]["outputVariable"] = " "), [{ field: "action.outputVariable", message: /^is only white space, got " ": name the session variable to write$/ }]],
    ["a blank sessionId", (j) => (j["sessionId"] = "\u3000"), [{ field: "sessionId", message: /^is only white space, got ".*": send the id$/ }]],
    ["a blank tenantId", (j) => (j["tenantId"] = "\t"), [{ field: "tenantId", message: /^is only white space, got "\\t": send the id, or leave the field out$/ }]],
    ["a day the calendar lacks", (j) => (j["deadline"] = "2026-02-30T00:00:00Z"), [{ field: "deadline", message: /^must be an RFC 3339 time such as 2026-01-02T15:04:05Z, got "2026-02-30T00:00:00Z"$/ }]],
    ["a day the calendar lacks, in the year 100", (j) => (j["deadline"] = "0100-02-29T00:00:00Z"), [{ field: "deadline", message: /^must be an RFC 3339 time such as 2026-01-02T15:04:05Z, got "0100-02-29T00:00:00Z"$/ }]],
    ["a tenantId over the cap in bytes", (j) => (j["tenantId"] = "ア".repeat(86)), [{ field: "tenantId", message: /is 258 bytes, over the 256-byte limit/ }]],
    ["a timeout past 2^53", (j) => (j["timeoutMs"] = 1e19), [{ field: "timeoutMs", message: /is out of range/ }]],
    ["a template version without its template", (j) => (j["templateVersion"] = 2), [{ field: "templateVersion", message: /^needs templateId: name the template the version belongs to$/ }]],
    ["a template version with a blank template", (j) => { j["templateVersion"] = 2; j["templateId"] = ""; }, [{ field: "templateVersion", message: /^needs templateId/ }]],
    ["a resolution JSON cannot hold", (j) => (j["resume"] = { token: "t", resolution: () => 1 }), [{ field: "resume.resolution", message: /^must be JSON: a function has no JSON form$/ }]],
    ["a resolution that is a Map", (j) => (j["resume"] = { token: "t", resolution: { items: new Map([["a", 1]]) } }), [{ field: "resume.resolution", message: /^must be JSON: a Map is written as \{\}/ }]],
    ["a resolution holding NaN", (j) => (j["resume"] = { token: "t", resolution: [1, NaN] }), [{ field: "resume.resolution", message: /^must be JSON: NaN has no JSON form/ }]],
    ["a resolution holding a BigInt", (j) => (j["resume"] = { token: "t", resolution: { n: 1n } }), [{ field: "resume.resolution", message: /^must be JSON: a BigInt has no JSON form/ }]],
    ["a BigInt timeout", (j) => (j["timeoutMs"] = 10n), [{ field: "timeoutMs", message: /^must be a whole number, got bigint$/ }]],
    ["an input name that is not a string", (j) => (j["action"]["inputVariables"][0]["name"] = null), [{ field: "action.inputVariables[0].name", message: /^must be a string, got null$/ }]],
    ["an input name that is a number", (j) => (j["action"]["inputVariables"][0]["name"] = 5), [{ field: "action.inputVariables[0].name", message: /^must be a string, got number$/ }]],
    ["a token over the cap in bytes", (j) => (j["resume"] = { token: "ア".repeat(1366), resolution: true }), [{ field: "resume.token", message: /is 4098 bytes, over the 4096-byte limit/ }]],
    ["two variable names that differ only in a lone surrogate", (j) => (j["variables"] = { "\uD800": "a", "\uD801": "b" }), [{ field: 'variables["\uFFFD"]', message: /^duplicate variable$/ }]],
    ["a source under the cap in characters, over it in bytes", (j) => (j["action"]["source"] = "é".repeat(LIMITS.maxSourceBytes / 2 + 1)), [{ field: "action.source", message: /is 262146 bytes, over the 262144-byte limit/ }]],
    ["a redirect without its block", (j) => { j["action"]["onError"] = "blocking"; j["action"]["errorHandoff"] = false; }, [{ field: "defaultExceptionBlockId", message: /^required when context is "flow"/ }]],
    ["a newer contract", (j) => (j["version"] = 2), [{ field: "version", message: /contract version 2 is newer than this one \(1\)/ }]],
    ["a fraction", (j) => (j["timeoutMs"] = -1.5), [{ field: "timeoutMs", message: /^must be a whole number, got -1\.5$/ }]],
    ["a bad deadline", (j) => (j["deadline"] = "2026-02-30 10:00"), [{ field: "deadline", message: /RFC 3339/ }]],
  ];
  for (const [name, mutate, want] of cases) {
    test(name, () => {
      const got = errors(mutate);
      assert.equal(got.length, want.length, JSON.stringify(got));
      want.forEach((w, i) => {
        assert.equal(got[i]!.field, w.field, JSON.stringify(got));
        assert.match(got[i]!.message, w.message);
      });
    });
  }

  // The size caps and the reserved prefix in flowjob's own words: the Go
  // format string must be in flowjob (or jsident, which it quotes), and the
  // TypeScript message is that format with the job's values.
  describe("in flowjob's words: sizes in bytes of UTF-8, the $flowscript$ prefix", () => {
    const goSource = [
      ...readdirSync(flowjob).filter((f) => f.endsWith(".go") && !f.endsWith("_test.go")).map((f) => join(flowjob, f)),
      join(repoRoot(), "internal", "jsident", "jsident.go"),
    ]
      .map((f) => readFileSync(f, "utf8"))
      .join("\n");
    // Go's %d, %q (JSON quoting, for these ASCII values) and %s of a quote()d value.
    const sprintf = (format: string, ...args: (string | number)[]) =>
      format.replace(/%[dqs]/g, () => {
        const v = args.shift()!;
        return typeof v === "string" ? JSON.stringify(v) : String(v);
      });
    const ascii = (n: number) => "a".repeat(n);
    const cases: [string, (j: Record<string, any>) => void, string, string, (string | number)[]][] = [
      ["an input name that starts with $flowscript$", (j) => (j["action"]["inputVariables"][0]["name"] = "$flowscript$a"), "action.inputVariables[0].name",
        "%q starts with %q, which FlowScript keeps for its own names; choose another name", ["$flowscript$a", "$flowscript$"]],
      ["a reserved input name", (j) => (j["action"]["inputVariables"][0]["name"] = "execute"), "action.inputVariables[0].name",
        "%q is a reserved word in JavaScript or in FlowScript; choose another name", ["execute"]],
      ["a source over the cap in characters (ASCII)", (j) => (j["action"]["source"] = ascii(LIMITS.maxSourceBytes + 1)), "action.source",
        "is %d bytes, over the %d-byte limit: move data out of the script into input variables", [LIMITS.maxSourceBytes + 1, LIMITS.maxSourceBytes]],
      ["a source over the cap in characters, two bytes each", (j) => (j["action"]["source"] = "é".repeat(LIMITS.maxSourceBytes + 1)), "action.source",
        "is %d bytes, over the %d-byte limit: move data out of the script into input variables", [2 * (LIMITS.maxSourceBytes + 1), LIMITS.maxSourceBytes]],
      ["a source under the cap in characters, over it in bytes", (j) => (j["action"]["source"] = "é".repeat(LIMITS.maxSourceBytes / 2 + 1)), "action.source",
        "is %d bytes, over the %d-byte limit: move data out of the script into input variables", [LIMITS.maxSourceBytes + 2, LIMITS.maxSourceBytes]],
      ["a source with a lone surrogate (U+FFFD to Go: 3 bytes)", (j) => (j["action"]["source"] = "\uD800".repeat(Math.floor(LIMITS.maxSourceBytes / 3) + 1)), "action.source",
        "is %d bytes, over the %d-byte limit: move data out of the script into input variables", [3 * (Math.floor(LIMITS.maxSourceBytes / 3) + 1), LIMITS.maxSourceBytes]],
      ["a token over the cap in characters", (j) => (j["resume"] = { token: "é".repeat(4097), resolution: true }), "resume.token",
        "is %d bytes, over the %d-byte limit: pass the continuation as the executor gave it", [8194, 4096]],
      ["an errorMessage over the cap in characters", (j) => (j["action"]["errorMessage"] = "ã".repeat(4097)), "action.errorMessage",
        "is %d bytes, over the %d-byte limit", [8194, LIMITS.maxErrorMessageBytes]],
      ["a sessionId over the cap in characters", (j) => (j["sessionId"] = "ア".repeat(257)), "sessionId",
        "is %d bytes, over the %d-byte limit", [771, LIMITS.maxRefBytes]],
      ["an outputVariable over the cap in characters", (j) => (j["action"]["outputVariable"] = ascii(257)), "action.outputVariable",
        "is %d bytes, over the %d-byte limit", [257, LIMITS.maxNameBytes]],
      ["an input name over the cap in characters", (j) => (j["action"]["inputVariables"][0]["name"] = "é".repeat(129)), "action.inputVariables[0].name",
        "must be at most %d bytes, got %d", [LIMITS.maxInputNameBytes, 258]],
      ["an input name under the cap in characters, over it in bytes", (j) => (j["action"]["inputVariables"][0]["name"] = "é".repeat(65)), "action.inputVariables[0].name",
        "must be at most %d bytes, got %d", [LIMITS.maxInputNameBytes, 130]],
      ["a variable name over the cap in characters", (j) => (j["variables"] = { ["é".repeat(257)]: "v" }), `variables["${"é".repeat(20)}"…]`,
        "name is %d bytes, over the %d-byte limit", [514, LIMITS.maxNameBytes]],
    ];
    for (const [name, mutate, field, format, args] of cases) {
      test(name, () => {
        assert.ok(goSource.includes(JSON.stringify(format)), `flowjob or jsident says ${JSON.stringify(format)}`);
        assert.deepEqual(errors(mutate), [{ field, message: sprintf(format, ...args) }]);
      });
    }
  });

  // What flowjob.Decode answers for the same job on the wire, field and
  // message (checked against a Go program running Decode on these jobs),
  // with the format string each message comes from in flowjob's source.
  describe("as flowjob.Decode answers", () => {
    const goSource = readdirSync(flowjob)
      .filter((f) => f.endsWith(".go") && !f.endsWith("_test.go"))
      .map((f) => readFileSync(join(flowjob, f), "utf8"))
      .join("\n");
    const inGo = (format: string) => goSource.includes(JSON.stringify(format)) || goSource.includes("`" + format + "`");
    const rfc3339 = "must be an RFC 3339 time such as 2026-01-02T15:04:05Z, got";
    const redirect = 'required when context is "flow", action.onError is "blocking" and action.errorHandoff is false: the failure redirects there';
    const blocking = (j: Record<string, any>) => {
      j["action"]["onError"] = "blocking";
      j["action"]["errorHandoff"] = false;
    };
    const nested = (levels: number, open = "[", inner = "", close = "]") => JSON.parse(open.repeat(levels) + inner + close.repeat(levels)) as unknown;
    const nesting = "nests arrays and objects more than 500 levels deep: resume with a flatter resolution";
    const cases: [string, (j: Record<string, any>) => void, FieldError[], string][] = [
      ["a variable name with a lone surrogate, then the same name with U+FFFD", (j) => (j["variables"] = { "a\uD800": "1", "a\uFFFD": "2" }),
        [{ field: 'variables["a\uFFFD"]', message: "duplicate variable" }], "duplicate variable"],
      ["a variable name with U+FFFD, then the same name with a lone surrogate", (j) => (j["variables"] = { "a\uFFFD": "1", "a\uDC00": "2" }),
        [{ field: 'variables["a\uFFFD"]', message: "duplicate variable" }], "duplicate variable"],
      ["a resolution nested 500 deep", (j) => (j["resume"] = { token: "t", resolution: nested(500) }), [], "nests arrays and objects more than %d levels deep: resume with a flatter resolution"],
      ["a resolution of arrays nested 501 deep", (j) => (j["resume"] = { token: "t", resolution: nested(501) }),
        [{ field: "resume.resolution", message: nesting }], "nests arrays and objects more than %d levels deep: resume with a flatter resolution"],
      ["a resolution of objects nested 501 deep", (j) => (j["resume"] = { token: "t", resolution: nested(501, '{"a":', "1", "}") }),
        [{ field: "resume.resolution", message: nesting }], "nests arrays and objects more than %d levels deep: resume with a flatter resolution"],
      ["an input without its value", (j) => delete j["action"]["inputVariables"][0]["value"],
        [{ field: "action.inputVariables[0].value", message: 'required (it may be "")' }], 'required (it may be "")'],
      ["a resume without its resolution", (j) => (j["resume"] = { token: "t" }),
        [{ field: "resume.resolution", message: "required: the answer to the approval request (any JSON, null included)" }], "required: the answer to the approval request (any JSON, null included)"],
      ["a resume without its token", (j) => (j["resume"] = { resolution: true }),
        [{ field: "resume.token", message: "required: the continuation of the suspended job's result" }], "required: the continuation of the suspended job's result"],
      ["an empty variable name", (j) => (j["variables"] = { "": "x" }), [{ field: 'variables[""]', message: "a variable name must not be empty" }], "a variable name must not be empty"],
      ["a redirect without its block", blocking, [{ field: "defaultExceptionBlockId", message: redirect }], redirect],
      ["a redirect with a null block", (j) => { blocking(j); j["defaultExceptionBlockId"] = null; }, [{ field: "defaultExceptionBlockId", message: redirect }], redirect],
      ["a redirect with an empty block", (j) => { blocking(j); j["defaultExceptionBlockId"] = ""; }, [{ field: "defaultExceptionBlockId", message: redirect }], redirect],
      ["a day the calendar lacks", (j) => (j["deadline"] = "2026-02-30T00:00:00Z"),
        [{ field: "deadline", message: `${rfc3339} "2026-02-30T00:00:00Z"` }], "must be an RFC 3339 time such as 2026-01-02T15:04:05Z, got %s"],
      ["a deadline offset of +24:00", (j) => (j["deadline"] = "2030-01-01T00:00:00+24:00"),
        [{ field: "deadline", message: `${rfc3339} an offset of 24 hours: offsets run from -23:59 to +23:59` }],
        "must be an RFC 3339 time such as 2026-01-02T15:04:05Z, got an offset of %d hours: offsets run from -23:59 to +23:59"],
      ["a deadline offset of -24:30", (j) => (j["deadline"] = "2030-01-01T00:00:00-24:30"),
        [{ field: "deadline", message: `${rfc3339} an offset of -24 hours: offsets run from -23:59 to +23:59` }],
        "must be an RFC 3339 time such as 2026-01-02T15:04:05Z, got an offset of %d hours: offsets run from -23:59 to +23:59"],
      ["a deadline offset of +25:00 (Go's time.Parse refuses it)", (j) => (j["deadline"] = "2030-01-01T00:00:00+25:00"),
        [{ field: "deadline", message: `${rfc3339} "2030-01-01T00:00:00+25:00"` }], "must be an RFC 3339 time such as 2026-01-02T15:04:05Z, got %s"],
      ["a deadline offset of 61 minutes (Go's time.Parse refuses it)", (j) => (j["deadline"] = "2030-01-01T00:00:00+00:61"),
        [{ field: "deadline", message: `${rfc3339} "2030-01-01T00:00:00+00:61"` }], "must be an RFC 3339 time such as 2026-01-02T15:04:05Z, got %s"],
      ["a comma before the fraction", (j) => (j["deadline"] = "2030-01-01T00:00:00,5Z"),
        [{ field: "deadline", message: `${rfc3339} "2030-01-01T00:00:00,5Z": a fraction of a second follows a period, not a comma` }],
        "must be an RFC 3339 time such as 2026-01-02T15:04:05Z, got %s: a fraction of a second follows a period, not a comma"],
      ["an hour of one digit (Go's time.Parse takes it, Decode does not)", (j) => (j["deadline"] = "2030-01-01T5:00:00Z"),
        [{ field: "deadline", message: `${rfc3339} "2030-01-01T5:00:00Z": the hour takes two digits` }],
        "must be an RFC 3339 time such as 2026-01-02T15:04:05Z, got %s: the hour takes two digits"],
      ["a comma before the fraction of a day the calendar lacks", (j) => (j["deadline"] = "2030-02-30T00:00:00,5Z"),
        [{ field: "deadline", message: `${rfc3339} "2030-02-30T00:00:00,5Z"` }], "must be an RFC 3339 time such as 2026-01-02T15:04:05Z, got %s"],
      ["capabilities that are a string", (j) => (j["capabilities"] = "kv"), [{ field: "capabilities", message: "must be an array of strings, got string" }], "an array of strings"],
      ["variables that are an array", (j) => (j["variables"] = ["x"]), [{ field: "variables", message: "must be an object of strings, got array" }], "an object of strings"],
      ["a version past Go's int", (j) => (j["version"] = 1e20), [{ field: "version", message: "100000000000000000000 is out of range" }], "%s is out of range"],
      ["a timeout past Go's int", (j) => (j["timeoutMs"] = -1e19), [{ field: "timeoutMs", message: "-10000000000000000000 is out of range" }], "%s is out of range"],
      ["an id of 65 × é: 130 bytes, over the cap before any other rule", (j) => (j["id"] = "é".repeat(65)),
        [{ field: "id", message: "is 130 bytes, over the 128-byte limit" }], "is %d bytes, over the %d-byte limit"],
      ["an id with DEL", (j) => (j["id"] = "a\x7f"),
        [{ field: "id", message: `must contain only letters A-Z a-z, digits, '-' and '_' (it names the result subject), got "a\\x7f"` }],
        "must contain only letters A-Z a-z, digits, '-' and '_' (it names the result subject), got %s"],
      ["an id with a no-break space", (j) => (j["id"] = "a\u00a0b"),
        [{ field: "id", message: `must contain only letters A-Z a-z, digits, '-' and '_' (it names the result subject), got "a\\u00a0b"` }],
        "must contain only letters A-Z a-z, digits, '-' and '_' (it names the result subject), got %s"],
      ["an id with a control and a zero-width space", (j) => (j["id"] = "a\u0001\u200b"),
        [{ field: "id", message: `must contain only letters A-Z a-z, digits, '-' and '_' (it names the result subject), got "a\\x01\\u200b"` }],
        "must contain only letters A-Z a-z, digits, '-' and '_' (it names the result subject), got %s"],
      ["a context with DEL", (j) => (j["context"] = "flow\x7f"), [{ field: "context", message: 'must be "flow" or "tool", got "flow\\x7f"' }], 'must be "flow" or "tool", got %s'],
      ["a sessionId of a no-break space", (j) => (j["sessionId"] = "\u00a0"), [{ field: "sessionId", message: 'is only white space, got "\\u00a0": send the id' }], "is only white space, got %s: send the id"],
    ];
    for (const [name, mutate, want, format] of cases) {
      test(name, () => {
        assert.ok(inGo(format), `flowjob says ${JSON.stringify(format)}`);
        assert.deepEqual(errors(mutate), want);
      });
    }

    test("a job that is no object", () => {
      assert.ok(inGo("a job must be a JSON object, got %s"));
      for (const [v, kind] of [[[], "array"], [null, "null"], ["job", "string"], [7, "number"], [true, "boolean"]] as const) {
        assert.deepEqual(validateJob(v), [{ field: "", message: `a job must be a JSON object, got ${kind}` }], kind);
      }
    });

    test("a job over 1 MiB: only the job's size, not its variables' too", () => {
      const j = { ...valid(), variables: { big: "x".repeat(LIMITS.maxJobBytes) } };
      const size = Buffer.byteLength(JSON.stringify(j));
      assert.deepEqual(validateJob(j), [{ field: "", message: `job is ${size} bytes, over the 1048576-byte limit: move large data out of the job` }]);
    });

    test("a resolution nested 100,000 deep: the nesting, without overflowing the stack", () => {
      let deep: unknown = [];
      for (let i = 1; i < 100_000; i++) deep = [deep];
      assert.deepEqual(validateJob({ ...valid(), resume: { token: "t", resolution: deep } }), [{ field: "resume.resolution", message: nesting }]);
      // Deep in an object too, and past a shallower copy of the same value.
      const shared = nested(450);
      let under: unknown = shared;
      for (let i = 0; i < 49; i++) under = [under];
      // [shared, {a: under}]: 1 + 450 first, then 1 + 1 + 49 + 450.
      assert.deepEqual(validateJob({ ...valid(), resume: { token: "t", resolution: [shared, { a: under }] } }), [{ field: "resume.resolution", message: nesting }]);
      assert.deepEqual(validateJob({ ...valid(), resume: { token: "t", resolution: [shared, { a: (under as unknown[])[0] }] } }), []);
    });

    test("a resolution that contains itself: refused, not thrown", () => {
      const answer: Record<string, unknown> = { approved: true };
      answer["self"] = answer;
      assert.deepEqual(validateJob({ ...valid(), resume: { token: "t", resolution: answer } }), [
        { field: "resume.resolution", message: "must be JSON: it contains itself (a cycle), which cannot be encoded as JSON" },
      ]);
      // The same object twice, side by side, is no cycle.
      const twice = { a: 1 };
      assert.deepEqual(validateJob({ ...valid(), resume: { token: "t", resolution: [twice, twice] } }), []);
    });

    test("an undefined in a resolution's array: said with its article", () => {
      assert.deepEqual(errors((j) => (j["resume"] = { token: "t", resolution: [1, undefined] })), [
        { field: "resume.resolution", message: "must be JSON: an undefined has no JSON form" },
      ]);
    });
  });

  test("everything wrong at once is listed, up to the cap", () => {
    assert.deepEqual(validateJob(null), [{ field: "", message: "a job must be a JSON object, got null" }]);
    const got = validateJob({});
    assert.deepEqual(
      got.map((e) => e.field),
      ["id", "sessionId", "flowId", "blockId", "context", "action"],
    );
    const many = validateJob({ ...valid(), variables: Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`v${i}`, i])) });
    assert.equal(many.length, 51);
    assert.deepEqual(many[50], { field: "", message: "30 more problems not listed" });
  });

  test("assertValidJob throws a JobValidationError that knows its fields", () => {
    assert.throws(
      () => assertValidJob({ ...valid(), context: "bot", action: { ...valid().action, onError: "x" } }),
      (err: unknown) =>
        err instanceof JobValidationError &&
        err.has("context") &&
        err.has("action") &&
        !err.has("id") &&
        err.message === 'invalid job: context: must be "flow" or "tool", got "bot"; action.onError: must be "blocking" or "continue", got "x"',
    );
    // Past the cap the "more problems" line is not a problem of every
    // field: the problems it stands for count by their own fields.
    const inputs = Array.from({ length: 60 }, (_, i) => ({ name: `${i}x`, value: "" }));
    assert.throws(
      () => assertValidJob({ ...valid(), action: { ...valid().action, inputVariables: inputs }, variables: { v: 1 } }),
      (err: unknown) =>
        err instanceof JobValidationError &&
        err.errors.length === 51 &&
        err.has("action") &&
        err.has("variables") &&
        !err.has("id") &&
        !err.has("sessionId"),
    );
  });
});

describe("buildJob", () => {
  test("fills in the contract's defaults, in the contract's order", () => {
    const j = buildJob({
      sessionId: "s",
      flowId: "f",
      blockId: "b",
      context: "tool",
      action: { source: "return 1", outputVariable: "o", onError: "blocking" },
    });
    assert.match(j.id, /^[0-9a-f-]{36}$/);
    assert.deepEqual(Object.keys(j), ["version", "id", "sessionId", "flowId", "blockId", "context", "action", "variables"]);
    assert.deepEqual(j.action, { type: "executeScript", source: "return 1", inputVariables: [], outputVariable: "o", onError: "blocking" });
    assert.deepEqual(j.variables, {});
    assert.equal(j.version, CONTRACT_VERSION);
    assert.deepEqual(validateJob(j), []);
    assert.notEqual(newJobId(), newJobId());
  });

  test("copies the inputs and variables: a session that changes later does not change the job", () => {
    const session = { amount: "10" };
    const inputs = [{ name: "amount", value: "{{amount}}" }];
    const j = buildJob({
      sessionId: "s",
      flowId: "f",
      blockId: "b",
      context: "flow",
      variables: session,
      action: { source: "return amount", inputVariables: inputs, outputVariable: "o", onError: "blocking" },
    });
    session.amount = "99999";
    inputs[0]!.value = "{{other}}";
    assert.deepEqual(j.variables, { amount: "10" });
    assert.deepEqual(j.action.inputVariables, [{ name: "amount", value: "{{amount}}" }]);
  });
});

describe("resumeJob", () => {
  /** A job that asks for approval, with the step's fields fixed. */
  const asking = (init: Pick<JobInit, "action"> & Partial<JobInit>): Job =>
    buildJob({ sessionId: "s", flowId: "f", blockId: "b", context: "flow", tenantId: "acme", capabilities: ["approval"], ...init });

  test("the same step under a new id, with the continuation and the resolution", () => {
    const suspended = asking({
      id: "asks",
      action: { source: "return approval.request({message: 'ok?'})", outputVariable: "o", onError: "continue" },
    });
    const r = resumeJob(suspended, "payload.mac", { approved: true }, "asks-resumed");
    assert.equal(r.id, "asks-resumed");
    assert.deepEqual(r.resume, { token: "payload.mac", resolution: { approved: true } });
    assert.deepEqual({ ...r, id: suspended.id, resume: undefined }, { ...suspended, resume: undefined });
    assert.deepEqual(validateJob(r), []);
    assert.equal(resumeJob(suspended, "t", undefined).resume?.resolution, null);
    assert.notEqual(resumeJob(suspended, "t", 1).id, suspended.id);
  });

  test("its own copies, without the first run's deadline", () => {
    const suspended = asking({
      deadline: new Date(Date.now() + 3000).toISOString(),
      action: { source: "return approval.request()", inputVariables: [{ name: "n", value: "{{n}}" }], outputVariable: "o", onError: "continue" },
      variables: { n: "1" },
    });
    const r = resumeJob(suspended, "t", true);
    assert.equal("deadline" in r, false);
    assert.equal(typeof suspended.deadline, "string");
    suspended.capabilities![0] = "kv";
    suspended.variables!["n"] = "2";
    suspended.action.inputVariables![0]!.value = "changed";
    assert.deepEqual(r.capabilities, ["approval"]);
    assert.deepEqual(r.variables, { n: "1" });
    assert.deepEqual(r.action.inputVariables, [{ name: "n", value: "{{n}}" }]);
    const answer = { approved: true, who: "ana" };
    const r2 = resumeJob(suspended, "t", answer);
    answer.who = "changed after";
    assert.deepEqual(r2.resume?.resolution, { approved: true, who: "ana" }, "the resolution is the job's own copy");
  });

  test("a job whose inputVariables is null (as Go writes a job without inputs) resumes as valid as it was", () => {
    const suspended = asking({ action: { source: "return approval.request()", outputVariable: "o", onError: "continue" } });
    const wire = { ...suspended, action: { ...suspended.action, inputVariables: null } } as unknown as Job;
    assert.deepEqual(validateJob(wire), []);
    const r = resumeJob(wire, "t", true);
    assert.equal(r.action.inputVariables, null);
    assert.deepEqual(validateJob(r), []);
  });

  test("a resolution that contains itself, or nests 100,000 deep: kept as given, for validateJob to refuse, not thrown", () => {
    const suspended = asking({ action: { source: "return approval.request()", outputVariable: "o", onError: "continue" } });
    const cyclic: Record<string, unknown> = { approved: true };
    cyclic["again"] = [cyclic];
    let deep: unknown = [];
    for (let i = 1; i < 100_000; i++) deep = [deep];
    for (const [resolution, message] of [
      [cyclic, "must be JSON: it contains itself (a cycle), which cannot be encoded as JSON"],
      [deep, "nests arrays and objects more than 500 levels deep: resume with a flatter resolution"],
    ] as const) {
      const r = resumeJob(suspended, "t", resolution);
      assert.equal(r.resume?.resolution, resolution);
      assert.deepEqual(validateJob(r), [{ field: "resume.resolution", message }]);
      assert.throws(() => assertValidJob(r), (err: unknown) => err instanceof JobValidationError && err.has("resume.resolution"));
    }
  });

  test("a resolution JSON would change is refused by the validator, not turned into null or {}", () => {
    const suspended = asking({ action: { source: "return approval.request()", outputVariable: "o", onError: "continue" } });
    for (const [resolution, why] of [
      [Number.NaN, /NaN has no JSON form/],
      [{ total: Number.POSITIVE_INFINITY }, /Infinity has no JSON form/],
      [new Map([["a", 1]]), /a Map is written as \{\}/],
      [[1, new Set([2])], /a Set is written as \{\}/],
      [() => 1, /a function has no JSON form/],
      [10n, /a BigInt has no JSON form/],
    ] as const) {
      const r = resumeJob(suspended, "t", resolution);
      const errors = validateJob(r);
      assert.equal(errors.length, 1, `${String(resolution)}: ${JSON.stringify(errors)}`);
      assert.equal(errors[0]!.field, "resume.resolution");
      assert.match(errors[0]!.message, why);
    }
  });
});

