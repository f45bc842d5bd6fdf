/**
 * `runSession`: starts a session and takes it to its end as a backend would by hand. It creates
 * the session idle, opens its events stream, and only then posts the input: the platform streams
 * a model call's text only to those watching when the call starts, so even the first call's
 * deltas reach `onEvent` (and the cursor `after=0` replays every stored event besides). It
 * answers client tools with the given handlers, decides
 * approvals with the given callback, resumes a dropped stream from its last event id, and
 * returns the finished session with its answer, structured output, usage and cost. A run that stops
 * at a budget (`waiting_budget`) throws a `BudgetWaitError`: only raising the budget lets it go on.
 */
import type { PlatformClient } from "./client.ts";
import { expectData, PlatformError } from "./errors.ts";
import { type EventFrame, followStream } from "./events.ts";
import type { components } from "./generated/openapi.ts";
import type { FromSchema } from "./schema-types.ts";
import type { CreateSessionRequest, FinishedSession, Message, SessionStatus } from "./types.ts";
import { BudgetWaitError, isFinal } from "./wait.ts";

export type ToolCallEventData = components["schemas"]["ToolCallEventData"];
export type SessionUsage = components["schemas"]["SessionUsage"];

/**
 * Answers one call of a client tool. What it returns is the output (a string as it is, anything
 * else as JSON); what it throws is an error output (`is_error`) with the error's message, which
 * the model reads, as it would a failed webhook tool.
 */
export type ToolHandler<Input = unknown> = (input: Input, call: ToolCallEventData) => unknown;

/** Approve (`true`), deny (`false`), or deny with a reason the model reads. */
export type ApprovalDecision = boolean | { deny: string };
export type ApprovalHandler = (call: ToolCallEventData) => ApprovalDecision | Promise<ApprovalDecision>;

type ClientToolOf<R> = R extends { tools?: readonly (infer T)[] | null } ? Extract<T, { type: "client"; name: string }> : never;

/**
 * A handler whose input is typed, for a tool the SDK cannot see (an `agent`'s): from the tool's
 * JSON Schema written as a literal, `clientTool({ type: "object", … }, ({ n }) => …)`, or from a
 * type, `clientTool<{ n: number }>(({ n }) => …)`. The platform checks each call's input against
 * the tool's own schema before the call reaches the handler; the type is only as true as the
 * schema or type given here matches it.
 */
export function clientTool<const S>(inputSchema: S, handler: ToolHandler<FromSchema<S>>): ToolHandler;
export function clientTool<Input>(handler: ToolHandler<Input>): ToolHandler;
export function clientTool(first: unknown, second?: ToolHandler<never>): ToolHandler {
  return (second ?? first) as ToolHandler;
}

/**
 * One handler per client tool, its input typed from the tool's `input_schema` when the request is
 * a literal; for an `agent` (whose tools the SDK cannot see) any names, each input typed by
 * wrapping its handler in `clientTool`, else `unknown`.
 */
export type ToolHandlers<R> = [ClientToolOf<R>] extends [never]
  ? Record<string, ToolHandler>
  : { [T in ClientToolOf<R> as T["name"]]: ToolHandler<FromSchema<T extends { input_schema: infer S } ? S : never>> };

export interface RunSessionOptions<R extends CreateSessionRequest> {
  /** The client tools' handlers, by tool name. A call of a client tool without one fails the call (`UnhandledToolError`). */
  tools?: ToolHandlers<R>;
  /** Decides each call that waits for approval; without it the calls wait for someone else (the console, another service). */
  approve?: ApprovalHandler;
  /** Every event, in order, from the session's first: to show progress, log, or stream the text. */
  onEvent?: (frame: EventFrame) => void | Promise<void>;
  /** Sent as `Idempotency-Key`, so a retried call does not start a second session; a fresh one by default. */
  idempotencyKey?: string;
  signal?: AbortSignal;
  /** Wait before reconnecting a dropped stream; default 1 s. */
  reconnectDelayMs?: number;
  /** Reconnections in a row without a new event before giving up; default 10. */
  maxReconnects?: number;
}

