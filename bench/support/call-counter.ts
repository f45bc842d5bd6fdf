/**
 * Counts calls into Durable Object methods without touching the platform's code: conditional
 * breakpoints, set through the V8 inspector on the first line of each method in wrangler's
 * bundle, that log the method's name and never pause. Counting slows those methods down, so
 * nothing is timed while a counter is attached.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Platform } from "../../test/e2e/support/platform";
import { DevToolsSession } from "./cdp";

const LOG_TAG = "bench:call";

/** Counted classes: every public method of the first, only the named ones of the others. */
export interface CountedClass {
  name: string;
  methods: "all" | readonly string[];
}

/**
 * The bundle wrangler built for the running process (the newest, after restarts), named after
 * the entry module, with its source map beside it.
 */
export function bundlePath(platform: Platform): string {
  const tmp = join(platform.root, ".wrangler", "tmp");
  const builds = readdirSync(tmp)
    .filter((dir) => dir.startsWith("dev-"))
    .flatMap((dir) =>
      readdirSync(join(tmp, dir))
        .filter((file) => file.endsWith(".js.map"))
        .map((map) => join(tmp, dir, map.slice(0, -".map".length))),
    )
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  if (!builds[0]) throw new Error(`no bundle under ${tmp}`);
  return builds[0];
}

/**
 * Pure: the 0-based line of each method of `className` in esbuild's output, which writes a
 * class as `var Name = class …{` (or `var Name2 = …` when renamed) with its methods two spaces
 * in and `};` at the end.
 */
export function methodLines(source: string, counted: CountedClass): Map<string, number> {
  const lines = source.split("\n");
  // esbuild renames a class whose name another module of the bundle also declares (`TenantIndex2`).
  const declaration = new RegExp(`^var ${counted.name}\\d* = class `);
  const start = lines.findIndex((line) => declaration.test(line));
  if (start < 0) throw new Error(`class ${counted.name} not found in the bundle`);
  const found = new Map<string, number>();
  for (let i = start + 1; i < lines.length && !lines[i]!.startsWith("};"); i++) {
    const name = /^ {2}(?:async )?([A-Za-z_$][\w$]*)\(/.exec(lines[i]!)?.[1];
    if (!name || name === "constructor") continue;
    if (counted.methods === "all" || counted.methods.includes(name)) found.set(`${counted.name}.${name}`, i);
  }
  return found;
}

export class CallCounter {
  readonly #counts = new Map<string, number>();

  private constructor(private readonly session: DevToolsSession) {
    session.on("Runtime.consoleAPICalled", (event) => {
      const args = (event.args as { value?: unknown }[] | undefined)?.map((arg) => arg.value);
      if (args?.[0] !== LOG_TAG || typeof args[1] !== "string") return;
      this.#counts.set(args[1], (this.#counts.get(args[1]) ?? 0) + 1);
    });
  }

  static async attach(platform: Platform, classes: readonly CountedClass[]): Promise<CallCounter> {
    const path = bundlePath(platform);
    const source = readFileSync(path, "utf8");
    const session = await DevToolsSession.connect(platform.inspectorUrl);
    const counter = new CallCounter(session);
    await session.send("Runtime.enable");
    await session.send("Debugger.enable");
    for (const counted of classes) {
      for (const [name, line] of methodLines(source, counted)) {
        const set = await session.send<{ locations: unknown[] }>("Debugger.setBreakpointByUrl", {
          url: pathToFileURL(path).href,
          lineNumber: line,
          condition: `console.debug(${JSON.stringify(LOG_TAG)}, ${JSON.stringify(name)}), false`,
        });
        if (set.locations.length === 0) throw new Error(`could not set a counting breakpoint in ${name}`);
      }
    }
    return counter;
  }

  /** Calls so far, by `Class.method`. */
  snapshot(): Map<string, number> {
    return new Map(this.#counts);
  }

  async detach(): Promise<void> {
    await this.session.send("Debugger.disable");
    this.session.close();
  }
}

/** Calls between two snapshots, by `Class.method`; methods not called are left out. */
export function callsBetween(before: Map<string, number>, after: Map<string, number>): Map<string, number> {
  const diff = new Map<string, number>();
  for (const [name, count] of after) {
    const delta = count - (before.get(name) ?? 0);
    if (delta > 0) diff.set(name, delta);
  }
  return diff;
}
