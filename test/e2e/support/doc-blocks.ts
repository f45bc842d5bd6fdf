/**
 * The shell examples of the README and `docs/`, as a reader runs them: every ```sh block of a
 * page, in order, in one bash (as pasted into one terminal), after the lines `npm start` printed.
 * A block the line before marks `<!-- not run -->` is prose (another machine, a deploy, a
 * command that never ends); other fences (`json`, `ts`, none) never run.
 */
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { PROJECT_ROOT } from "./environment";

export const NOT_RUN = "<!-- not run -->";
export const BLOCK_SEPARATOR = "----8<----";

/** The runnable blocks of `text`, from `from` (a heading) to the next heading of its level or higher, or all of it. */
export function runnableBlocks(text: string, from?: string): string[] {
  let section = text;
  if (from !== undefined) {
    const start = text.indexOf(`\n${from}\n`);
    if (start < 0) throw new Error(`no heading ${from}`);
    const level = /^#+/.exec(from)![0];
    const rest = text.slice(start + from.length + 2);
    // A heading, not a shell comment: only lines outside fences count.
    const heading = new RegExp(`^#{1,${level.length}} `);
    let inFence = false;
    let end = rest.length;
    for (let at = 0, i = 0; i < rest.length; i = at + 1) {
      at = rest.indexOf("\n", i);
      if (at < 0) at = rest.length;
      const line = rest.slice(i, at);
      if (line.startsWith("```")) inFence = !inFence;
      else if (!inFence && heading.test(line)) {
        end = i;
        break;
      }
    }
    section = rest.slice(0, end);
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
 * `-w`, as the examples that show a refusal do. A failure ends the whole page, even inside a
 * condition or a command substitution, where `set -e` does not look; an unset variable ends it too.
 */
const PRELUDE = [
  "set -euo pipefail",
  'fail() { echo "docs test: $*" >&2; kill -TERM $$; exit 1; }',
  'curl() { local arg; for arg in "$@"; do case "$arg" in -w | --write-out) command curl "$@"; return; esac; done',
  '  command curl --fail-with-body "$@" || fail "curl $* failed ($?)"; }',
];

/** After the printed `pick`: a value that is not there (`undefined`) ends the page. */
const AFTER_SETUP = [
  'if declare -f pick >/dev/null; then eval "printed_$(declare -f pick)"',
  '  pick() { local out; out=$(printed_pick "$@") || fail "pick $* failed"',
  "    case $'\\n'\"$out\"$'\\n' in *$'\\nundefined\\n'*) fail \"pick $* printed undefined\" ;; esac; printf '%s\\n' \"$out\"; }",
  "fi",
];

export interface BlocksRun {
  /** Each block's output, in order. */
  outputs: string[];
  stderr: string;
}

/**
 * Runs `blocks` in one bash after `setup` (the printed `export` and `pick` lines), in `cwd`. A
 * page that has not ended within `timeoutMs` fails, and its processes (a `curl -N`) are ended.
 */
export function runBlocks(blocks: string[], setup: string[], cwd: string, timeoutMs: number): Promise<BlocksRun> {
  const script = [...PRELUDE, ...setup, ...AFTER_SETUP, blocks.join(`\necho '${BLOCK_SEPARATOR}'\n`)].join("\n");
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", script], {
      cwd,
      env: { PATH: process.env.PATH ?? "" },
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, timeoutMs);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      // Whatever the page started in the background ends with it.
      killGroup(child.pid);
      if (timedOut) reject(new Error(`the blocks did not end within ${timeoutMs} ms:\n${stderr}\n${stdout}`));
      else if (code !== 0) reject(new Error(`the blocks failed (${code ?? signal}):\n${stderr}\n${stdout}`));
      else resolve({ outputs: stdout.split(`${BLOCK_SEPARATOR}\n`), stderr });
    });
  });
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}
