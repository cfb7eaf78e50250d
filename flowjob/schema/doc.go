// Package schema holds the JSON Schema (draft 2020-12) of flowjob's wire
// contract: job.schema.json for the executeScript job an engine publishes
// and result.schema.json for the result event an executor publishes back.
// Engines written in other languages validate and generate types from them
// (clients/typescript does); the templates API may serve them beside its
// OpenAPI document.
//
// The files are the contract as flowjob's Go types and Decode define it,
// and the tests of this package hold them to it: every JSON field of Job,
// ExecuteScriptAction, InputVariable, Result, Directive and Error, the
// types, the required fields, the enums and caps, and, for jobs, the same
// accept-or-refuse answer as flowjob.Decode on the golden files and on
// mutations of them. A change to flowjob that the schema does not follow
// fails them.
//
// What a schema cannot say is checked in code only: byte sizes (maxLength
// counts characters, so it is a ceiling that refuses nothing Decode
// accepts), unique input names, the interpolated size of the inputs and the
// size of the whole job. So a job the schema refuses is refused by the
// executor too, but for input names, whose pattern approximates the
// ECMAScript identifier rules (Unicode ID_Start and ID_Continue) the
// executor follows; one it accepts may still be refused by
// flowjob.Validate.
//
// It must stay importable by engines: the standard library only (embed),
// no validator (tests use one), no logic beyond handing out the files.
package schema
