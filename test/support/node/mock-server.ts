/**
 * A scriptable stand-in for the model providers (the Anthropic Messages API and OpenAI Chat
 * Completions, `mock-openai.ts`) and for tenant webhooks, plus plain pages for the
 * URL-fetching tool. A Messages request with `"stream": true` is answered in Anthropic's
 * Server-Sent Events format; any other gets one JSON body. All traffic is keyed, so concurrent
 * tests share one server.
 * Runs under vitest's globalSetup, or standalone: `node test/support/node/mock-server.ts --port 8787`
 * (add `--use-tools` for the tool-using development model, see tool-using-model.ts). A
 * `[mock:…]` marker in a run's latest user text picks a scripted behaviour (mock-behaviours.ts).
 */
// Node runs this directly by stripping types: relative imports name their `.ts` file.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { embeddingsAnswer } from "./mock-embeddings.ts";
import { openAiError, sendChatCompletion } from "./mock-openai.ts";
import { defaultAnswer, requestProblem } from "./mock-requests.ts";
import type { HookStep, ModelStep, RecordedRequest, RawStep, ReplyStep, StatusStep, StreamShape } from "../mock-protocol";

/** Largest request body recorded; a test server still should not buffer without bound. */
const MAX_BODY_BYTES = 64 * 1024 * 1024;
/** Largest `/big` page; enough to overflow any tool output limit we configure. */
const MAX_BIG_BYTES = 256 * 1024 * 1024;
const BIG_CHUNK_BYTES = 64 * 1024;
/** Bounds on scripts, so a typo cannot queue millions of steps or wait for hours. */
const MAX_REPEAT = 10_000;
const MAX_DELAY_MS = 10 * 60_000;
const DEFAULT_USAGE = { input_tokens: 10, output_tokens: 5 };
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const NOT_JSON_BODY = '{"id":"msg_broken","content":[{"type":"text","text":"unterminated';
/** A 1×1 PNG, for `/image/png`. */
const TINY_PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "base64");

type Queue = "model" | "hook";
/** The wire format a model request came in: it shapes replies and error bodies. */
type Dialect = "anthropic" | "openai";
type AnyStep = ModelStep | HookStep;
type Result<T> = { ok: true; value: T } | { ok: false; error: string };

interface KeyState {
  model: { steps: ModelStep[]; requests: RecordedRequest[] };
  hook: { steps: HookStep[]; requests: RecordedRequest[]; held: Set<() => void> };
}

/** One request being answered: `signal` aborts when the client goes away first. */
interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  record: RecordedRequest;
  signal: AbortSignal;
  /** Set when the mock itself drops the connection, which is not a client disconnect. */
  droppedByMock: boolean;
  /** Where a held call waits for release; only webhook calls can be held. */
  held: Set<() => void> | null;
  /** The answer to a model request that nothing was scripted for. */
  defaultReply: () => ReplyStep["reply"] | Promise<ReplyStep["reply"]>;
  dialect: Dialect;
}

/**
 * Answers a model request that nothing was scripted for. Without one the mock says "ok",
 * which the tests rely on; `npm start` passes the tool-using development model.
 */
export type ModelFallback = (requestBody: unknown, serverUrl: string) => ReplyStep["reply"];

const SAY_OK: ReplyStep["reply"] = { content: [{ type: "text", text: "ok" }] };

/** The behaviour a `[mock:…]` marker asks for, or null; the module loads only when a request holds one. */
async function markedReplyOf(record: RecordedRequest, serverUrl: string): Promise<ReplyStep["reply"] | null> {
  if (!record.body_text.includes("[mock:")) return null;
  const { markedReply } = await import("./mock-behaviours.ts");
  return markedReply(record.body, { serverUrl });
}

