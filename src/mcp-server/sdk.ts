/**
 * The server side of the MCP SDK, in a module only ever imported dynamically (`loadMcpServerSdk`):
 * the SDK builds hundreds of schemas when it loads, which no request but `/v1/mcp` should pay for.
 */
export { Server } from "@modelcontextprotocol/sdk/server/index.js";
export { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
export {
  CallToolRequestSchema,
  CancelledNotificationSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
export { PlatformJsonSchemaValidator } from "../shared/json-schema/mcp-validator";
