import { randomUUID } from "node:crypto";

import { CONTRACT_VERSION, LIMITS } from "./contract.js";
import { ACTION_TYPE_EXECUTE_SCRIPT, FIELDS, type ExecuteScriptAction, type Job } from "./types.js";
import { inspectJSON } from "./validate.js";

/** A new job id: a UUID (letters, digits and '-', as the contract wants). */
export function newJobId(): string {
  return randomUUID();
}

/** What buildJob needs; the rest has defaults. */
export type JobInit = Omit<Job, "id" | "version" | "action"> & {
  /** Default: newJobId(). */
  id?: string;
  action: Omit<ExecuteScriptAction, "type" | "inputVariables"> & {
    inputVariables?: ExecuteScriptAction["inputVariables"];
  };
};

/**
 * A job with the contract's defaults filled in: version, a new id,
 * action.type "executeScript", action.inputVariables [] and variables {}.
 * Members come in the contract's order (as the Go package writes them).
 * The inputs, variables and capabilities are copied: the job keeps the
 * values it was built with when the engine's session objects change later
 * (a resume must carry the inputs the job suspended with). It does not
 * validate: publishJob does, and validateJob tells why.
 */
export function buildJob(init: JobInit): Job {
  const inputs = init.action.inputVariables;
  const action = ordered(
    {
      type: ACTION_TYPE_EXECUTE_SCRIPT,
      ...init.action,
      inputVariables: Array.isArray(inputs) ? inputs.map((x) => (isPlain(x) ? { ...x } : x)) : (inputs ?? []),
    },
    FIELDS.action,
  );
  const vars = init.variables;
  return ordered(
    {
      version: CONTRACT_VERSION,
      ...init,
      id: init.id ?? newJobId(),
      action,
      variables: isPlain(vars) ? { ...vars } : (vars ?? {}),
      capabilities: Array.isArray(init.capabilities) ? [...init.capabilities] : init.capabilities,
    },
    FIELDS.job,
  ) as Job;
}

// isPlain: an object to copy member by member. A Map or a Set is kept as
// given, for validateJob to refuse (a copy would be {}, its entries lost).
function isPlain(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Map) && !(v instanceof Set);
}

// ordered copies v with the members of order first, in that order, and
// leaves out the undefined ones (JSON has no undefined).
function ordered<T extends object>(v: T, order: readonly string[]): T {
  const out: Record<string, unknown> = {};
  const src = v as Record<string, unknown>;
  for (const k of [...order, ...Object.keys(src)]) {
    if (!(k in out) && src[k] !== undefined) {
      out[k] = src[k];
    }
  }
  return out as T;
}

/**
 * The resume job of a job whose result was suspended (DESIGN.md §10): the
 * same step and source under a new id (default newJobId()), carrying the
 * result's continuation and the resolution approval.request returns on
 * replay. A continuation resumes once: retry a resume with the same id.
 *
 * The resume job has its own copies of the variables, inputs and
 * capabilities, and no deadline: the suspended job's was for its first run,
 * and an approval may come hours later (set one on the returned job if the
 * resume itself should have one).
 */
export function resumeJob(suspended: Job, continuation: string, resolution: unknown, id: string = newJobId()): Job {
  const { deadline: _firstRun, ...step } = suspended;
  return ordered(
    {
      ...step,
      action: {
        ...suspended.action,
        // null stays null (Go writes a job without inputs so): the job must
        // stay as valid as it was.
        inputVariables: Array.isArray(suspended.action.inputVariables)
          ? suspended.action.inputVariables.map((x) => ({ ...x }))
          : suspended.action.inputVariables,
      },
      variables: isPlain(suspended.variables) ? { ...suspended.variables } : suspended.variables,
      capabilities: Array.isArray(suspended.capabilities) ? [...suspended.capabilities] : suspended.capabilities,
      id,
      // The resolution as the wire will carry it, copied: a change to the
      // caller's object after this call does not change the job. One that
      // JSON would change (NaN, a Map, a function) or cannot write (a
      // cycle, a BigInt), or one nested deeper than the executor reads, is
      // kept as given, for validateJob and submit to refuse, not turned
      // into null or {} (nor thrown here).
      resume: { token: continuation, resolution: copyResolution(resolution) },
    },
    FIELDS.job,
  ) as Job;
}

function copyResolution(resolution: unknown): unknown {
  if (resolution === undefined) return null;
  // A cycle, or nesting deeper than the executor reads (JSON.stringify
  // would throw, or overflow the stack 100,000 levels down), is kept too.
  const { why, tooDeep } = inspectJSON(resolution, LIMITS.maxResolutionNesting);
  if (why || tooDeep) return resolution;
  try {
    return JSON.parse(JSON.stringify(resolution));
  } catch {
    return resolution; // a toJSON that throws: validateJob says so
  }
}