const STEP_KINDS: Record<Queue, readonly string[]> = {
  model: ["reply", "raw", "status", "hang", "reset", "invalid_json"],
  hook: ["status", "hang", "reset", "hold"],
};
const ALL_KINDS = ["reply", "raw", "status", "hang", "reset", "invalid_json", "hold"];
const RAW_FIELDS = ["body", "content_type", "split_at", "piece_delay_ms"];
const DEFAULT_PIECE_DELAY_MS = 2;
const STREAM_FIELDS = ["chunk_chars", "event_delay_ms", "break_after", "hang_after"];
const DEFAULT_CHUNK_CHARS = 4;
const BREAK_FLUSH_MS = 50;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Checks one step against what its queue allows; `then` steps may not hold or repeat. */
function checkStep(raw: unknown, kinds: readonly string[], where: string): string | null {
  if (!isObject(raw)) return `${where}: a step must be an object`;
  const present = ALL_KINDS.filter((k) => k in raw);
  if (present.length > 1) return `${where}: a step has one kind, got ${present.join(", ")}`;
  const kind = present[0];
  if (kind !== undefined && !kinds.includes(kind)) return `${where}: "${kind}" is not allowed here`;
  const { delay_ms, repeat } = raw;
  if (delay_ms !== undefined && !(typeof delay_ms === "number" && delay_ms >= 0 && delay_ms <= MAX_DELAY_MS)) {
    return `${where}: delay_ms must be a number from 0 to ${MAX_DELAY_MS}`;
  }
  if (repeat !== undefined && !(Number.isInteger(repeat) && (repeat as number) >= 1 && (repeat as number) <= MAX_REPEAT)) {
    return `${where}: repeat must be an integer from 1 to ${MAX_REPEAT}`;
  }
  if (kind === "hang" || kind === "reset" || kind === "invalid_json" || kind === "hold") {
    if (raw[kind] !== true) return `${where}: ${kind} must be true`;
  }
  if (kind === "status") {
    const { status, headers, body } = raw;
    if (!(Number.isInteger(status) && (status as number) >= 100 && (status as number) <= 599)) {
      return `${where}: status must be an integer from 100 to 599`;
    }
    if (headers !== undefined && !(isObject(headers) && Object.values(headers).every((h) => typeof h === "string"))) {
      return `${where}: headers must map names to strings`;
    }
    if (body !== undefined && typeof body !== "string" && typeof body !== "object") {
      return `${where}: body must be a string or JSON object`;
    }
  }
  if (kind === "raw") {
    const spec = raw.raw;
    if (!isObject(spec) || typeof spec.body !== "string") return `${where}: raw.body must be a string`;
    for (const name of Object.keys(spec)) if (!RAW_FIELDS.includes(name)) return `${where}: raw.${name} is not a raw field`;
    if (spec.content_type !== undefined && typeof spec.content_type !== "string") return `${where}: raw.content_type must be a string`;
    const size = Buffer.byteLength(spec.body);
    const cuts = spec.split_at;
    if (
      cuts !== undefined &&
      !(Array.isArray(cuts) && cuts.every((c, i) => Number.isInteger(c) && c > 0 && c < size && (i === 0 || c > cuts[i - 1])))
    ) {
      return `${where}: raw.split_at must be increasing byte offsets inside the body`;
    }
    const pause = spec.piece_delay_ms;
    if (pause !== undefined && !(typeof pause === "number" && pause >= 0 && pause <= MAX_DELAY_MS))
      return `${where}: raw.piece_delay_ms must be a number from 0 to ${MAX_DELAY_MS}`;
  }
  if (kind === "reply") {
    const reply = raw.reply;
    if (!isObject(reply) || !Array.isArray(reply.content)) return `${where}: reply.content must be an array`;
    if (reply.usage !== undefined && !isObject(reply.usage)) return `${where}: reply.usage must be an object`;
    if (raw.stream !== undefined) {
      if (!isObject(raw.stream)) return `${where}: stream must be an object`;
      for (const [name, value] of Object.entries(raw.stream)) {
        if (!STREAM_FIELDS.includes(name)) return `${where}: stream.${name} is not a stream field`;
        const least = name === "chunk_chars" || name === "break_after" || name === "hang_after" ? 1 : 0;
        if (!(Number.isInteger(value) && (value as number) >= least && (value as number) <= MAX_DELAY_MS)) {
          return `${where}: stream.${name} must be an integer from ${least} to ${MAX_DELAY_MS}`;
        }
      }
    }
  } else if (raw.stream !== undefined) {
    return `${where}: stream goes with reply only`;
  }
  if (raw.match !== undefined) {
    const { match } = raw;
    if (!isObject(match) || typeof match.system_includes !== "string" || match.system_includes === "") {
      return `${where}: match must be { system_includes: a non-empty string }`;
    }
  }
  if (kind === "hold" && raw.then !== undefined) {
    if (isObject(raw.then) && "repeat" in raw.then) return `${where}: then may not repeat`;
    return checkStep(raw.then, ["status", "hang", "reset"], `${where}.then`);
  }
  return null;
}

