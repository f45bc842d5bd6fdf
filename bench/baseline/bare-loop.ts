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

export interface BaselineEnv {
  LOOP: DurableObjectNamespace<BareLoop>;
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

export class BareLoop extends DurableObject<BaselineEnv> {
  readonly #sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: BaselineEnv) {
    super(ctx, env);
    this.#sql = ctx.storage.sql;
    this.#sql.exec("CREATE TABLE IF NOT EXISTS messages (seq INTEGER PRIMARY KEY AUTOINCREMENT, role TEXT NOT NULL, content TEXT NOT NULL)");
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
    const response = await fetch(`${this.env.LLM_BASE_URL}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": "bench", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: run.model, max_tokens: MAX_TOKENS, messages, tools: [GET_TIME] }),
      signal: AbortSignal.timeout(MODEL_TIMEOUT_MS),
    });
    const text = await response.text();
    if (!response.ok) return { ...run, status: "failed", error: `model answered ${response.status}` };
    const content = (JSON.parse(text) as { content: Block[] }).content;
    this.#append("assistant", content);
    const wantsTools = content.some((block) => block.type === "tool_use");
    return { ...run, steps: run.steps + 1, next: "tools", status: wantsTools ? "running" : "done" };
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
