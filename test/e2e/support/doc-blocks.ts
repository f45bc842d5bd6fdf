/**
 * The shell examples of the README and `docs/`, as a reader runs them: every ```sh block of a
 * page, in order, in one bash (as pasted into one terminal), after the lines `npm start` printed.
 * A block the line before marks `<!-- not run -->` is prose (another machine, a deploy, a
 * command that never ends); other fences (`json`, `ts`, none) never run.
 */
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { PROJECT_ROOT } from "./environment";

export const NOT_RUN = "<!-- not run -->";
export const BLOCK_SEPARATOR = "----8<----";

/** The runnable blocks of `text`, from `from` (a heading) to the next heading of its level, or all of it. */
export function runnableBlocks(text: string, from?: string): string[] {
  let section = text;
  if (from !== undefined) {
    const start = text.indexOf(`\n${from}\n`);
    if (start < 0) throw new Error(`no heading ${from}`);
    const level = /^#+/.exec(from)![0];
    const rest = text.slice(start + from.length + 2);
    const end = rest.search(new RegExp(`^${level} `, "m"));
    section = end < 0 ? rest : rest.slice(0, end);
  }
  const blocks: string[] = [];
  const fence = /(^.*\n)?^```sh\n([\s\S]*?)^```$/gm;
  for (const match of section.matchAll(fence)) {
    if (match[1]?.trim() !== NOT_RUN) blocks.push(match[2]!);
  }
  return blocks;
}

export async function pageBlocks(page: string, from?: string): Promise<string[]> {
  return runnableBlocks(await readFile(join(PROJECT_ROOT, page), "utf8"), from);
}

/**
 * Every `curl` must succeed (a non-2xx fails the page) unless it prints its own status with
 * `-w`, as the examples that show a refusal do.
 */
const PRELUDE = [
  "set -eo pipefail",
  `curl() { case " $* " in *" -w "*|*" --write-out "*) command curl "$@" ;; *) command curl --fail-with-body "$@" ;; esac; }`,
];

export interface BlocksRun {
  /** Each block's output, in order. */
  outputs: string[];
  stderr: string;
}

/** Runs `blocks` in one bash after `setup` (the printed `export` and `pick` lines), in `cwd`. */
export function runBlocks(blocks: string[], setup: string[], cwd: string, timeoutMs: number): Promise<BlocksRun> {
  const script = [...PRELUDE, ...setup, blocks.join(`\necho '${BLOCK_SEPARATOR}'\n`)].join("\n");
  return new Promise((resolve, reject) => {
    execFile(
      "bash",
      ["-c", script],
      { cwd, env: { PATH: process.env.PATH ?? "" }, timeout: timeoutMs, maxBuffer: 16 << 20 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`the blocks failed (${error.code ?? error.signal}):\n${stderr}\n${stdout}`));
        else resolve({ outputs: stdout.split(`${BLOCK_SEPARATOR}\n`), stderr });
      },
    );
  });
}