/** Validates a `{ steps }` control body and expands `repeat`. */
function parseSteps(body: unknown, queue: Queue): Result<AnyStep[]> {
  if (!isObject(body) || !Array.isArray(body.steps)) return { ok: false, error: "body must be { steps: Step[] }" };
  const out: AnyStep[] = [];
  for (const [i, raw] of body.steps.entries()) {
    const error = checkStep(raw, STEP_KINDS[queue], `steps[${i}]`);
    if (error) return { ok: false, error };
    const { repeat = 1, ...step } = raw as AnyStep & { repeat?: number };
    for (let n = 0; n < repeat; n++) out.push(step);
  }
  return { ok: true, value: out };
}

function sendBody(res: ServerResponse, status: number, body: string, headers: Record<string, string>): void {
  res.writeHead(status, { "content-length": String(Buffer.byteLength(body)), ...headers });
  res.end(body);
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  sendBody(res, status, JSON.stringify(value), { "content-type": "application/json" });
}

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  529: "overloaded_error",
};

function anthropicError(status: number): unknown {
  const type = ERROR_TYPES[status] ?? "api_error";
  return { type: "error", error: { type, message: `mock ${type} (${status})` } };
}

function sendStatusStep(res: ServerResponse, step: StatusStep, dialect: Dialect): void {
  const { status, body, headers = {} } = step;
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  const value = body ?? (status >= 400 ? (dialect === "openai" ? openAiError(status) : anthropicError(status)) : "");
  if (typeof value === "string") {
    const type: Record<string, string> = value === "" ? {} : { "content-type": "text/plain; charset=utf-8" };
    sendBody(res, status, value, { ...type, ...lower });
  } else {
    sendBody(res, status, JSON.stringify(value), { "content-type": "application/json", ...lower });
  }
}

let messageCounter = 0;

function sendMessage(res: ServerResponse, model: string, reply: ReplyStep["reply"]): void {
  const hasToolUse = reply.content.some((b) => b.type === "tool_use");
  sendJson(res, 200, {
    id: `msg_mock_${++messageCounter}`,
    type: "message",
    role: "assistant",
    model,
    content: reply.content,
    stop_reason: reply.stop_reason ?? (hasToolUse ? "tool_use" : "end_turn"),
    stop_sequence: null,
    usage: { ...DEFAULT_USAGE, ...reply.usage },
  });
}

