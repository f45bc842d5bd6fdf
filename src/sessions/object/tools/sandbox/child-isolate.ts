/**
 * Runs `run_code` in a Dynamic Worker (the Worker Loader binding): a new isolate per call, with
 * no outbound network, no bindings and a CPU limit that the runtime enforces inside any built-in
 * call. Why: inside the interpreter, work is checked between operations only, and one operation
 * on long strings is linear in them: 2,000 comparisons of two 3,000,000-character strings, written
 * out in the code, ran 15 s with no check at all. Only a CPU limit of the code's own bounds that.
 *
 * It holds in production only: the local runtime runs a child on its parent's thread and does not
 * enforce `cpuMs` (measured: a child told 100 ms spun 4 s, and a request to the parent waited
 * 3.9 s), so `wrangler dev` and tests keep the interpreter (run-js.ts). See docs/tools.md.
 */
import type { SandboxOutcome, SandboxStop } from "./run-js";

export interface ChildLimits {
  /** CPU time of the child, enforced by the runtime wherever the child is (production). */
  cpuMs: number;
  /** Wall-clock limit, for a run the runtime does not see as hung (it ends those itself). */
  timeoutMs: number;
  /** Console characters kept; the rest is dropped. */
  outputChars: number;
  /** Characters of the result's JSON text kept; a longer result is an error. */
  resultChars: number;
}

const COMPATIBILITY_DATE = "2026-11-01";

/**
 * The child's entry: reads the built-ins its answer is made with before the code is imported,
 * replaces `console`, removes timers and `fetch` (the interpreter has neither), then imports the
 * code and calls it. The code is a CommonJS module, so that it runs in sloppy mode as in the
 * interpreter; what it does at its top level happens after these reads.
 */
const RUNNER = `
const stringify = JSON.stringify, toText = String, Reply = Response, dynamicImport = (name) => import(name);
export default {
  async fetch(request, env) {
    let room = env.OUTPUT_CHARS, text = "", cut = false;
    const show = (value) => {
      if (typeof value === "string") return value;
      try { const json = stringify(value); return json === undefined ? toText(value) : json; } catch { try { return toText(value); } catch { return "[value]"; } }
    };
    const line = (prefix) => (...args) => {
      if (cut) return;
      let out = prefix;
      for (let i = 0; i < args.length; i++) out += (i > 0 ? " " : "") + show(args[i]);
      const next = text === "" ? out : text + "\\n" + out;
      if (next.length > room) { text = next.slice(0, room); cut = true; } else text = next;
    };
    globalThis.console = Object.freeze({ log: line(""), info: line(""), debug: line(""), warn: line("warn: "), error: line("error: ") });
    for (const name of ["fetch", "setTimeout", "setInterval", "clearTimeout", "clearInterval", "scheduler", "caches", "WebSocket", "EventSource"]) {
      // Shadowed, not deleted: most live on the global scope's prototype.
      try { Object.defineProperty(globalThis, name, { value: undefined, writable: true, configurable: true }); } catch {}
    }
    let answer;
    try {
      const code = await dynamicImport("./code.js");
      const value = await (code.default ?? code)();
      let json;
      if (value !== undefined) {
        try { json = stringify(value); } catch {}
        if (json === undefined) json = stringify(toText(value));
      }
      answer = { ok: true, result: json ?? null };
    } catch (error) {
      let name = "Error", message;
      try { name = typeof error?.name === "string" ? error.name : "Error"; message = error instanceof Error ? toText(error.message) : undefined; } catch {}
      answer = { ok: false, error: message === undefined ? "uncaught: " + show(error) : name + ": " + message };
    }
    return new Reply(stringify({ ...answer, console: text, consoleCut: cut }));
  },
};
`;

/** The code as the body of an async function, in a module of its own. */
const codeModule = (code: string) => `module.exports = async function () {\n${code}\n};\n`;

