/**
 * Runs JavaScript in a fresh QuickJS interpreter with nothing of the host in reach: no network,
 * no bindings, no timers, no modules; only the language's own built-ins and a `console` whose
 * lines are collected. Every run is bounded by an amount of work, a heap and a stack, and its
 * console output by a character cap; none of them can be lifted from inside.
 *
 * Why an amount of work rather than a clock alone: in production a Worker's clock does not move
 * while code runs without I/O, so a deadline read from `Date.now()` would never come. QuickJS
 * calls the interrupt handler about every 10,000 operations (loop iterations, calls, regex
 * steps), and the handler counts those calls; where the clock does move (wrangler dev, tests),
 * the wall-clock limit applies as well, whichever comes first.
 */
import type { QuickJSContext, QuickJSHandle } from "quickjs-emscripten-core";
import { newInterpreter } from "./quickjs";
import { ARRAY_GUARD } from "./array-guard";
import { STRING_SEARCH_GUARD } from "./string-search";
import { awaitTurn, noteRun } from "./turns";

export interface SandboxLimits {
  /** Wall-clock limit, where the clock moves while code runs. */
  timeoutMs: number;
  /** Interrupt checks allowed (each about 10,000 interpreter operations). */
  maxWork: number;
  /** The interpreter's heap. */
  heapBytes: number;
  stackBytes: number;
  /** Console characters kept; the rest is dropped. */
  outputChars: number;
  /** Character comparisons a string search may make natively, where no interrupt check reaches (string-search.ts). */
  nativeSearchWork: number;
  /**
   * Work done natively inside built-ins, where no interrupt check reaches, counted as one
   * interrupt check per this many units: an element an array built-in visits is a unit
   * (array-guard.ts), and `searchComparisonsPerUnit` character comparisons of a string search.
   */
  nativeUnitsPerCheck: number;
  searchComparisonsPerUnit: number;
}

export type SandboxStop = "exception" | "time_limit" | "memory_limit" | "never_settled" | "interpreter_failed";

export type SandboxOutcome =
  /** `resultJson`: the returned value as JSON text; null when the code returned nothing. */
  | { ok: true; resultJson: string | null; console: string; consoleCut: boolean }
  | { ok: false; stop: SandboxStop; error: string; console: string; consoleCut: boolean };

/**
 * Defines `console` with a host function it keeps in a closure (never a global), and a function
 * that turns any value into JSON text inside the interpreter, under the same limits.
 */
const PRELUDE = `(emit, room) => {
  // Read now, before the code runs: code that replaced JSON.stringify or String would otherwise
  // write the result's JSON text itself, and forge what the host places in the tool's output.
  const stringify = JSON.stringify;
  const toText = String;
  const show = (value) => {
    if (typeof value === "string") return value;
    try { const json = stringify(value); return json === undefined ? toText(value) : json; } catch { try { return toText(value); } catch { return "[value]"; } }
  };
  // Lines past the cap never reach the host: a host call costs far more than the interpreter's
  // own operations, which are what the work limit counts.
  const line = (prefix) => (...args) => {
    if (room < 0) return;
    let text = prefix;
    for (let i = 0; i < args.length; i++) text += (i > 0 ? " " : "") + show(args[i]);
    room -= text.length + 1;
    emit(text);
  };
  globalThis.console = Object.freeze({ log: line(""), info: line(""), debug: line(""), warn: line("warn: "), error: line("error: ") });
  return (value) => {
    if (value === undefined) return undefined;
    try { const json = stringify(value); if (json !== undefined) return json; } catch {}
    return stringify(toText(value));
  };
}`;

/** What the interrupted interpreter throws; code cannot catch it. */
const INTERRUPTED = "interrupted";

export async function runJavaScript(code: string, limits: SandboxLimits): Promise<SandboxOutcome> {
  await awaitTurn();
  const startedAt = Date.now();
  try {
    return await runNow(code, limits);
  } finally {
    noteRun(startedAt, Date.now());
  }
}