/** The Messages API's Server-Sent Events for `reply`, as Anthropic sends them. */
function streamEvents(model: string, reply: ReplyStep["reply"], chunkChars: number): [string, unknown][] {
  const hasToolUse = reply.content.some((b) => b.type === "tool_use");
  const usage = { ...DEFAULT_USAGE, ...reply.usage };
  const events: [string, unknown][] = [
    [
      "message_start",
      {
        type: "message_start",
        message: {
          id: `msg_mock_${++messageCounter}`,
          type: "message",
          role: "assistant",
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          // Input and cache counts come first, as Anthropic sends them; the output count at the end.
          usage: { ...usage, output_tokens: 1 },
        },
      },
    ],
    ["ping", { type: "ping" }],
  ];
  reply.content.forEach((block, index) => {
    if (block.type === "text" && typeof block.text === "string") {
      events.push(["content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } }]);
      for (let at = 0; at < block.text.length; at += chunkChars) {
        events.push([
          "content_block_delta",
          { type: "content_block_delta", index, delta: { type: "text_delta", text: block.text.slice(at, at + chunkChars) } },
        ]);
      }
    } else if (block.type === "tool_use") {
      events.push([
        "content_block_start",
        { type: "content_block_start", index, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } },
      ]);
      const json = JSON.stringify(block.input ?? {});
      const half = Math.ceil(json.length / 2);
      for (const part of [json.slice(0, half), json.slice(half)]) {
        if (part)
          events.push([
            "content_block_delta",
            { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: part } },
          ]);
      }
    } else if (block.type === "thinking") {
      events.push(["content_block_start", { type: "content_block_start", index, content_block: { type: "thinking", thinking: "" } }]);
      events.push([
        "content_block_delta",
        { type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: String(block.thinking ?? "") } },
      ]);
      if (typeof block.signature === "string")
        events.push([
          "content_block_delta",
          { type: "content_block_delta", index, delta: { type: "signature_delta", signature: block.signature } },
        ]);
    } else {
      events.push(["content_block_start", { type: "content_block_start", index, content_block: block }]);
    }
    events.push(["content_block_stop", { type: "content_block_stop", index }]);
  });
  events.push(
    [
      "message_delta",
      {
        type: "message_delta",
        delta: { stop_reason: reply.stop_reason ?? (hasToolUse ? "tool_use" : "end_turn"), stop_sequence: null },
        usage: { output_tokens: usage.output_tokens },
      },
    ],
    ["message_stop", { type: "message_stop" }],
  );
  return events;
}

/** Sends the stream event by event, breaking or hanging where the step says. */
async function sendStream(x: Exchange, model: string, reply: ReplyStep["reply"], shape: StreamShape = {}): Promise<void> {
  const events = streamEvents(model, reply, shape.chunk_chars ?? DEFAULT_CHUNK_CHARS);
  x.res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
  for (const [n, [name, data]] of events.entries()) {
    if (n > 0 && shape.event_delay_ms) {
      const waited = await sleep(shape.event_delay_ms, true, { signal: x.signal }).catch(() => false);
      if (!waited) return;
    }
    if (x.signal.aborted) return;
    if (shape.break_after !== undefined && n >= shape.break_after) {
      // A reset can discard data the client has not read yet: let what was sent arrive first.
      await sleep(BREAK_FLUSH_MS);
      x.droppedByMock = true;
      x.req.socket.resetAndDestroy();
      return;
    }
    if (shape.hang_after !== undefined && n >= shape.hang_after) return;
    x.res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
  }
  x.res.end();
}

