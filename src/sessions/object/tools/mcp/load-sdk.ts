/** Loads the MCP SDK (sdk.ts) on first use, once per isolate. */
export type McpSdk = typeof import("./sdk");

let loading: Promise<McpSdk> | null = null;

export function loadMcpSdk(): Promise<McpSdk> {
  loading ??= import("./sdk");
  return loading;
}
