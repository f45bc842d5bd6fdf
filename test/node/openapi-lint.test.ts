import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));
const redocly = fileURLToPath(new URL("../../node_modules/@redocly/cli/bin/cli.js", import.meta.url));

describe("openapi/openapi.json", () => {
  it("passes redocly lint with the recommended-strict ruleset (redocly.yaml)", async () => {
    const run = promisify(execFile)(process.execPath, [redocly, "lint", "--format", "stylish"], {
      cwd: root,
      env: { ...process.env, REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
    });
    // A failed lint rejects with the report in stdout; show it rather than only the exit code.
    const { stdout, stderr } = await run.catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`redocly lint failed:\n${error.stdout ?? ""}${error.stderr ?? ""}`);
    });
    expect(`${stdout}${stderr}`).toMatch(/valid/i);
  }, 60_000);
});
