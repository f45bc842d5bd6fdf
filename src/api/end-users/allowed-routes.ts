/**
 * The routes an end user's token may call (`METHOD /path` as the OpenAPI document spells it);
 * every other route answers it 403 (`end-user-gate.ts`). What each allowed route shows is still
 * the usual rule's: its own sessions, chats and forks (another's: 404), its own memory.
 * Left out on purpose: listing or reading agents (a definition is the tenant's), exports, the
 * MCP server (it lists agents), schedules, and every key, webhook, usage, audit, settings and
 * admin route.
 */
export const END_USER_ROUTES: readonly string[] = [
  "GET /v1/me",
  "POST /v1/auth/stream-token",
  "POST /v1/sessions",
  "GET /v1/sessions",
  "GET /v1/sessions/{id}",
  "DELETE /v1/sessions/{id}",
  "GET /v1/sessions/{id}/messages",
  "POST /v1/sessions/{id}/messages",
  "POST /v1/sessions/{id}/cancel",
  "POST /v1/sessions/{id}/pause",
  "POST /v1/sessions/{id}/resume",
  "GET /v1/sessions/{id}/tool-calls",
  "POST /v1/sessions/{id}/tool-calls/{call_id}/approve",
  "POST /v1/sessions/{id}/tool-calls/{call_id}/deny",
  "POST /v1/sessions/{id}/tool-calls/{call_id}/output",
  "GET /v1/sessions/{id}/events",
  "GET /v1/sessions/{id}/steps",
  "POST /v1/sessions/{id}/fork",
  "POST /v1/agents/{agent_id}/chat",
  "GET /v1/agents/{agent_id}/chat/{id}/stream",
  "GET /v1/agents/{agent_id}/chat/{id}/messages",
  "POST /v1/agents/{agent_id}/ag-ui",
  "GET /v1/agents/{agent_id}/a2a/.well-known/agent-card.json",
  "POST /v1/agents/{agent_id}/a2a",
  "PUT /v1/memory/items",
  "GET /v1/memory/items",
  "DELETE /v1/memory/items",
  "GET /v1/memory/items/versions",
  "POST /v1/memory/search",
  "POST /v1/memory/namespaces",
];
