/**
 * `npm test`'s prerequisites check (scripts/prerequisites.mjs): each missing piece is named with
 * the line that installs it, shown with probes that report it missing on a machine that has it;
 * and `scripts/test.mjs` stops on it in its first seconds, before it installs or starts anything.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  CHROMIUM_INSTALL,
  canListenOnLoopback,
  chromiumPath,
  DEFAULT_CHROMIUM_PATH,
  missingPrerequisites,
  prerequisiteReport,
  reachesEndToEnd,
} from "../../scripts/prerequisites.mjs";

const TEST_SCRIPT = fileURLToPath(new URL("../../scripts/test.mjs", import.meta.url));
/** The check runs before anything else; far more than it takes, far less than any suite. */
const STOPS_WITHIN_MS = 15_000;

const everything = { executable: () => true, nodeVersion: "24.21.0", listen: async () => true };

describe("the prerequisites of npm test", () => {
  it("finds nothing missing when Chromium runs, Node is recent and loopback listens", async () => {
    expect(await missingPrerequisites(everything)).toEqual([]);
  });

  it("names a missing Chromium with its install line", async () => {
    const missing = await missingPrerequisites({
      ...everything,
      chromium: "/nowhere/chromium",
      executable: (path) => path !== "/nowhere/chromium",
    });
    expect(missing).toEqual([{ what: expect.stringContaining("/nowhere/chromium"), fix: CHROMIUM_INSTALL }]);
    expect(prerequisiteReport(missing)).toContain("install: sudo apt-get install -y chromium");
  });

  it("asks for Chromium only when the run reaches the end-to-end files", async () => {
    const noChromium = { ...everything, executable: () => false };
    expect(await missingPrerequisites({ ...noChromium, args: ["--project", "node"] })).toEqual([]);
    expect(await missingPrerequisites({ ...noChromium, args: ["test/config.test.ts"] })).toEqual([]);
    for (const args of [[], ["--project", "e2e"], ["--project=e2e"], ["test/e2e/console.test.ts"]]) {
      expect(reachesEndToEnd(args), args.join(" ")).toBe(true);
      expect(await missingPrerequisites({ ...noChromium, args }), args.join(" ")).toHaveLength(1);
    }
  });

  it("names an old Node and a loopback that cannot listen", async () => {
    const missing = await missingPrerequisites({ ...everything, nodeVersion: "18.19.0", listen: async () => false });
    expect(missing.map((m) => m.what)).toEqual([expect.stringContaining("found 18.19.0"), expect.stringContaining("127.0.0.1")]);
  });

  it("looks for Chromium where the browser tests launch it", async () => {
    expect(chromiumPath({})).toBe(DEFAULT_CHROMIUM_PATH);
    expect(chromiumPath({ CHROMIUM_PATH: "/opt/chrome/chrome" })).toBe("/opt/chrome/chrome");
    expect(await canListenOnLoopback()).toBe(true);
  });

  it("stops npm test in its first seconds on a machine without Chromium, with the install line first", async () => {
    const started = Date.now();
    // The whole suite, as a newcomer runs it; were the check to let it through, the suite is stopped below.
    const child = spawn(process.execPath, [TEST_SCRIPT], { env: { ...process.env, CHROMIUM_PATH: "/nowhere/chromium" }, detached: true });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    const timer = setTimeout(() => process.kill(-child.pid!, "SIGKILL"), STOPS_WITHIN_MS);
    const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
    clearTimeout(timer);
    expect(code, output).toBe(1);
    expect(Date.now() - started).toBeLessThan(STOPS_WITHIN_MS);
    const lines = output.split("\n");
    expect(lines[0]).toMatch(/^npm test cannot run on this machine yet/);
    expect(lines.slice(0, 4).join("\n")).toContain("sudo apt-get install -y chromium");
  });
});
