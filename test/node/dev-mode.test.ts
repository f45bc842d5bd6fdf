/**
 * `npm run dev` runs the documented local mode: the same script as `npm start`, which lays the
 * local variables over wrangler.json's deployed ones, so `run_code` runs in the interpreter
 * whatever the provider. (The Worker itself refuses `dynamic_worker` under a local runtime:
 * test/local-runtime.test.ts.)
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { effectiveVars, wranglerDevArgs } from "../../scripts/dev-args.mjs";

const read = (path: string) => JSON.parse(readFileSync(new URL(`../../${path}`, import.meta.url), "utf8"));
const scripts = read("package.json").scripts as Record<string, string>;
const deployedVars = read("wrangler.json").vars as Record<string, string>;
const DEV_SCRIPT = readFileSync(new URL("../../scripts/dev.mjs", import.meta.url), "utf8");

describe("npm run dev", () => {
  it("is npm start's script, which builds wrangler's arguments in dev-args.mjs", () => {
    expect(scripts.dev).toBe("node scripts/dev.mjs");
    expect(scripts.start).toBe(scripts.dev);
    expect(DEV_SCRIPT).toMatch(/import \{[^}]*wranglerDevArgs[^}]*\} from "\.\/dev-args\.mjs"/);
  });

  it.each(["mock", "dev-vars", "environment"] as const)(
    "runs code in the interpreter over wrangler.json's deployed mode (%s provider)",
    (mode) => {
      // wrangler.json keeps what `wrangler deploy` deploys.
      expect(deployedVars.RUN_CODE_ISOLATE).toBe("dynamic_worker");
      const args = wranglerDevArgs({
        root: "/p",
        mode,
        mockUrl: "http://127.0.0.1:8788",
        envFile: "/tmp/k.env",
        devVarsPath: "/p/.dev.vars",
        userArgs: ["--port", "9000"],
      });
      expect(args[0]).toBe("dev");
      expect(effectiveVars(deployedVars, args).RUN_CODE_ISOLATE).toBe("interpreter");
      expect(args.slice(-2)).toEqual(["--port", "9000"]);
    },
  );
});