/** A recorded body sent byte for byte, cut where the step says. */
async function sendRaw(x: Exchange, spec: RawStep["raw"]): Promise<void> {
  const bytes = Buffer.from(spec.body, "utf8");
  x.res.writeHead(200, { "content-type": spec.content_type ?? "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
  const cuts = [0, ...(spec.split_at ?? []), bytes.length];
  for (let n = 0; n + 1 < cuts.length; n++) {
    if (n > 0) {
      const waited = await sleep(spec.piece_delay_ms ?? DEFAULT_PIECE_DELAY_MS, true, { signal: x.signal }).catch(() => false);
      if (!waited) return;
    }
    x.res.write(bytes.subarray(cuts[n], cuts[n + 1]));
  }
  x.res.end();
}

function wantsStream(x: Exchange): boolean {
  return isObject(x.record.body) && x.record.body.stream === true;
}

/** A scripted reply in the request's dialect, streamed when the request asked for a stream. */
function sendReply(x: Exchange, reply: ReplyStep["reply"], shape?: StreamShape): void | Promise<void> {
  const body = (x.record.body ?? {}) as { model?: unknown; stream?: unknown; stream_options?: { include_usage?: unknown } };
  const model = String(body.model);
  if (x.dialect === "openai") {
    return sendChatCompletion(x.res, model, reply, {
      stream: body.stream === true,
      includeUsage: body.stream_options?.include_usage === true,
    });
  }
  if (wantsStream(x)) return sendStream(x, model, reply, shape);
  sendMessage(x.res, model, reply);
}

async function sendDefault(x: Exchange, queue: Queue): Promise<void> {
  if (queue === "hook") return sendJson(x.res, 200, { output: "webhook ok" });
  // A forced tool or a JSON schema is answered in kind, as the real model must.
  return sendReply(x, await defaultAnswer(x.dialect, x.record.body, await x.defaultReply()));
}

/** The system prompt of a model request in either dialect, for steps that `match` on it. */
function systemText(body: unknown): string {
  if (!isObject(body)) return "";
  const { system, messages } = body;
  if (typeof system === "string") return system;
  if (Array.isArray(system)) return system.map((b) => (isObject(b) && typeof b.text === "string" ? b.text : "")).join("\n");
  const first = Array.isArray(messages) ? messages[0] : undefined;
  return isObject(first) && first.role === "system" && typeof first.content === "string" ? first.content : "";
}

/**
 * The step a request takes: the first step whose `match` it satisfies, else the first step
 * without one. So a test can script, say, summary calls apart from the loop's calls without
 * knowing in advance where between them they will come.
 */
function takeStep<S extends { match?: { system_includes: string } }>(steps: S[], record: RecordedRequest): S | undefined {
  const system = systemText(record.body);
  let index = steps.findIndex((step) => step.match !== undefined && system.includes(step.match.system_includes));
  if (index === -1) index = steps.findIndex((step) => step.match === undefined);
  return index === -1 ? undefined : steps.splice(index, 1)[0];
}

/** Resolves true on release, false if the client leaves while held. */
function waitForRelease(x: Exchange, held: Set<() => void>): Promise<boolean> {
  return new Promise((resolve) => {
    const release = () => {
      x.signal.removeEventListener("abort", onAbort);
      resolve(true);
    };
    const onAbort = () => {
      held.delete(release);
      resolve(false);
    };
    held.add(release);
    x.signal.addEventListener("abort", onAbort, { once: true });
  });
}

async function play(x: Exchange, step: AnyStep | undefined, queue: Queue): Promise<void> {
  if (step?.delay_ms) {
    const waited = await sleep(step.delay_ms, true, { signal: x.signal }).catch(() => false);
    if (!waited) return;
  }
  if (x.signal.aborted) return;
  if (step === undefined) return sendDefault(x, queue);
  if ("hang" in step) return;
  if ("reset" in step) {
    x.droppedByMock = true;
    x.req.socket.resetAndDestroy();
    return;
  }
  if ("hold" in step && x.held) {
    if (await waitForRelease(x, x.held)) await play(x, step.then, queue);
    return;
  }
  if ("status" in step) return sendStatusStep(x.res, step, x.dialect);
  if ("reply" in step) return sendReply(x, step.reply, step.stream);
  if ("raw" in step) return sendRaw(x, step.raw);
  if ("invalid_json" in step) return sendBody(x.res, 200, NOT_JSON_BODY, { "content-type": "application/json" });
  return sendDefault(x, queue);
}

async function readBody(req: IncomingMessage): Promise<Result<string>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return { ok: false, error: `body over ${MAX_BODY_BYTES} bytes` };
    chunks.push(chunk);
  }
  return { ok: true, value: Buffer.concat(chunks).toString("utf8") };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function recordOf(req: IncomingMessage, bodyText: string, receivedAt: number): RecordedRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return {
    method: req.method ?? "GET",
    path: req.url ?? "/",
    headers,
    body_text: bodyText,
    body: parseJson(bodyText),
    received_at: receivedAt,
  };
}

/** Ties the record's timestamps and the abort signal to the response's fate. */
function openExchange(
  req: IncomingMessage,
  res: ServerResponse,
  record: RecordedRequest,
  held: Set<() => void> | null,
  defaultReply: Exchange["defaultReply"] = () => SAY_OK,
  dialect: Dialect = "anthropic",
): Exchange {
  const controller = new AbortController();
  const x: Exchange = { req, res, record, signal: controller.signal, droppedByMock: false, held, defaultReply, dialect };
  res.on("finish", () => {
    record.answered_at = Date.now();
  });
  res.on("close", () => {
    if (res.writableFinished) return;
    if (!x.droppedByMock) record.disconnected_at = Date.now();
    controller.abort();
  });
  return x;
}