export interface SessionRun {
  /** The session as read once its run ended. */
  session: FinishedSession;
  /** The session's `answer`: the run's final text when it ended `done`; empty otherwise (failed, cancelled, or no text). */
  answer: string;
  /** The answer parsed, when the session has an `output_schema` and the answer was valid for it; else null. */
  output: unknown;
  usage: SessionUsage;
  /** USD of the session's tokens and its sub-agents' (`session.cost_usd`); null when its model has no price. */
  cost_usd: number | null;
}

/** A client tool was called that no handler answers: the session waits for its output. */
export class UnhandledToolError extends Error {
  override name = "UnhandledToolError";
  readonly sessionId: string;
  readonly call: ToolCallEventData;

  constructor(sessionId: string, call: ToolCallEventData) {
    super(`session ${sessionId} waits for client tool ${call.name} (call ${call.id}), which has no handler`);
    this.sessionId = sessionId;
    this.call = call;
  }
}

/**
 * Starts a session (`request` is what `POST /v1/sessions` takes: a configuration, or an `agent`
 * with its `input`) and runs it to its end.
 *
 *     const { answer, usage } = await runSession(client, {
 *       input: "Where is order 7?",
 *       tools: [{ type: "client", name: "lookup_order", description: "Finds an order.",
 *                 input_schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] } }],
 *     }, { tools: { lookup_order: async ({ n }) => orders.find(n) } });
 */
