/**
 * The built-in `run_code` tool: JavaScript the model writes, run as the body of an async
 * function, deployed in a Dynamic Worker under a CPU limit of its own (../sandbox/child-isolate.ts),
 * locally in a sandboxed interpreter (../sandbox/run-js.ts). The result is JSON: the returned
 * value and the console output, or the error and the console output so far.
 */
import { type ChildLimits, runInChildIsolate } from "../sandbox/child-isolate";
import { runJavaScript, type SandboxLimits, type SandboxOutcome } from "../sandbox/run-js";
import type { Tool } from "../tool";
import { RUN_CODE_INTERPRETER_TIMEOUT_MS } from "../../../../limits";

export { RUN_CODE_INTERPRETER_TIMEOUT_MS };

/** Longer code is a program to deploy, not a calculation to run. */
export const RUN_CODE_MAX_CODE_CHARS = 100_000;
/** The wall-clock limit of a run in a Dynamic Worker, which the CPU limit below normally ends first. */
export const RUN_CODE_TIMEOUT_MS = 2_000;

/**
 * The work limit, which holds everywhere, production included, where the clock does not move
 * while code runs: interrupt checks, each about 10,000 interpreter operations. Measured on the
 * development machine (2 shared cores, under load), 2,000 checks take 0.2 s to 0.4 s for loops
 * of arithmetic and calls, about 1.2 s for a backtracking regular expression and up to 4 s for
 * code that allocates objects in a loop. See docs/tools.md on what bounds built-in calls.
 */
export const RUN_CODE_MAX_WORK = 2_000;
/**
 * The interpreter's heap; its WebAssembly memory has a hard ceiling above it (quickjs.ts). It
 * bounds one string, not the work of a built-in call, which the work limit cannot see (the
 * interpreter checks between operations): string searches are bounded below; docs/tools.md
 * says what is not.
 */
export const RUN_CODE_HEAP_BYTES = 8 * 1024 * 1024;
export const RUN_CODE_STACK_BYTES = 512 * 1024;
/**
 * The largest string search (haystack × needle characters) left to the interpreter's naive
 * native search: about 2 ns a comparison, so at most about 4 ms that no check interrupts. A
 * larger one runs a linear search the work limit counts (sandbox/string-search.ts).
 */
export const RUN_CODE_NATIVE_SEARCH_WORK = 2_000_000;
/**
 * Native work inside built-ins that counts as one interrupt check of `RUN_CODE_MAX_WORK`: an array
 * built-in visiting a missing element takes about 60 ns (the worst case; a present one about
 * 2 ns), so 4,000 of them are about the 0.2 ms of a check and a run's native work stays within
 * what its interpreted work may take. Measured on the development machine.
 */
export const RUN_CODE_NATIVE_UNITS_PER_CHECK = 4_000;
/** Character comparisons of a native string search per unit: about 2 ns each, 32 of them are one missing element's 60 ns. */
export const RUN_CODE_SEARCH_COMPARISONS_PER_UNIT = 32;
/**
 * The CPU time of a run in a Dynamic Worker (production), enforced by the runtime inside any
 * built-in call: the most another tenant's request can wait on one run if the child shares its
 * thread. Far more computation than the interpreter's work limit allows, since V8 compiles it.
 */
export const RUN_CODE_CPU_MS = 300;
/** A result's JSON text kept from a Dynamic Worker before the tenant's own output limit cuts it. */
export const RUN_CODE_MAX_RESULT_CHARS = 1_000_000;
/** Console characters kept before the tenant's own output limit cuts the whole result. */
export const RUN_CODE_MAX_CONSOLE_CHARS = 64 * 1024;

export const RUN_CODE_DEFINITION = {
  name: "run_code",
  description:
    "Run JavaScript and get back its console output and its return value as JSON. The code is the body of an async " +
    "function: use `return` for the result and `console.log` for output; `await` works on promises the code creates. " +
    "Only the language's built-ins exist: no network (no fetch), no timers, no modules, no files. Each call starts " +
    `from nothing (no state is kept between calls) and is stopped when it computes too long (${RUN_CODE_TIMEOUT_MS / 1000} ` +
    `seconds at most, less where CPU time is counted) or uses too much memory (${RUN_CODE_HEAP_BYTES / (1024 * 1024)} MiB at least).`,
  input_schema: {
    type: "object",
    properties: {
      code: { type: "string", minLength: 1, maxLength: RUN_CODE_MAX_CODE_CHARS, description: "JavaScript, the body of an async function." },
    },
    required: ["code"],
    additionalProperties: false,
  },
};

export function runCodeLimits(maxOutputChars: number): SandboxLimits {
  return {
    timeoutMs: RUN_CODE_INTERPRETER_TIMEOUT_MS,
    maxWork: RUN_CODE_MAX_WORK,
    heapBytes: RUN_CODE_HEAP_BYTES,
    stackBytes: RUN_CODE_STACK_BYTES,
    outputChars: Math.min(maxOutputChars, RUN_CODE_MAX_CONSOLE_CHARS),
    nativeSearchWork: RUN_CODE_NATIVE_SEARCH_WORK,
    nativeUnitsPerCheck: RUN_CODE_NATIVE_UNITS_PER_CHECK,
    searchComparisonsPerUnit: RUN_CODE_SEARCH_COMPARISONS_PER_UNIT,
  };
}

export function runCodeChildLimits(maxOutputChars: number): ChildLimits {
  return {
    cpuMs: RUN_CODE_CPU_MS,
    timeoutMs: RUN_CODE_TIMEOUT_MS,
    outputChars: Math.min(maxOutputChars, RUN_CODE_MAX_CONSOLE_CHARS),
    resultChars: RUN_CODE_MAX_RESULT_CHARS,
  };
}

/** The text the model sees: one JSON object, with the console output always included. */
export function formatOutcome(outcome: SandboxOutcome): { output: string; isError: boolean } {
  const consoleText = outcome.consoleCut ? `${outcome.console}\n[console output cut]` : outcome.console;
  if (!outcome.ok) return { output: `{"error":${JSON.stringify(outcome.error)},"console":${JSON.stringify(consoleText)}}`, isError: true };
  // The result is already JSON text, made inside the interpreter; it is placed as it is.
  return { output: `{"result":${outcome.resultJson ?? "null"},"console":${JSON.stringify(consoleText)}}`, isError: false };
}

export const runCodeTool: Tool = {
  kind: "builtin",
  requiresApproval: false,
  // Pure: nothing outside the interpreter changes, so a run cut off by a restart runs again.
  atMostOnce: false,
  definition: RUN_CODE_DEFINITION,
  async run(input, ctx) {
    const code = (input as { code?: unknown } | null)?.code;
    if (typeof code !== "string") return { output: "invalid input: code must be a string", isError: true };
    const outcome = ctx.codeLoader
      ? await runInChildIsolate(ctx.codeLoader, code, runCodeChildLimits(ctx.maxOutputChars))
      : await runJavaScript(code, runCodeLimits(ctx.maxOutputChars));
    // A run holds the isolate for as long as it computes: let other requests in before going on.
    await scheduler.wait(0);
    return formatOutcome(outcome);
  },
};