function servePage(res: ServerResponse, segments: string[], query: URLSearchParams): boolean {
  const [first, second, ...rest] = segments;
  if (first === "page" && second !== undefined && rest.length === 0) {
    sendBody(res, 200, `page ${second}`, { "content-type": "text/plain; charset=utf-8" });
  } else if (first === "redirect" && second === undefined) {
    const to = query.get("to");
    const status = Number(query.get("status") ?? "302");
    if (!to || !REDIRECT_STATUSES.has(status)) sendJson(res, 400, { error: "need ?to=<url> and a redirect status" });
    else sendBody(res, status, "", { location: to });
  } else if (first === "big" && second === undefined) {
    const bytes = Number(query.get("bytes") ?? "0");
    if (!Number.isInteger(bytes) || bytes < 0 || bytes > MAX_BIG_BYTES) sendJson(res, 400, { error: "bad ?bytes" });
    else streamBig(res, bytes);
  } else if (first === "image" && second === "png" && rest.length === 0) {
    // A valid 1×1 PNG, then `pad` bytes after its end (readers stop at IEND): any size, same image.
    const pad = Number(query.get("pad") ?? "0");
    if (!Number.isInteger(pad) || pad < 0 || pad > MAX_BIG_BYTES) {
      sendJson(res, 400, { error: "bad ?pad" });
    } else {
      const body = Buffer.concat([TINY_PNG, Buffer.alloc(pad)]);
      res.writeHead(200, { "content-type": "image/png", "content-length": String(body.length) });
      res.end(body);
    }
  } else if (first === "binary" && second === undefined) {
    const body = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    res.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(body.length) });
    res.end(body);
  } else {
    return false;
  }
  return true;
}

/** Streams in chunks, honouring backpressure, so huge pages do not sit in memory. */
function streamBig(res: ServerResponse, bytes: number): void {
  res.writeHead(200, { "content-type": "text/plain; charset=utf-8", "content-length": String(bytes) });
  const chunk = Buffer.alloc(BIG_CHUNK_BYTES, "x");
  let left = bytes;
  const pump = () => {
    while (left > 0 && !res.destroyed) {
      const n = Math.min(left, BIG_CHUNK_BYTES);
      left -= n;
      if (!res.write(n === BIG_CHUNK_BYTES ? chunk : chunk.subarray(0, n))) return void res.once("drain", pump);
    }
    res.end();
  };
  pump();
}

export interface MockServer {
  url: string;
  close(): Promise<void>;
}

export interface MockServerOptions {
  port?: number;
  modelFallback?: ModelFallback;
}

