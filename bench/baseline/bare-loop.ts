/**
 * The bare loop the platform is measured against: one Durable Object per run that keeps its
 * history in SQLite and does one unit per alarm (a model call, or the tool calls of one answer,
 * each answered by a `get_time`-like clock read), calling the same mock model over HTTP. No
 * gateway, no index, no limits, no events: the least a durable agent loop can do. Like any loop
 * that must finish, a model call has a deadline and a failed unit is tried again at once, and the
 * next alarm is never set at or before the moment the running one started: a tool unit does no
 * I/O, so `Date.now()` still reads its start, which may be the running alarm's own time, and such
 * an alarm was kept in storage but never fired (the platform's `src/storage/alarm-clock.ts`).
 */
import { DurableObject } from "cloudflare:workers";
import { createParser } from "eventsource-parser";

export interface BaselineEnv {
  LOOP: DurableObjectNamespace<BareLoop>;
  STREAMING_LOOP: DurableObjectNamespace<StreamingBareLoop>;
  LLM_BASE_URL: string;
}

export type RunStatus = "running" | "done" | "failed";

interface RunState {
  model: string;
  status: RunStatus;
  /** The next unit: a model call, or the tool calls of the last answer. */
  next: "model" | "tools";
  steps: number;
  error: string | null;
}

interface Block {
  type: string;
  id?: string;
  name?: string;
  text?: string;
  input?: unknown;
}

/** Enough for the mock's short answers; the mock ignores it. */
const MAX_TOKENS = 1024;
/** The mock answers at once; a call this slow is lost, and the unit is tried again. */
const MODEL_TIMEOUT_MS = 10_000;
/** Between a failed unit and its next try. */
const RETRY_DELAY_MS = 100;
const GET_TIME = {
  name: "get_time",
  description: "Returns the current date and time as ISO 8601 (UTC).",
  input_schema: { type: "object", properties: {}, additionalProperties: false },
};

export type ModelAnswer = { ok: true; content: Block[] } | { ok: false; error: string };

