/**
 * One JSON-RPC request of an agent's A2A endpoint, answered: the envelope is checked here (so a
 * body that is not JSON-RPC gets its JSON-RPC error, never a problem document or a 5xx), then the
 * SDK's transport handler of the method's protocol version (1.0's method names, or 0.3's
 * `message/send` family) parses the params and writes the result, over `PlatformA2AHandler`.
 */
import type { Agent } from "../agents/types";
import { describeError, log } from "../log";
import type { Actor } from "../sessions/actor";
import { toA2aError } from "./errors";
import { PlatformA2AHandler } from "./handler";

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

type Envelope = { jsonrpc: "2.0"; id: string | number | null; result?: unknown; error?: { code: number; message: string; data?: unknown } };

/** The SDK's server side (with its 0.3 layer), loaded on the first A2A request of an isolate. */
let loading: Promise<
  [typeof import("@a2a-js/sdk/server"), typeof import("@a2a-js/sdk/compat/v0_3/server"), typeof import("@a2a-js/sdk/compat/v0_3")]
> | null = null;

function loadSdk() {
  loading ??= Promise.all([import("@a2a-js/sdk/server"), import("@a2a-js/sdk/compat/v0_3/server"), import("@a2a-js/sdk/compat/v0_3")]);
  return loading;
}

const SSE_HEADERS = { "Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no" } as const;

function json(envelope: Envelope): Response {
  return new Response(JSON.stringify(envelope), { status: 200, headers: { "Content-Type": "application/json" } });
}

function failure(id: Envelope["id"], code: number, message: string): Response {
  return json({ jsonrpc: "2.0", id, error: { code, message } });
}

function validId(id: unknown): id is string | number | null {
  return id === null || typeof id === "string" || (typeof id === "number" && Number.isInteger(id));
}

export async function serveA2a(actor: Actor, agent: Agent, origin: string, text: string): Promise<Response> {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return failure(null, PARSE_ERROR, "Parse error: the body is not JSON.");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body))
    return failure(null, INVALID_REQUEST, "Invalid Request: a JSON-RPC request object is expected (batches are not part of A2A).");
  const request = body as Record<string, unknown>;
  const id = "id" in request && validId(request.id) ? request.id : null;
  if (request.jsonrpc !== "2.0" || typeof request.method !== "string" || request.method === "" || ("id" in request && !validId(request.id)))
    return failure(id, INVALID_REQUEST, 'Invalid Request: jsonrpc must be "2.0", method a string, and id a string, an integer or null.');

  const [server, legacyServer, legacy] = await loadSdk();
  const abort = new AbortController();
  const handler = new PlatformA2AHandler(actor, agent, origin, abort.signal);
  const isLegacy = legacy.isLegacyJsonRpcMethod(request.method);
  const transport = isLegacy ? new legacyServer.LegacyJsonRpcTransportHandler(handler) : new server.JsonRpcTransportHandler(handler);
  // Each version's error shape: 0.3 has no `details` list in `data`.
  const mapError = (error: unknown) =>
    isLegacy
      ? legacyServer.LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(toA2aError(error))
      : server.JsonRpcTransportHandler.mapToJSONRPCError(toA2aError(error));
  const answer = (await transport.handle(request, new server.ServerCallContext())) as Envelope | AsyncGenerator<Envelope, void, undefined>;
  if (!(Symbol.asyncIterator in answer)) return json(answer);

  // The first update is awaited here, so a refused message is a JSON-RPC error response, not a stream that fails.
  let first: IteratorResult<Envelope, void>;
  try {
    first = await answer.next();
  } catch (error) {
    return json({ jsonrpc: "2.0", id, error: mapError(error) });
  }
  const encoder = new TextEncoder();
  const frame = (envelope: Envelope) => encoder.encode(`data: ${JSON.stringify(envelope)}\n\n`);
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      try {
        if (!first.done) controller.enqueue(frame(first.value));
        if (!first.done) for await (const envelope of { [Symbol.asyncIterator]: () => answer }) controller.enqueue(frame(envelope));
      } catch (error) {
        if (abort.signal.aborted) return;
        log("warn", "a2a_stream_failed", { error: describeError(error) });
        controller.enqueue(frame({ jsonrpc: "2.0", id, error: mapError(error) }));
      }
      controller.close();
    },
    async cancel() {
      abort.abort();
      await answer.return(undefined).catch(() => undefined);
    },
  });
  return new Response(stream, { headers: SSE_HEADERS });
}