async function runNow(code: string, limits: SandboxLimits): Promise<SandboxOutcome> {
  const output = new ConsoleBuffer(limits.outputChars);
  let interpreter;
  try {
    interpreter = await newInterpreter();
  } catch (err) {
    return {
      ok: false,
      stop: "interpreter_failed",
      error: `the interpreter could not start: ${String(err)}`,
      console: "",
      consoleCut: false,
    };
  }
  const runtime = interpreter.newRuntime();
  runtime.setMemoryLimit(limits.heapBytes);
  runtime.setMaxStackSize(limits.stackBytes);
  let work = 0;
  let nativeUnits = 0;
  let outOfTime = false;
  const deadline = Date.now() + limits.timeoutMs;
  const over = () => work + nativeUnits / limits.nativeUnitsPerCheck > limits.maxWork || Date.now() > deadline;
  runtime.setInterruptHandler(() => {
    work++;
    if (over()) outOfTime = true;
    return outOfTime;
  });
  // Built-ins pay for their native work before they do it (array-guard.ts); one that does not fit is not made.
  const spend = (units: number): boolean => {
    if (!outOfTime) {
      nativeUnits += units;
      if (over()) outOfTime = true;
    }
    return outOfTime;
  };
  const context = runtime.newContext();
  // The instance is dropped whole after the run: handles are not freed one by one, since a run
  // cut off by a limit leaves objects behind that the runtime would refuse to free.
  try {
    const describe = setUp(context, output, limits, spend);
    const evaluated = context.evalCode(`(async () => {\n${code}\n})()`, "code.js");
    if (evaluated.error) return failure(context, evaluated.error, output, outOfTime);
    const promise = evaluated.value;
    for (;;) {
      const state = context.getPromiseState(promise);
      if (state.type === "fulfilled") return success(context, describe, state.value, output, outOfTime);
      if (state.type === "rejected") return failure(context, state.error, output, outOfTime);
      const jobs = runtime.executePendingJobs();
      if (jobs.error) return failure(context, jobs.error, output, outOfTime);
      if (jobs.value === 0 && context.getPromiseState(promise).type === "pending") {
        return {
          ok: false,
          stop: "never_settled",
          error: "the code awaited something that never settles (there are no timers or network here)",
          ...output.view(),
        };
      }
    }
  } catch (err) {
    // The instance itself failed (its memory ceiling, an abort): the run is over either way.
    if (outOfTime) return { ok: false, stop: "time_limit", error: timeLimitText(limits), ...output.view() };
    return {
      ok: false,
      stop: "interpreter_failed",
      error: `the interpreter stopped: ${err instanceof Error ? err.message : String(err)}`,
      ...output.view(),
    };
  }

  function failure(ctx: QuickJSContext, handle: QuickJSHandle, buffer: ConsoleBuffer, timedOut: boolean): SandboxOutcome {
    const text = errorText(ctx, handle);
    if (timedOut || text === `InternalError: ${INTERRUPTED}`)
      return { ok: false, stop: "time_limit", error: timeLimitText(limits), ...buffer.view() };
    if (/out of memory/i.test(text)) {
      return {
        ok: false,
        stop: "memory_limit",
        error: `stopped: the code used more than ${limits.heapBytes / (1024 * 1024)} MiB of memory`,
        ...buffer.view(),
      };
    }
    return { ok: false, stop: "exception", error: text, ...buffer.view() };
  }

  function success(
    ctx: QuickJSContext,
    describeFn: QuickJSHandle,
    value: QuickJSHandle,
    buffer: ConsoleBuffer,
    timedOut: boolean,
  ): SandboxOutcome {
    const described = ctx.callFunction(describeFn, ctx.undefined, value);
    if (described.error) return failure(ctx, described.error, buffer, timedOut);
    const json = ctx.typeof(described.value) === "string" ? ctx.getString(described.value) : null;
    return { ok: true, resultJson: json, ...buffer.view() };
  }
}

export function timeLimitText(limits: Pick<SandboxLimits, "timeoutMs">): string {
  return `stopped: the code ran past its time limit (${limits.timeoutMs} ms)`;
}

function setUp(context: QuickJSContext, output: ConsoleBuffer, limits: SandboxLimits, spend: (units: number) => boolean): QuickJSHandle {
  const paying = context.newFunction("spend", (units) => (spend(context.getNumber(units)) ? context.true : context.false));
  install(context, STRING_SEARCH_GUARD, "string-search.js", [
    context.newNumber(limits.nativeSearchWork),
    paying,
    context.newNumber(limits.searchComparisonsPerUnit),
  ]);
  install(context, ARRAY_GUARD, "array-guard.js", [paying]);
  const emit = context.newFunction("emit", (line) => {
    output.add(context.getString(line));
  });
  const prelude = context.evalCode(PRELUDE, "prelude.js");
  if (prelude.error) throw new Error(`the prelude failed: ${errorText(context, prelude.error)}`);
  const room = context.newNumber(output.maxChars + 1);
  const installed = context.callFunction(prelude.value, context.undefined, emit, room);
  if (installed.error) throw new Error(`the prelude failed: ${errorText(context, installed.error)}`);
  return installed.value;
}

/** Evaluates a guard's source (a function) and calls it with its arguments, before any of the code runs. */
function install(context: QuickJSContext, source: string, name: string, args: QuickJSHandle[]): void {
  const guard = context.evalCode(source, name);
  if (guard.error) throw new Error(`${name} failed: ${errorText(context, guard.error)}`);
  const installed = context.callFunction(guard.value, context.undefined, ...args);
  if (installed.error) throw new Error(`${name} failed: ${errorText(context, installed.error)}`);
}

/** `Name: message` of a thrown value, read without running any of the code's own getters twice. */
function errorText(context: QuickJSContext, handle: QuickJSHandle): string {
  const dumped: unknown = context.dump(handle);
  if (dumped && typeof dumped === "object" && "message" in dumped) {
    const { name, message } = dumped as { name?: unknown; message?: unknown };
    return `${typeof name === "string" ? name : "Error"}: ${String(message)}`;
  }
  return `uncaught: ${typeof dumped === "string" ? dumped : JSON.stringify(dumped)}`;
}

/** Console lines up to a character cap; what does not fit is dropped, and that is said. */
class ConsoleBuffer {
  #text = "";
  #cut = false;

  constructor(readonly maxChars: number) {}

  add(line: string): void {
    if (this.#cut) return;
    const next = this.#text === "" ? line : `${this.#text}\n${line}`;
    if (next.length > this.maxChars) {
      this.#text = next.slice(0, this.maxChars);
      this.#cut = true;
    } else {
      this.#text = next;
    }
  }

  view(): { console: string; consoleCut: boolean } {
    return { console: this.#text, consoleCut: this.#cut };
  }
}
