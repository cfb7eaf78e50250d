// @flowscript/client: FlowScript's wire contract for flow engines in
// TypeScript. See README.md.
export * from "./types.js";
export * from "./contract.js";
export { buildJob, newJobId, resumeJob, type JobInit } from "./build.js";
export {
  validateJob,
  validateResult,
  assertValidJob,
  isJob,
  isResult,
  JobValidationError,
  MAX_FIELD_ERRORS,
  type FieldError,
} from "./validate.js";
export {
  publishJob,
  awaitResult,
  getResult,
  submit,
  ResultTimeoutError,
  ConnectionClosedError,
  PublishError,
  MaxPayloadError,
  MAX_TIMEOUT_MS,
  IdReusedError,
  type ContractOptions,
  type PublishOptions,
  type AwaitOptions,
  type SubmitOptions,
  type Published,
  type ReceivedResult,
} from "./client.js";
export { jobSchema, resultSchema } from "./generated/schemas.js";
