/**
 * The deployed `run_code` mode refused under a local runtime (src/local-runtime.ts). These tests
 * run in workerd as `wrangler dev` runs it, so the probe meets a real local clock; a frozen clock
 * stands in for the deployed runtime.
 */
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config";
import type { Env } from "../src/env";
import { clockMovesWhileCodeRuns, localDynamicWorkerRefusal } from "../src/local-runtime";

const loader = {} as WorkerLoader;
const deployed = { RUN_CODE_ISOLATE: "dynamic_worker", LOADER: loader } as Env;

describe("the local runtime probe", () => {
  it("sees this runtime's clock move while code runs, as a local runtime's does", () => {
    expect(clockMovesWhileCodeRuns()).toBe(true);
  });

  it("sees a clock that moves only after I/O, as the deployed runtime's, stand still", () => {
    const frozen = Date.now();
    expect(clockMovesWhileCodeRuns(() => frozen)).toBe(false);
  });
});

describe("dynamic_worker under a local runtime", () => {
  it("is refused at start-up, with how to run locally", () => {
    expect(() => loadConfig({ ...deployed })).toThrow(ConfigError);
    expect(() => loadConfig({ ...deployed })).toThrow(/local runtime enforces no CPU limit.*npm run dev/);
  });

  it("starts deployed, with the interpreter, and when allowed on purpose", () => {
    expect(localDynamicWorkerRefusal("dynamic_worker", {}, () => false)).toBeNull();
    expect(loadConfig({ RUN_CODE_ISOLATE: "interpreter" } as Env).runCodeIsolate).toBe("interpreter");
    expect(loadConfig({} as Env).runCodeIsolate).toBe("interpreter");
    expect(loadConfig({ ...deployed, ALLOW_LOCAL_DYNAMIC_WORKER: "true" }).runCodeIsolate).toBe("dynamic_worker");
    expect(localDynamicWorkerRefusal("dynamic_worker", { ALLOW_LOCAL_DYNAMIC_WORKER: "yes" }, () => true)).toMatch(/deployed mode/);
  });
});
