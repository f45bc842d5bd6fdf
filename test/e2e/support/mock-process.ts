/**
 * The mock model and webhook server as its own process, so what it recorded survives every
 * restart of the platform, and an HTTP client for its control API (`/_mock/`).
 */
import { join } from "node:path";
import { type MockControl, type MockHook, type MockQueue, mockControl, type ModelStep } from "../../support/mock-control";
import { childEnv, LOOPBACK, nodeBinary, PROJECT_ROOT } from "./environment";
import { type GroupChild, spawnGroup } from "./process-group";

export type { HookStep, MockHook, MockQueue, ModelStep, RecordedRequest } from "../../support/mock-control";

const STARTUP_TIMEOUT_MS = 15_000;
const URL_LINE = /^http:\/\/127\.0\.0\.1:\d+$/m;

export class MockServer {
  private constructor(
    readonly url: string,
    private readonly child: GroupChild | null,
  ) {}

  /** `outputFile`: also append what the server prints there. */
  static async start(outputFile?: string): Promise<MockServer> {
    const script = join(PROJECT_ROOT, "test", "support", "node", "mock-server.ts");
    const child = spawnGroup(nodeBinary(), ["--no-warnings", script, "--port", "0"], {
      cwd: PROJECT_ROOT,
      env: childEnv({}),
      outputFile,
    });
    const output = await child
      .waitForOutput((text) => URL_LINE.test(text), STARTUP_TIMEOUT_MS)
      .catch(async (error: unknown) => {
        await child.stop("SIGKILL");
        throw error;
      });
    const url = URL_LINE.exec(output)?.[0];
    if (!url || !url.includes(LOOPBACK)) throw new Error(`mock server printed no loopback URL:\n${output}`);
    return new MockServer(url, child);
  }

  /** A client of a mock server another process started and stops (the shared stack's). */
  static connect(url: string): MockServer {
    return new MockServer(url, null);
  }

  async stop(): Promise<void> {
    if (!this.child) throw new Error("this mock server belongs to another process");
    await this.child.stop("SIGKILL");
  }

  output(): string {
    if (!this.child) throw new Error("this mock server belongs to another process");
    return this.child.output();
  }

  /** The control API client (script queues, read recordings, release held hooks). */
  get control(): MockControl {
    return mockControl(this.url);
  }

  model(key: string): MockQueue<ModelStep> {
    return this.control.model(key);
  }

  hook(key: string): MockHook {
    return this.control.hook(key);
  }
}
