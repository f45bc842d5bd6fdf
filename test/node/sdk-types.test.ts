import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));

describe("sdk/src/generated/openapi.ts", () => {
  it("is what `npm run sdk` generates from openapi/openapi.json", async () => {
    const run = promisify(execFile)(process.execPath, ["scripts/sdk.mjs", "--check"], { cwd: root });
    const { stdout } = await run.catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`${error.stdout ?? ""}${error.stderr ?? ""}`);
    });
    expect(stdout).toMatch(/is current/);
  }, 60_000);
});
