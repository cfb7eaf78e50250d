// The isolated-vm side of the peer benchmark. bench/peer/main.go starts it
// and sends one JSON request per line:
//   {"mode": "reused" | "fresh" | "reused-sync", "name", "source", "inputName", "input", "seconds", "lanes"}
// and it answers each with one line: {"runs", "seconds", "output"} or {"error"}.
//
// reused: one isolate per lane (lanes run concurrently, as the executor's
// workers do), the script compiled once per isolate, a fresh context per run
// (a run must not see another's globals). fresh: a new isolate per run, as the
// seed's engine does. Both with the seed's limits: 32 MB per isolate, a
// 5 s timeout per run.
"use strict";
const ivm = require("isolated-vm");
const readline = require("readline");

const MEMORY_MB = 32;
const TIMEOUT_MS = 5000;

function wrap(source, inputName) {
  // The body format: the source is a function body with the input as its
  // parameter; the result comes out as a string.
  return "(function (" + inputName + ") {\n" + source + "\n})(globalThis.__input)";
}

async function runOnce(isolate, script, input) {
  const context = await isolate.createContext();
  try {
    await context.global.set("__input", input);
    return await script.run(context, { timeout: TIMEOUT_MS });
  } finally {
    context.release();
  }
}

async function reusedLane(req, deadline) {
  const isolate = new ivm.Isolate({ memoryLimit: MEMORY_MB });
  try {
    const script = await isolate.compileScript(wrap(req.source, req.inputName));
    let runs = 0, output;
    while (performance.now() < deadline || runs === 0) {
      output = await runOnce(isolate, script, req.input);
      runs++;
    }
    return { runs, output };
  } finally {
    isolate.dispose();
  }
}

async function freshLane(req, deadline) {
  const code = wrap(req.source, req.inputName);
  let runs = 0, output;
  while (performance.now() < deadline || runs === 0) {
    const isolate = new ivm.Isolate({ memoryLimit: MEMORY_MB });
    try {
      const script = await isolate.compileScript(code);
      output = await runOnce(isolate, script, req.input);
    } finally {
      isolate.dispose();
    }
    runs++;
  }
  return { runs, output };
}

// reused-sync: one reused isolate driven with the synchronous API on Node's
// main thread: no hop to isolated-vm's threads per call, but one core.
function syncLane(req, deadline) {
  const isolate = new ivm.Isolate({ memoryLimit: MEMORY_MB });
  try {
    const script = isolate.compileScriptSync(wrap(req.source, req.inputName));
    let runs = 0, output;
    while (performance.now() < deadline || runs === 0) {
      const context = isolate.createContextSync();
      try {
        context.global.setSync("__input", req.input);
        output = script.runSync(context, { timeout: TIMEOUT_MS });
      } finally {
        context.release();
      }
      runs++;
    }
    return { runs, output };
  } finally {
    isolate.dispose();
  }
}

async function measure(req) {
  if (req.mode === "reused-sync") {
    const start = performance.now();
    const r = syncLane(req, start + req.seconds * 1000);
    return { runs: r.runs, seconds: (performance.now() - start) / 1000, output: String(r.output) };
  }
  const lane = req.mode === "fresh" ? freshLane : reusedLane;
  const start = performance.now();
  const deadline = start + req.seconds * 1000;
  const lanes = await Promise.all(Array.from({ length: req.lanes }, () => lane(req, deadline)));
  const seconds = (performance.now() - start) / 1000;
  return { runs: lanes.reduce((n, l) => n + l.runs, 0), seconds, output: String(lanes[0].output) };
}

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
let queue = Promise.resolve();
rl.on("line", (line) => {
  queue = queue.then(async () => {
    let reply;
    try {
      reply = await measure(JSON.parse(line));
    } catch (e) {
      reply = { error: String(e && e.stack || e) };
    }
    process.stdout.write(JSON.stringify(reply) + "\n");
  });
});
rl.on("close", () => queue.then(() => process.exit(0)));
