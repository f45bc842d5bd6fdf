/**
 * Child processes of the end-to-end suite. Each runs detached in its own process group, so a
 * signal sent to the group reaches the child and everything it started (wrangler's workerd);
 * every group still alive when this process exits is killed.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { appendFileSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { atLastResort, sleepSync } from "./last-resort";

/** Output kept per child for failure messages; older output is dropped. */
const MAX_OUTPUT_CHARS = 64 * 1024;
/** How long a group may take to disappear after a signal before it gets SIGKILL. */
const GRACEFUL_EXIT_MS = 10_000;
/** How long a group may take to disappear after SIGKILL before that is an error. */
const KILL_EXIT_MS = 5_000;
const EXIT_POLL_MS = 25;

export type StopSignal = "SIGTERM" | "SIGKILL";

export interface GroupChild {
  readonly pid: number;
  readonly child: ChildProcess;
  /** The latest stdout and stderr, interleaved, at most `MAX_OUTPUT_CHARS`. */
  output(): string;
  /** Resolves with the output once `predicate` holds for it; rejects if the process exits first or time runs out. */
  waitForOutput(predicate: (output: string) => boolean, timeoutMs: number): Promise<string>;
  /** Sends `signal` to the whole group and waits until no process of the group is left. */
  stop(signal: StopSignal): Promise<void>;
}

const liveGroups = new Set<number>();

function killGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

// The last line of defence: a failed or interrupted run must not leave servers behind, nor
// processes writing into directories about to be removed.
atLastResort("stop-processes", () => {
  for (const pgid of liveGroups) killGroup(pgid, "SIGKILL");
  const deadline = Date.now() + KILL_EXIT_MS;
  while ([...liveGroups].some(groupAlive) && Date.now() < deadline) sleepSync(EXIT_POLL_MS);
});

/**
 * The live processes of a group, by /proc. Zombies do not count: after a kill the reparented
 * workerd may wait a while for a parent that reaps it, yet it holds no port or file.
 */
export function groupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // exited while we looked
    }
    // The command name may contain spaces and parentheses; the fields after its last ")" do not.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const state = fields[0];
    if (Number(fields[2]) === pgid && state !== "Z" && state !== "X") members.push(Number(entry));
  }
  return members;
}

export function groupAlive(pgid: number): boolean {
  if (!existsSync("/proc/self/stat")) {
    // No procfs: signal 0 answers for the group, zombies included.
    try {
      process.kill(-pgid, 0);
      return true;
    } catch {
      return false;
    }
  }
  return groupMembers(pgid).length > 0;
}

async function waitForGroupExit(pgid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!groupAlive(pgid)) return true;
    await sleep(EXIT_POLL_MS);
  }
  return !groupAlive(pgid);
}

export function spawnGroup(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; outputFile?: string },
): GroupChild {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${command}`);
  liveGroups.add(pid);

  let buffer = "";
  const listeners = new Set<() => void>();
  const toFile = (data: Buffer | string) => {
    if (!options.outputFile) return;
    try {
      appendFileSync(options.outputFile, data);
    } catch {
      // A copy for readers elsewhere: its directory may already be gone as the run ends.
    }
  };
  const append = (chunk: Buffer) => {
    toFile(chunk);
    buffer += chunk.toString("utf8");
    if (buffer.length > MAX_OUTPUT_CHARS) buffer = buffer.slice(-MAX_OUTPUT_CHARS);
    for (const listener of listeners) listener();
  };
  child.stdout?.on("data", append);
  child.stderr?.on("data", append);
  let exitCode: number | null | undefined;
  child.once("exit", (code, signal) => {
    exitCode = code;
    const line = `\n[process ${pid} exited: code ${code}, signal ${signal}]\n`;
    toFile(line);
    buffer += line;
    for (const listener of listeners) listener();
  });

  return {
    pid,
    child,
    output: () => buffer,
    waitForOutput(predicate, timeoutMs) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (predicate(buffer)) return done(null);
          if (exitCode !== undefined) return done(new Error(`process exited before it was ready:\n${buffer}`));
        };
        const timer = setTimeout(() => done(new Error(`no expected output after ${timeoutMs} ms:\n${buffer}`)), timeoutMs);
        const done = (error: Error | null) => {
          clearTimeout(timer);
          listeners.delete(check);
          if (error) reject(error);
          else resolve(buffer);
        };
        listeners.add(check);
        check();
      });
    },
    async stop(signal) {
      killGroup(pid, signal);
      if (!(await waitForGroupExit(pid, signal === "SIGKILL" ? KILL_EXIT_MS : GRACEFUL_EXIT_MS))) {
        killGroup(pid, "SIGKILL");
        if (!(await waitForGroupExit(pid, KILL_EXIT_MS))) throw new Error(`process group ${pid} survived SIGKILL`);
      }
      liveGroups.delete(pid);
    },
  };
}
