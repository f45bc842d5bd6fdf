/**
 * The parts of the MCP SDK the platform runs, in one module that is only ever imported
 * dynamically (see `loadMcpSdk`): the SDK builds hundreds of schemas when it loads, which would
 * otherwise add to the start of every isolate, whether or not any session uses an MCP server.
 */
export { Client } from "@modelcontextprotocol/sdk/client/index.js";
export { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
export { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