export async function runInChildIsolate(loader: WorkerLoader, code: string, limits: ChildLimits): Promise<SandboxOutcome> {
  const empty = { console: "", consoleCut: false };
  let reply: Response | "timed_out";
  try {
    const worker = loader.load({
      compatibilityDate: COMPATIBILITY_DATE,
      mainModule: "main.js",
      modules: { "main.js": RUNNER, "code.js": { cjs: codeModule(code) } },
      env: { OUTPUT_CHARS: limits.outputChars },
      // No network, not even through the platform: every subrequest fails.
      globalOutbound: null,
      limits: { cpuMs: limits.cpuMs, subRequests: 0 },
    });
    const entry = worker.getEntrypoint(undefined, { limits: { cpuMs: limits.cpuMs, subRequests: 0 } });
    const timer = new AbortController();
    reply = await Promise.race([
      entry.fetch("http://run-code/"),
      scheduler.wait(limits.timeoutMs, { signal: timer.signal }).then(() => "timed_out" as const),
    ]).finally(() => timer.abort());
  } catch (err) {
    return { ok: false, ...stopOf(err, limits), ...empty };
  }
  if (reply === "timed_out")
    return { ok: false, stop: "time_limit", error: `stopped: the code ran past its time limit (${limits.timeoutMs} ms)`, ...empty };
  return readAnswer(reply, limits);
}

/** How the runtime ended a child: its CPU limit, its memory, or code that could not load. */
function stopOf(err: unknown, limits: ChildLimits): { stop: SandboxStop; error: string } {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  // The runtime's word for a child whose promise can never settle (no timers or network here).
  if (/hung|never generate a response/i.test(text))
    return { stop: "never_settled", error: "the code awaited something that never settles (there are no timers or network here)" };
  if (/cpu/i.test(text)) return { stop: "time_limit", error: `stopped: the code used more than ${limits.cpuMs} ms of CPU time` };
  if (/memory/i.test(text)) return { stop: "memory_limit", error: "stopped: the code used more memory than it may" };
  if (err instanceof SyntaxError || /SyntaxError/.test(text)) return { stop: "exception", error: text.replace(/^Error: /, "") };
  return { stop: "interpreter_failed", error: `the code's isolate stopped: ${text}` };
}

/** The child's answer, read with a cap and checked for its shape: its text is the code's to shape. */
async function readAnswer(reply: Response, limits: ChildLimits): Promise<SandboxOutcome> {
  const cap = limits.resultChars + limits.outputChars + 1_024;
  const text = await readCapped(reply, cap);
  const fail = (error: string): SandboxOutcome => ({ ok: false, stop: "interpreter_failed", error, console: "", consoleCut: false });
  if (text === null) return fail(`stopped: the result is longer than ${limits.resultChars} characters`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return fail("the code's isolate gave no readable answer");
  }
  const answer = parsed as { ok?: unknown; result?: unknown; error?: unknown; console?: unknown; consoleCut?: unknown };
  if (typeof answer.console !== "string" || typeof answer.consoleCut !== "boolean")
    return fail("the code's isolate gave no readable answer");
  const view = {
    console: answer.console.slice(0, limits.outputChars),
    consoleCut: answer.consoleCut || answer.console.length > limits.outputChars,
  };
  if (answer.ok === true && (answer.result === null || typeof answer.result === "string")) {
    if (typeof answer.result === "string" && answer.result.length > limits.resultChars)
      return fail(`stopped: the result is longer than ${limits.resultChars} characters`);
    return { ok: true, resultJson: answer.result, ...view };
  }
  if (answer.ok === false && typeof answer.error === "string")
    return { ok: false, stop: "exception", error: answer.error.slice(0, 1_000), ...view };
  return fail("the code's isolate gave no readable answer");
}

/** The body as text, or null past `maxChars` (counted in UTF-16 units after decoding). */
async function readCapped(reply: Response, maxChars: number): Promise<string | null> {
  if (!reply.body) return "";
  const reader = reply.body.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text;
    text += value;
    if (text.length > maxChars) {
      await reader.cancel();
      return null;
    }
  }
}
