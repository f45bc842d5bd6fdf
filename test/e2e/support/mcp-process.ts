/**
 * The MCP test server (test/support/node/mcp-server.ts) as its own process: what it recorded
 * survives every restart of the platform, and a test can kill it to make a server disappear.
 */
import { join } from "node:path";
import type { RecordedCall } from "../../support/node/mcp-server";
import { childEnv, LOOPBACK, nodeBinary, PROJECT_ROOT } from "./environment";
import { type GroupChild, spawnGroup } from "./process-group";

export type { RecordedCall };

const STARTUP_TIMEOUT_MS = 15_000;
const URL_LINE = /^http:\/\/127\.0\.0\.1:\d+$/m;

export class McpServerProcess {
  private constructor(
    readonly url: string,
    private readonly child: GroupChild,
  ) {}

  static async start(): Promise<McpServerProcess> {
    const script = join(PROJECT_ROOT, "test", "support", "node", "mcp-server.ts");
    const child = spawnGroup(nodeBinary(), ["--no-warnings", script, "--port", "0"], { cwd: PROJECT_ROOT, env: childEnv({}) });
    const output = await child
      .waitForOutput((text) => URL_LINE.test(text), STARTUP_TIMEOUT_MS)
      .catch(async (error: unknown) => {
        await child.stop("SIGKILL");
        throw error;
      });
    const url = URL_LINE.exec(output)?.[0];
    if (!url || !url.includes(LOOPBACK)) throw new Error(`MCP server printed no loopback URL:\n${output}`);
    return new McpServerProcess(url, child);
  }

  /** The MCP endpoint for a test's own key. */
  endpoint(key: string): string {
    return `${this.url}/mcp/${encodeURIComponent(key)}`;
  }

  async calls(key: string): Promise<RecordedCall[]> {
    const res = await fetch(`${this.url}/_calls/${encodeURIComponent(key)}`);
    return ((await res.json()) as { calls: RecordedCall[] }).calls;
  }

  /** The next `count` calls of `tool` under `key` are never answered. */
  async hold(key: string, tool: string, count = 1): Promise<void> {
    const res = await fetch(`${this.url}/_hold/${encodeURIComponent(key)}/${encodeURIComponent(tool)}`, {
      method: "POST",
      body: JSON.stringify({ count }),
    });
    if (!res.ok) throw new Error(`hold answered ${res.status}`);
  }

  /** Gone at once, as a crashed server is: connections are refused from now on. */
  async kill(): Promise<void> {
    await this.child.stop("SIGKILL");
  }

  output(): string {
    return this.child.output();
  }
}
