/**
 * The end-to-end project's global setup: bundles the Worker once for every platform the suite
 * starts (`PlatformOptions.bundle`), and starts the one stack that the files needing no restart
 * and no settings of their own share (`sharedStack`). Both go when the run ends.
 */
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { makeTempDir, removeDir } from "./environment";
import { bundleWorker } from "./platform";
import { type SharedStackInfo, startStack, WORKER_BUNDLE_ENV } from "./stack";

declare module "vitest" {
  export interface ProvidedContext {
    /** The stack started here for `sharedStack`. */
    sharedStack: SharedStackInfo;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = await makeTempDir("agent-platform-e2e-run");
  const started = Date.now();
  await bundleWorker(join(dir, "worker"));
  // The test files' processes start after this and inherit the environment.
  process.env[WORKER_BUNDLE_ENV] = join(dir, "worker");
  const outputFiles = { platform: join(dir, "shared-platform.log"), mock: join(dir, "shared-mock.log") };
  const stack = await startStack({ outputFiles });
  console.log(`e2e setup: Worker bundled and the shared platform up in ${Date.now() - started} ms`);
  project.provide("sharedStack", {
    platformUrl: stack.platform.url,
    signingKey: stack.platform.signingKey,
    mockUrl: stack.mock.url,
    outputFiles,
  });
  return async () => {
    await stack.dispose();
    delete process.env[WORKER_BUNDLE_ENV];
    await removeDir(dir);
  };
}