export async function runSession<const R extends CreateSessionRequest>(
  client: PlatformClient,
  request: R,
  options: RunSessionOptions<R> = {},
): Promise<SessionRun> {
  if (request.input === undefined) throw new TypeError("runSession needs a request with `input`: without it the session stays idle");
  const idempotencyKey = options.idempotencyKey ?? crypto.randomUUID();
  const { input, ...configuration } = request;
  // Idle until the stream is open (see `start`).
  const created = await expectData(
    client.POST("/v1/sessions", {
      params: { header: { "idempotency-key": idempotencyKey } },
      body: configuration as CreateSessionRequest,
      signal: options.signal,
    }),
  );
  const id = created.id;
  let started = false;

  /** Posts the input once the stream is open: the run's first model call then has a watcher. */
  async function start(): Promise<void> {
    if (started) return;
    started = true;
    try {
      await expectData(
        client.POST("/v1/sessions/{id}/messages", {
          params: { path: { id }, header: { "idempotency-key": `${idempotencyKey.slice(0, 240)}.input` } },
          body: { input },
          signal: options.signal,
        }),
      );
    } catch (error) {
      await abandon(error);
      throw error;
    }
  }

  /**
   * Refused before the input was posted (bad input, no run slot, a budget, a stream refused): a
   * create with `input` would have left nothing, so the idle session goes too, unless the caller's
   * own key lets a retry take it up again.
   */
  async function abandon(error: unknown): Promise<void> {
    if (options.idempotencyKey === undefined && error instanceof PlatformError && error.status < 500) {
      await client.DELETE("/v1/sessions/{id}", { params: { path: { id } } }).catch(() => undefined);
    }
  }
  const handlers = (options.tools ?? {}) as Record<string, ToolHandler | undefined>;

  let status: SessionStatus = created.status;
  let answer = "";
  /** The calls without a result, as of their latest event. */
  const open = new Map<string, ToolCallEventData>();
  /** `<call id>:<status>` already acted on: a call is answered or decided once, even if its event comes again in a snapshot. */
  const acted = new Set<string>();

  async function act(): Promise<void> {
    if (status !== "waiting_approval" && status !== "waiting_tool_output") return;
    for (const call of [...open.values()]) {
      if (call.status !== status || acted.has(`${call.id}:${call.status}`)) continue;
      if (call.status === "waiting_approval") {
        if (!options.approve) continue;
        acted.add(`${call.id}:${call.status}`);
        await decide(call, await options.approve(call));
      } else {
        const handler = handlers[call.name];
        if (!handler) throw new UnhandledToolError(id, call);
        acted.add(`${call.id}:${call.status}`);
        await answerCall(call, handler);
      }
    }
  }

  async function decide(call: ToolCallEventData, decision: ApprovalDecision): Promise<void> {
    const path = { id, call_id: call.id };
    await tolerateDecided(
      decision === true
        ? client.POST("/v1/sessions/{id}/tool-calls/{call_id}/approve", { params: { path }, signal: options.signal })
        : client.POST("/v1/sessions/{id}/tool-calls/{call_id}/deny", {
            params: { path },
            body: decision === false ? {} : { reason: decision.deny },
            signal: options.signal,
          }),
    );
  }

  async function answerCall(call: ToolCallEventData, handler: ToolHandler): Promise<void> {
    let output: string;
    let isError = false;
    try {
      const result = await handler(call.input, call);
      output = typeof result === "string" ? result : (JSON.stringify(result) ?? "");
    } catch (error) {
      output = error instanceof Error ? error.message : String(error);
      isError = true;
    }
    await tolerateDecided(
      client.POST("/v1/sessions/{id}/tool-calls/{call_id}/output", {
        params: { path: { id, call_id: call.id } },
        body: { output, is_error: isError },
        signal: options.signal,
      }),
    );
  }

  async function stopAtBudget(): Promise<never> {
    const session = await expectData(client.GET("/v1/sessions/{id}", { params: { path: { id } }, signal: options.signal }));
    throw new BudgetWaitError(id, session);
  }

  const frames = followStream(
    id,
    async (cursor) => {
      // openapi-fetch's `stream` leaves the body unread; its `error` is a failure's parsed body.
      const { response, error } = await client.GET("/v1/sessions/{id}/events", {
        params: { path: { id }, header: cursor === null ? undefined : { "last-event-id": String(cursor) } },
        headers: { Accept: "text/event-stream" },
        parseAs: "stream",
        signal: options.signal,
      });
      return { response, error };
    },
    // From before the first event: what the run did before the stream opened is replayed.
    { after: 0, signal: options.signal, reconnectDelayMs: options.reconnectDelayMs, maxReconnects: options.maxReconnects, onOpen: start },
  );
  async function* untilEnd(): AsyncGenerator<EventFrame> {
    try {
      yield* frames;
    } catch (error) {
      if (!started) await abandon(error);
      throw error;
    }
  }
  for await (const frame of untilEnd()) {
    await options.onEvent?.(frame);
    switch (frame.type) {
      case "snapshot": {
        // Only after a cursor the platform no longer holds (`reset`): start over from its state.
        status = frame.data.status;
        open.clear();
        for (const call of frame.data.open_tool_calls) open.set(call.id, call);
        const last = frame.data.messages.at(-1);
        if (last?.role === "assistant") answer = textOf(last);
        break;
      }
      case "status":
        status = frame.data.status;
        // The run goes on only when someone raises its budget: say so instead of waiting on the stream.
        if (status === "waiting_budget") await stopAtBudget();
        break;
      case "tool_call":
        open.set(frame.data.id, frame.data);
        break;
      case "tool_result":
        open.delete(frame.data.id);
        break;
      case "message":
        if (frame.data.role === "assistant") answer = textOf(frame.data);
        else if (frame.data.role === "user") answer = "";
        break;
      default:
        break;
    }
    await act();
  }

  // The stream ended (its `end`, or a 204 when the run had ended with nothing newer): read the
  // session for its final usage and output.
  const session = await expectData(client.GET("/v1/sessions/{id}", { params: { path: { id } }, signal: options.signal }));
  if (!isFinal(session.status)) throw new Error(`the events stream of ${id} ended while the session is ${session.status}`);
  return {
    session: session as FinishedSession,
    // The platform's answer (null unless the run ended `done`); the stream's text only from a platform without the field.
    answer: session.answer === undefined ? answer : (session.answer ?? ""),
    output: session.output ?? null,
    usage: session.usage,
    cost_usd: session.cost_usd,
  };
}

function textOf(message: Message): string {
  return message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

/** A call already decided or answered by someone else (a 409) is not this run's failure. */
async function tolerateDecided(call: Promise<{ error?: unknown; response: Response }>): Promise<void> {
  try {
    await expectData(call);
  } catch (error) {
    if (error instanceof PlatformError && error.status === 409) return;
    throw error;
  }
}