export class BareLoop extends DurableObject<BaselineEnv> {
  readonly #sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: BaselineEnv) {
    super(ctx, env);
    this.#sql = ctx.storage.sql;
    this.#sql.exec(
      "CREATE TABLE IF NOT EXISTS messages (seq INTEGER PRIMARY KEY AUTOINCREMENT, role TEXT NOT NULL, content TEXT NOT NULL)",
    );
  }

  async start(model: string, input: string): Promise<void> {
    this.#append("user", [{ type: "text", text: input }]);
    this.ctx.storage.kv.put<RunState>("run", { model, status: "running", next: "model", steps: 0, error: null });
    await this.ctx.storage.setAlarm(Date.now());
  }

  async status(): Promise<RunState | null> {
    return this.ctx.storage.kv.get<RunState>("run") ?? null;
  }

  /**
   * For a run found stalled: its state and the alarm as storage holds it, and, when it is still
   * running, the alarm set again for now so it can end (the benchmark discards such a run).
   */
  async revive(): Promise<{ run: RunState | null; alarm: number | null; now: number }> {
    const run = this.ctx.storage.kv.get<RunState>("run") ?? null;
    const alarm = await this.ctx.storage.getAlarm();
    if (run?.status === "running") await this.ctx.storage.setAlarm(Date.now());
    return { run, alarm, now: Date.now() };
  }

  override async alarm(): Promise<void> {
    const started = Date.now();
    const run = this.ctx.storage.kv.get<RunState>("run");
    if (run?.status !== "running") return;
    let next: RunState;
    try {
      next = run.next === "model" ? await this.#modelUnit(run) : this.#toolUnit(run);
    } catch {
      await this.ctx.storage.setAlarm(Date.now() + RETRY_DELAY_MS);
      return;
    }
    this.ctx.storage.kv.put("run", next);
    // Not at or before this wake's start (see above); one millisecond later is due by now anyway.
    if (next.status === "running") await this.ctx.storage.setAlarm(Math.max(Date.now(), started + 1));
  }

  async #modelUnit(run: RunState): Promise<RunState> {
    const messages = this.#sql
      .exec<{ role: string; content: string }>("SELECT role, content FROM messages ORDER BY seq")
      .toArray()
      .map((row) => ({ role: row.role, content: JSON.parse(row.content) as unknown }));
    const answer = await this.callModel(run.model, messages);
    if (!answer.ok) return { ...run, status: "failed", error: answer.error };
    this.#append("assistant", answer.content);
    const wantsTools = answer.content.some((block) => block.type === "tool_use");
    return { ...run, steps: run.steps + 1, next: "tools", status: wantsTools ? "running" : "done" };
  }

  /** One call of the Messages API, its whole answer read at once. */
  protected async callModel(model: string, messages: unknown[]): Promise<ModelAnswer> {
    const response = await this.postMessages({ model, max_tokens: MAX_TOKENS, messages, tools: [GET_TIME] });
    const text = await response.text();
    if (!response.ok) return { ok: false, error: `model answered ${response.status}` };
    return { ok: true, content: (JSON.parse(text) as { content: Block[] }).content };
  }

  protected postMessages(body: Record<string, unknown>): Promise<Response> {
    return fetch(`${this.env.LLM_BASE_URL}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": "bench", "anthropic-version": "2023-06-01" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(MODEL_TIMEOUT_MS),
    });
  }

  #toolUnit(run: RunState): RunState {
    const uses = this.#sql.exec<{ content: string }>("SELECT content FROM messages ORDER BY seq DESC LIMIT 1").one();
    const results = (JSON.parse(uses.content) as Block[])
      .filter((block) => block.type === "tool_use")
      .map((block) => ({ type: "tool_result", tool_use_id: block.id, content: new Date().toISOString() }));
    this.#append("user", results);
    return { ...run, next: "model" };
  }

  #append(role: "user" | "assistant", content: unknown[]): void {
    this.#sql.exec("INSERT INTO messages (role, content) VALUES (?, ?)", role, JSON.stringify(content));
  }
}

/**
 * The bare loop that asks for the answer as a stream (`"stream": true`) and reads it as it
 * comes, as the platform's provider code does (`src/sessions/object/model/anthropic-stream.ts`):
 * the body decoded as text, its Server-Sent Events parsed by `eventsource-parser`, the content
 * blocks put together from their deltas, and the read stopped at `message_stop`. A stream that
 * ends before it fails the unit, which is tried again. Everything else is the bare loop's.
 */
export class StreamingBareLoop extends BareLoop {
  protected override async callModel(model: string, messages: unknown[]): Promise<ModelAnswer> {
    const signal = AbortSignal.timeout(MODEL_TIMEOUT_MS);
    const response = await this.postMessages({ model, max_tokens: MAX_TOKENS, messages, tools: [GET_TIME], stream: true });
    if (!response.ok || !response.body) {
      await response.body?.cancel();
      return { ok: false, error: `model answered ${response.status}` };
    }
    const blocks: (Block & { json?: string })[] = [];
    let stopped = false;
    const parser = createParser({
      onEvent: (event) => {
        const data = JSON.parse(event.data) as StreamEvent;
        if (data.type === "content_block_start" && data.content_block) blocks[data.index ?? 0] = { ...data.content_block };
        else if (data.type === "content_block_delta" && data.delta) {
          const block = blocks[data.index ?? 0];
          if (!block) throw new Error("a delta before its block");
          if (data.delta.type === "text_delta") block.text = (block.text ?? "") + (data.delta.text ?? "");
          else if (data.delta.type === "input_json_delta") block.json = (block.json ?? "") + (data.delta.partial_json ?? "");
        } else if (data.type === "message_stop") stopped = true;
      },
    });
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    try {
      while (!stopped) {
        const chunk = await reader.read();
        if (signal.aborted) throw signal.reason;
        if (chunk.done) break;
        parser.feed(chunk.value);
      }
    } finally {
      reader.cancel().catch(() => undefined);
    }
    if (!stopped) throw new Error("the stream ended before message_stop");
    const content = blocks.map(({ json, ...block }) =>
      block.type === "tool_use" ? { ...block, input: json ? (JSON.parse(json) as unknown) : (block.input ?? {}) } : block,
    );
    return { ok: true, content };
  }
}

interface StreamEvent {
  type: string;
  index?: number;
  content_block?: Block;
  delta?: { type: string; text?: string; partial_json?: string };
}
