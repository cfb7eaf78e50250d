// Package actions holds the executeScript rules an executor applies around
// the sandbox: it interpolates a job's inputs into a sandbox request
// (Request, Interpolate) and turns the job and what its delivery came to
// (a Report: the sandbox's run, or a failure that is not the script's)
// into the one Verdict per delivery (Policy.Decide): the result event the
// engine acts on, and whether the job is dead-lettered.
// Engines only apply the directive; the rules of DESIGN.md §4 live here.
//
// It must never know about transport (NATS, HTTP), never run a script, and
// never guess: a job it cannot read faithfully gets the safe directive below.
//
// # Interpolation
//
// {{name}} is replaced by the job's variable of that name, "" when there is
// none. Spaces inside the braces are allowed ({{ contact.name }}); dotted
// names are plain keys. The template grammar is flowjob.TemplateParts, the
// one Validate also uses: a reference is "{{", optional white space, a name
// of characters other than braces and white space, optional white space,
// "}}"; anything else ("{{", "}}", "{{ }}", "{{a b}}") is literal text, and
// "{{{a}}}" reads as "{", a, "}". Interpolation is one pass: a value that
// contains {{x}}, or text that only becomes {{x}} once values are in place,
// stays literal. Values are data, not code: they reach the script as string
// arguments, so nothing needs escaping.
//
// # The error policy (DESIGN.md §4, seed 000 "Tratamento de erros")
//
// Success writes the output to outputVariable and continues, in every mode.
// On failure, the mode decides (see Mode):
//
//   - continue (flow or Tool): outputVariable = "", errorVariable = the
//     error's message, directive continue.
//   - flow, blocking, errorHandoff absent/true: directive freeze_handoff; its
//     message is errorMessage interpolated, or the default.
//   - flow, blocking, errorHandoff false: directive redirect to
//     defaultExceptionBlockId, with the same message.
//   - Tool, blocking: directive throw with the error's message; no
//     variables, no freeze.
//
// In both flow blocking paths errorVariable, when set, also receives the
// error's message, and errorMessage is interpolated with it in place, so
// "Falhou: {{erro}}" with errorVariable "erro" resolves. When errorVariable
// and outputVariable are the same name, the error message wins (the seed
// writes outputVariable first). An errorMessage that interpolates to blank
// text gives way to the default, so a contact never receives an empty
// message. Messages are cut to flowjob.MaxErrorMessageBytes ("…" marks a cut).
//
// The default message is Policy.DefaultErrorMessage, or DefaultErrorMessage
// ("Desculpe, ocorreu um erro ao processar sua solicitação.") when unset. It
// is sent as is (not interpolated).
//
// # Bad input
//
// A job that breaks the contract (Decide with BadInput) gets a failed
// result with code INVALID_JOB when it carries a usable job id — or, with
// FallbackID, when the message's Nats-Msg-Id is one — so that no engine
// waits out its own timeout; the session id is included when it is usable.
// The directive follows the same policy as far as the fields it reads are
// valid: a continue job with a valid outputVariable still continues, whatever
// its context (continue does not depend on it; the result's context is
// then empty, as the job's was not one of flow and tool); a flow
// job redirects only when errorHandoff is false and
// defaultExceptionBlockId is valid. When the action is unusable for its
// mode (unknown onError, a broken outputVariable in continue, an unknown
// context) the safe directive is throw in a Tool and freeze_handoff
// otherwise: a human looks at the session, and nothing is guessed. A broken
// errorMessage gives way to the default message; a broken errorVariable is
// not written.
//
// # Dead letters
//
// The verdict asks for a dead letter when the job must never run again:
// INVALID_JOB (bad input, including a source or inputs over this
// executor's caps), DELIVERY_EXHAUSTED (out of attempts) and SANDBOX_CRASH
// (a job that crashed its sandbox worker every time it ran).
package actions
