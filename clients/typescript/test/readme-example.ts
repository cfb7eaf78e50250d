// The README's quick start, type-checked by `npm run build:test` (not run:
// it expects an executor with the default names on 127.0.0.1:4222).
import { connect } from "nats";

import { buildJob, submit, JobValidationError, PublishError, ResultTimeoutError } from "@flowscript/client";

export async function quickStart(): Promise<void> {
  const nc = await connect({ servers: "127.0.0.1:4222" });

  const job = buildJob({
    sessionId: "session-42",
    flowId: "flow-onboarding",
    blockId: "block-cpf",
    context: "flow",
    action: {
      source: "function execute(cpf) { return String(cpf).replace(/\\D/g, '').length === 11 ? 'valido' : 'invalido' }",
      inputVariables: [{ name: "cpf", value: "{{cpf}}" }],
      outputVariable: "cpfStatus",
      onError: "blocking",
      errorMessage: "Não consegui validar seu CPF.",
      errorHandoff: false,
    },
    variables: { cpf: "123.456.789-09" },
    defaultExceptionBlockId: "block-exception",
  });

  try {
    const { result } = await submit(nc, job, { timeoutMs: 30_000 });
    switch (result.directive.type) {
      case "continue":
        break;
      case "freeze_handoff":
        break;
      case "redirect":
        break;
      case "throw":
        break;
    }
  } catch (err) {
    if (err instanceof JobValidationError) console.error(err.errors);
    else if (err instanceof PublishError) {
      /* not acknowledged: submit the same job (same id) again */
    } else if (err instanceof ResultTimeoutError) {
      /* the job stays queued: await it later by its id */
    } else throw err;
  } finally {
    await nc.close();
  }
}

// The repository README's TypeScript quick start.
export async function repositoryQuickStart(): Promise<string> {
  const nc = await connect({ servers: "127.0.0.1:4222" });
  const job = buildJob({ sessionId: "s-1", flowId: "f-1", blockId: "b-1", context: "flow",
    action: { source: "return nome.toUpperCase()", inputVariables: [{ name: "nome", value: "{{contact.name}}" }],
              outputVariable: "nomeMaiusculo", onError: "continue" },
    variables: { "contact.name": "maria" } });
  const { result } = await submit(nc, job, { timeoutMs: 30_000 });   // result.directive says what to do next
  await nc.close();
  return result.directive.type;
}
