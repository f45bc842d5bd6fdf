/**
 * The platform as an MCP server (Streamable HTTP, the SDK's web-standard transport), built per
 * request without server-side state: each live agent of the caller's tenant is a tool. The MCP
 * session id the platform hands out at `initialize` only names the client's sessions, so that a
 * `notifications/cancelled` arriving in a later request finds the session of the call it names.
 */
import { AgentClient } from "../agents/client";
import type { Agent } from "../agents/types";
import { MAX_MCP_BATCH_MESSAGES } from "../limits";
import { tenantIndexStub } from "../objects";
import { ApiError } from "../problems";
import type { Actor } from "../sessions/actor";
import { SessionClient } from "../sessions/client";
import { describeError, log } from "../log";
import { loadMcpServerSdk } from "./load-sdk";
import { callSessionId, runAgentCall } from "./run-agent";
import { agentTool } from "./tools";

export const MCP_SESSION_HEADER = "mcp-session-id";
/** Agents listed per store page; a tenant holds a bounded number of agents (the agent store's limit). */
const AGENT_PAGE = 200;
/** The MCP session ids the platform hands out: `mcp_` and 128 random bits. */
const MCP_SESSION_ID_PATTERN = /^mcp_[A-Za-z0-9_-]{22}$/;
const SERVER_INFO = { name: "agent-platform", version: "1.0.0" };

export function newMcpSessionId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return (
    "mcp_" +
    btoa(String.fromCharCode(...bytes))
      .replace(/\+/g, "-")
      .replace(/\//g, "_")
      .replace(/=+$/, "")
  );
}

/** The request's MCP session id when it is one the platform could have handed out; anything else counts as none. */
export function mcpSessionOf(request: Request): string | null {
  const value = request.headers.get(MCP_SESSION_HEADER);
  return value !== null && MCP_SESSION_ID_PATTERN.test(value) ? value : null;
}

async function liveAgents(actor: Actor): Promise<Agent[]> {
  const store = new AgentClient(actor.env, actor.principal.tenantId);
  const agents: Agent[] = [];
  let cursor: string | null = null;
  do {
    const page = await store.list({ name: null, includeArchived: false, limit: AGENT_PAGE, cursor });
    agents.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor !== null);
  return agents;
}

async function agentNamed(actor: Actor, name: string): Promise<Agent | null> {
  const page = await new AgentClient(actor.env, actor.principal.tenantId).list({ name, includeArchived: false, limit: 1, cursor: null });
  return page.data[0] ?? null;
}

/** Answers one HTTP request of the MCP endpoint. */
export async function serveMcp(actor: Actor, request: Request, parsedBody: unknown): Promise<Response> {
  const sdk = await loadMcpServerSdk();
  const mcpSession = mcpSessionOf(request);
  // Wired to the platform's validator, as the client side is: the SDK's default (Ajv) cannot run in a Worker.
  const server = new sdk.Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    jsonSchemaValidator: new sdk.PlatformJsonSchemaValidator(),
  });

  server.setRequestHandler(sdk.ListToolsRequestSchema, async () => ({ tools: (await liveAgents(actor)).map(agentTool) }));

  server.setRequestHandler(sdk.CallToolRequestSchema, async (call, extra) => {
    const input = call.params.arguments?.input;
    if (typeof input !== "string" || input === "")
      throw new sdk.McpError(sdk.ErrorCode.InvalidParams, "arguments.input must be a non-empty string");
    const agent = await agentNamed(actor, call.params.name);
    if (agent === null) throw new sdk.McpError(sdk.ErrorCode.InvalidParams, `unknown tool: ${call.params.name}`);
    const token = call.params._meta?.progressToken;
    const progress =
      token === undefined
        ? null
        : (value: number, message: string) =>
            extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: value, message } });
    try {
      return await runAgentCall({
        actor,
        agent,
        input,
        sessionId: await callSessionId(actor.principal, mcpSession, extra.requestId),
        progress,
        signal: extra.signal,
      });
    } catch (error) {
      // A refusal of the platform (a limit, an archived agent, a bad definition) is the caller's to read.
      if (error instanceof ApiError) return { content: [{ type: "text", text: `${error.title}: ${error.detail}` }], isError: true };
      throw error;
    }
  });

  if (Array.isArray(parsedBody) && parsedBody.length > MAX_MCP_BATCH_MESSAGES) {
    throw new ApiError(
      "payload_too_large",
      `A JSON-RPC batch holds at most ${MAX_MCP_BATCH_MESSAGES} messages; this one holds ${parsedBody.length}.`,
    );
  }
  // Cancellations are applied before the transport answers 202: a Worker may stop work left after its response.
  await cancelCalls(actor, mcpSession, cancelledRequests(parsedBody));

  const transport = new sdk.WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await server.connect(transport);
  const response = await transport.handleRequest(request, { parsedBody });
  if (!isInitialize(parsedBody) || response.status !== 200) return response;
  const headers = new Headers(response.headers);
  headers.set(MCP_SESSION_HEADER, mcpSession ?? newMcpSessionId());
  return new Response(response.body, { status: response.status, headers });
}

/** The request ids named by the `notifications/cancelled` messages of a body (one message or a batch). */
export function cancelledRequests(body: unknown): (string | number)[] {
  const messages = Array.isArray(body) ? body : [body];
  return messages.flatMap((message) => {
    if (typeof message !== "object" || message === null || (message as { method?: unknown }).method !== "notifications/cancelled")
      return [];
    const id = (message as { params?: { requestId?: unknown } }).params?.requestId;
    return typeof id === "string" || typeof id === "number" ? [id] : [];
  });
}

/**
 * Cancels the calls' sessions that still run. The tenant's index says which in one lookup for the
 * whole batch, so a request id that names no session wakes no session object.
 */
async function cancelCalls(actor: Actor, mcpSession: string | null, requestIds: (string | number)[]): Promise<void> {
  if (mcpSession === null || requestIds.length === 0) return;
  const named = new Set<string>();
  for (const requestId of requestIds) named.add((await callSessionId(actor.principal, mcpSession, requestId))!);
  const { tenantId } = actor.principal;
  for (const sessionId of await tenantIndexStub(actor.env, tenantId).cancellableSessions(tenantId, [...named])) {
    try {
      await new SessionClient(actor.env, tenantId, sessionId).cancel();
    } catch (error) {
      // Ended meanwhile: nothing to cancel.
      if (!(error instanceof ApiError)) log("warn", "mcp_cancel_failed", { error: describeError(error) });
    }
  }
}

function isInitialize(body: unknown): boolean {
  return typeof body === "object" && body !== null && !Array.isArray(body) && (body as { method?: unknown }).method === "initialize";
}
