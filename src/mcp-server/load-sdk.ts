/** Loads the MCP SDK's server side (sdk.ts) on first use, once per isolate. */
export type McpServerSdk = typeof import("./sdk");

let loading: Promise<McpServerSdk> | null = null;

export function loadMcpServerSdk(): Promise<McpServerSdk> {
  loading ??= import("./sdk");
  return loading;
}