export async function startMockServer(options: MockServerOptions = {}): Promise<MockServer> {
  let serverUrl = "";
  const fallback = options.modelFallback;
  const keys = new Map<string, KeyState>();
  const stateOf = (key: string): KeyState => {
    let state = keys.get(key);
    if (!state) {
      state = { model: { steps: [], requests: [] }, hook: { steps: [], requests: [], held: new Set() } };
      keys.set(key, state);
    }
    return state;
  };
  const releaseHeld = (key: string): number => {
    const held = keys.get(key)?.hook.held;
    if (!held) return 0;
    const waiters = [...held];
    held.clear();
    for (const release of waiters) release();
    return waiters.length;
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const receivedAt = Date.now();
    const url = new URL(req.url ?? "/", "http://mock.invalid");
    const method = req.method ?? "GET";
    let segments: string[];
    try {
      segments = url.pathname.split("/").slice(1).map(decodeURIComponent);
    } catch {
      return sendJson(res, 400, { error: "malformed path" });
    }
    // A leading `groq` stands for Groq's server, with its rules (a gateway's URL names it so too).
    const server = segments[0] === "groq" && segments[1] === "v1" ? segments.shift() : undefined;
    const [first, second, third, fourth, ...rest] = segments;

    if (method === "GET" && servePage(res, segments, url.searchParams)) return;
    // A redirect answers any method, so a test can see what a client does with a POST body.
    if (method === "POST" && segments[0] === "redirect" && servePage(res, segments, url.searchParams)) return;

    const body = await readBody(req);
    if (!body.ok) return sendJson(res, 413, { error: body.error });

    const dialect: Dialect | null =
      method !== "POST" || first !== "v1" || fourth !== undefined
        ? null
        : second === "messages" && third === undefined
          ? "anthropic"
          : second === "chat" && third === "completions"
            ? "openai"
            : null;
    if (method === "POST" && first === "v1" && second === "embeddings" && third === undefined) {
      const record = recordOf(req, body.value, receivedAt);
      const answer = embeddingsAnswer(record.body);
      if (!answer) return sendJson(res, 400, openAiError(400));
      stateOf(answer.model as string).model.requests.push(record);
      return sendJson(res, 200, answer);
    }
    if (dialect) {
      const record = recordOf(req, body.value, receivedAt);
      const model = isObject(record.body) ? record.body.model : undefined;
      if (typeof model !== "string" || model === "")
        return sendJson(res, 400, dialect === "openai" ? openAiError(400) : anthropicError(400));
      const state = stateOf(model);
      state.model.requests.push(record);
      const problem = requestProblem(dialect, record.body, server);
      if (problem) {
        const error = dialect === "openai" ? openAiError(400) : anthropicError(400);
        (error as { error: { message: string } }).error.message = problem;
        return sendJson(res, 400, error);
      }
      const usual = () => (fallback ? fallback(record.body, serverUrl) : SAY_OK);
      // A marker in the run's latest user text picks a scripted behaviour (mock-behaviours.ts).
      const defaultReply = async () => (dialect === "anthropic" ? await markedReplyOf(record, serverUrl) : null) ?? usual();
      return play(openExchange(req, res, record, null, defaultReply, dialect), takeStep(state.model.steps, record), "model");
    }
    if (first === "hook" && second !== undefined && second !== "") {
      const state = stateOf(second);
      const record = recordOf(req, body.value, receivedAt);
      state.hook.requests.push(record);
      return play(openExchange(req, res, record, state.hook.held), state.hook.steps.shift(), "hook");
    }
    if (first === "_mock") {
      const queue = second === "model" || second === "hook" ? second : undefined;
      if (method === "GET" && second === "health" && third === undefined) return sendJson(res, 200, { ok: true });
      if (method === "DELETE" && second !== undefined && third === undefined) {
        releaseHeld(second);
        keys.delete(second);
        return sendJson(res, 200, { forgotten: second });
      }
      if (queue && third !== undefined && rest.length === 0) {
        if (method === "POST" && fourth === undefined) {
          const steps = parseSteps(parseJson(body.value), queue);
          if (!steps.ok) return sendJson(res, 400, { error: steps.error });
          const target: AnyStep[] = stateOf(third)[queue].steps;
          // A loop, not push(...spread): a large `repeat` would overflow the argument limit.
          for (const step of steps.value) target.push(step);
          return sendJson(res, 200, { queued: target.length });
        }
        if (method === "GET" && fourth === "requests") {
          return sendJson(res, 200, { requests: keys.get(third)?.[queue].requests ?? [] });
        }
        if (method === "POST" && queue === "hook" && fourth === "release") {
          return sendJson(res, 200, { released: releaseHeld(third) });
        }
      }
    }
    sendJson(res, 404, { error: "not_found", method, path: url.pathname });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // A client that vanished mid-body surfaces here; there is nobody left to answer.
      if (!res.headersSent && !res.destroyed) sendJson(res, 500, { error: String(error) });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("mock server has no TCP address");
  serverUrl = `http://127.0.0.1:${address.port}`;
  return {
    url: serverUrl,
    close: () =>
      new Promise<void>((resolve) => {
        // Hung and held requests would otherwise keep close() waiting forever.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function portFromArgs(argv: string[]): number | undefined {
  const i = argv.indexOf("--port");
  if (i === -1) return undefined;
  const port = Number(argv[i + 1]);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`bad --port ${argv[i + 1]}`);
  return port;
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  // Loaded only when asked for, so the tests' server does not load the schema sampler.
  const modelFallback = args.includes("--use-tools") ? (await import("./tool-using-model.ts")).toolUsingFallback : undefined;
  const server = await startMockServer({ port: portFromArgs(args), modelFallback });
  // The URL alone on a line, so a parent process can read it from stdout.
  console.log(server.url);
  const stop = () => void server.close().then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
