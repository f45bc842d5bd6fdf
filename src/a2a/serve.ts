/**
 * One JSON-RPC request of an agent's A2A endpoint, answered: the envelope is checked here (so a
 * body that is not JSON-RPC gets its JSON-RPC error, never a problem document or a 5xx), then the
 * SDK's transport handler of the method's protocol version (1.0's method names, or 0.3's
 * `message/send` family) parses the params and writes the result, over `PlatformA2AHandler`.
 */
import type { Agent } from "../agents/types";
import { describeError, log } from "../log";
import type { Actor } from "../sessions/actor";
import { hasScope } from "../auth/principal";
import { ApiError } from "../problems";
import { toA2aError, UNEXPECTED } from "./errors";
import { PlatformA2AHandler } from "./handler";

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;

type Envelope = { jsonrpc: "2.0"; id: string | number | null; result?: unknown; error?: { code: number; message: string; data?: unknown } };

/** The SDK's server side (with its 0.3 layer), loaded on the first A2A request of an isolate. */
let loading: Promise<
  [typeof import("@a2a-js/sdk/server"), typeof import("@a2a-js/sdk/compat/v0_3/server"), typeof import("@a2a-js/sdk/compat/v0_3")]
> | null = null;

function loadSdk() {
  // A failed import is not kept: the next request tries again.
  loading ??= Promise.all([
    import("@a2a-js/sdk/server"),
    import("@a2a-js/sdk/compat/v0_3/server"),
    import("@a2a-js/sdk/compat/v0_3"),
  ]).catch((error: unknown) => {
    loading = null;
    throw error;
  });
  return loading;
}

/** The methods that change a context (both versions' names); every other method only reads, and needs sessions:read. */
const WRITE_METHODS = new Set([
  "SendMessage",
  "SendStreamingMessage",
  "CancelTask",
  "CreateTaskPushNotificationConfig",
  "DeleteTaskPushNotificationConfig",
  "message/send",
  "message/stream",
  "tasks/cancel",
  "tasks/pushNotificationConfig/set",
  "tasks/pushNotificationConfig/delete",
]);

function requireMethodScope(actor: Actor, method: string): void {
  const scope = WRITE_METHODS.has(method) ? "sessions:write" : "sessions:read";
  if (!hasScope(actor.principal, scope)) throw new ApiError("forbidden", `The A2A method ${method} requires the ${scope} scope.`);
}

/**
 * The handler, noting when the SDK reached one of its methods: an SDK failure before that is its
 * parameter converters' (params not of the method's shape), and is answered as invalid params.
 */
function noteReached(handler: PlatformA2AHandler): { handler: PlatformA2AHandler; reached: () => boolean } {
  let reached = false;
  const traced = new Proxy(handler, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== "function" || property === "getAgentCard") return value;
      return (...args: unknown[]) => {
        reached = true;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { handler: traced, reached: () => reached };
}

/**
 * The SDK's converters make a string of anything (an object id becomes "[object Object]"), so the
 * ids that name a context or task are checked as sent.
 */
function idsNotStrings(params: unknown): string | null {
  const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;
  if (!isObject(params)) return null;
  for (const field of ["id", "taskId"]) if (params[field] != null && typeof params[field] !== "string") return `params.${field}`;
  const message = params.message;
  if (!isObject(message)) return null;
  for (const field of ["contextId", "taskId", "messageId"])
    if (message[field] != null && typeof message[field] !== "string") return `params.message.${field}`;
  return null;
}

/** An internal error's envelope as the client may see it: no SDK message, and params the SDK could not convert are bad params. */
function cleanError(envelope: Envelope, reached: boolean): Envelope {
  if (envelope.error?.code !== INTERNAL_ERROR) return envelope;
  if (!reached) return { ...envelope, error: { code: INVALID_PARAMS, message: "Invalid params: they do not have the method's shape." } };
  return { ...envelope, error: { code: INTERNAL_ERROR, message: UNEXPECTED } };
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

export async function serveA2a(actor: Actor, agent: Agent, origin: string, text: string, signal: AbortSignal): Promise<Response> {
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

  requireMethodScope(actor, request.method);
  const notString = idsNotStrings(request.params);
  if (notString !== null) return failure(id, INVALID_PARAMS, `Invalid params: ${notString} must be a string.`);

  const [server, legacyServer, legacy] = await loadSdk();
  const abort = new AbortController();
  // The client's disconnect ends the following of the session's events, for a plain answer too.
  if (signal.aborted) abort.abort();
  else signal.addEventListener("abort", () => abort.abort(), { once: true });
  const { handler, reached } = noteReached(new PlatformA2AHandler(actor, agent, origin, abort.signal));
  const isLegacy = legacy.isLegacyJsonRpcMethod(request.method);
  const transport = isLegacy ? new legacyServer.LegacyJsonRpcTransportHandler(handler) : new server.JsonRpcTransportHandler(handler);
  // Each version's error shape: 0.3 has no `details` list in `data`.
  const mapError = (error: unknown): Envelope["error"] =>
    isLegacy
      ? legacyServer.LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(toA2aError(error))
      : server.JsonRpcTransportHandler.mapToJSONRPCError(toA2aError(error));
  const errorEnvelope = (error: unknown): Envelope => cleanError({ jsonrpc: "2.0", id, error: mapError(error) }, reached());
  const answer = (await transport.handle(request, new server.ServerCallContext())) as Envelope | AsyncGenerator<Envelope, void, undefined>;
  if (!(Symbol.asyncIterator in answer)) return json(cleanError(answer, reached()));

  // The first update is awaited here, so a refused message is a JSON-RPC error response, not a stream that fails.
  let first: IteratorResult<Envelope, void> | null;
  try {
    first = await answer.next();
  } catch (error) {
    return json(errorEnvelope(error));
  }
  const encoder = new TextEncoder();
  const frame = (envelope: Envelope) => encoder.encode(`data: ${JSON.stringify(envelope)}\n\n`);
  // Pulled: the next update is read only when the client has taken the last one.
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = first ?? (await answer.next());
        first = null;
        if (next.done) controller.close();
        else controller.enqueue(frame(next.value));
      } catch (error) {
        if (abort.signal.aborted) return;
        log("warn", "a2a_stream_failed", { error: describeError(error) });
        controller.enqueue(frame(errorEnvelope(error)));
        controller.close();
      }
    },
    async cancel() {
      abort.abort();
      await answer.return(undefined).catch(() => undefined);
    },
  });
  return new Response(stream, { headers: SSE_HEADERS });
}
