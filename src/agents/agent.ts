/**
 * The Agent Durable Object: one per session, addressed by tenant and session id. Its RPC
 * methods change state and set or delete the alarm, and never call the model; only
 * `alarm()` runs steps, one unit per alarm, so two steps never run at once.
 */
import { DurableObject } from "cloudflare:workers";
import { type Limits, MAX_ATTEMPTS } from "../limits";
import { AgentHost } from "./host";
import { finishRun, runModelStep } from "./model-step";
import { backoffDelay } from "./retry";
import type { RunState } from "./store";
import { runToolStep } from "./tool-step";
import { checkToolSpecs } from "./tools/registry";
import {
  ACTIVE_STATUSES,
  type AgentResult,
  type ContentBlock,
  type Message,
  type Page,
  type RunInput,
  type Session,
  type SessionInit,
  type ToolCall,
} from "./types";

export { CANCELLED_BEFORE_RESULT } from "./host";
export const INTERRUPTED_BY_PAUSE = "interrupted by a pause, not run again";

const notFound = { ok: false, code: "not_found", detail: "session not found" } as const;

export class Agent extends DurableObject<Cloudflare.Env> {
  readonly #host: AgentHost;

  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    this.#host = new AgentHost(ctx, env);
    // On every wake: storage written by an older version is migrated first, and a running
    // session must have its alarm (it may have been lost with a crash between a write and the
    // alarm being set).
    void ctx.blockConcurrencyWhile(async () => {
      this.#host.store.migrateIfCreated();
      await this.#host.ensureAlarm();
    });
  }

  async create(init: SessionInit, input: RunInput | null): Promise<AgentResult<Session>> {
    if (this.#host.session()) return { ok: false, code: "conflict", detail: "session already exists" };
    const problem = checkToolSpecs(init.tools) ?? (input === null ? null : checkInput(input));
    if (problem) return { ok: false, code: "invalid", detail: problem };
    const now = this.#host.nowIso();
    const run: RunState = {
      status: "idle",
      generation: 0,
      steps: 0,
      attempts: 0,
      error: null,
      stop_reason: null,
      usage: { steps: 0, input_tokens: 0, output_tokens: 0 },
      revision: 1,
      reported_revision: 0,
      updated_at: now,
    };
    this.#host.store.create({ ...init, created_at: now }, run);
    if (input !== null) this.#startRun(input);
    await this.#afterControl();
    return { ok: true, value: this.#host.view() };
  }

  async get(): Promise<AgentResult<Session>> {
    if (!this.#host.session()) return notFound;
    return { ok: true, value: this.#host.view() };
  }

  /** `cap`: the tenant's current limits, which lower the session's own for this and later runs. */
  async start(input: RunInput, cap: Limits | null = null): Promise<AgentResult<Session>> {
    if (!this.#host.session()) return notFound;
    const problem = checkInput(input);
    if (problem) return { ok: false, code: "invalid", detail: problem };
    if (ACTIVE_STATUSES.includes(this.#host.store.run().status)) {
      return { ok: false, code: "conflict", detail: "the session is already running; wait for the run to end or cancel it" };
    }
    if (cap) this.#host.capLimits(cap);
    this.#startRun(input);
    await this.#afterControl();
    return { ok: true, value: this.#host.view() };
  }

  async cancel(): Promise<AgentResult<Session>> {
    if (!this.#host.session()) return notFound;
    const run = this.#host.store.run();
    if (!ACTIVE_STATUSES.includes(run.status)) {
      return { ok: false, code: "conflict", detail: `a ${run.status} session cannot be cancelled` };
    }
    this.#host.cancelRun();
    await this.#afterControl();
    return { ok: true, value: this.#host.view() };
  }

  async pause(): Promise<AgentResult<Session>> {
    if (!this.#host.session()) return notFound;
    const run = this.#host.store.run();
    if (run.status !== "running" && run.status !== "waiting_approval" && run.status !== "waiting_tool_output") {
      return { ok: false, code: "conflict", detail: `a ${run.status} session cannot be paused` };
    }
    this.#host.abortInflight("paused");
    this.#host.transaction(() => {
      // An at-most-once call cut off by the pause may have had its effect: it is not repeated.
      for (const call of this.#host.store.openToolCalls()) {
        if (call.status === "running" && this.#host.toolbox().get(call.name)?.atMostOnce !== false) {
          this.#host.finishCall(call, INTERRUPTED_BY_PAUSE, true);
          this.#host.emit("tool_result", this.#host.store.toolCall(call.id));
        }
      }
      this.#host.updateRun({ status: "paused", generation: run.generation + 1 });
    });
    await this.#afterControl();
    return { ok: true, value: this.#host.view() };
  }

  async resume(cap: Limits | null = null): Promise<AgentResult<Session>> {
    if (!this.#host.session()) return notFound;
    const run = this.#host.store.run();
    if (run.status !== "paused") return { ok: false, code: "conflict", detail: `a ${run.status} session cannot be resumed` };
    if (cap) this.#host.capLimits(cap);
    // A pending retry keeps its backoff and its count: pausing is no way around Retry-After.
    this.#host.updateRun({ status: "running" });
    await this.#host.continueRun();
    await this.#afterControl();
    return { ok: true, value: this.#host.view() };
  }

  async approve(callId: string): Promise<AgentResult<Session>> {
    return this.#decide(callId, "waiting_approval", (call) => {
      const tool = this.#host.toolbox().get(call.name);
      this.#host.store.setToolCallStatus(call.id, tool?.kind === "client" ? "waiting_tool_output" : "pending", this.#host.nowIso());
    });
  }

  async deny(callId: string, reason: string | null): Promise<AgentResult<Session>> {
    return this.#decide(callId, "waiting_approval", (call) => {
      const text = reason ? `denied by a reviewer: ${reason}` : "denied by a reviewer";
      this.#host.finishCall(call, text, true);
    });
  }

  async submitToolOutput(callId: string, output: string, isError: boolean): Promise<AgentResult<Session>> {
    return this.#decide(callId, "waiting_tool_output", (call) => this.#host.finishCall(call, output, isError));
  }

  async listMessages(after: number, limit: number): Promise<AgentResult<Page<Message>>> {
    if (!this.#host.session()) return notFound;
    const rows = this.#host.store.messages(after, limit + 1);
    const data = rows.slice(0, limit);
    const last = data[data.length - 1];
    return { ok: true, value: { data, next_cursor: rows.length > limit && last ? String(last.seq) : null } };
  }

  async listToolCalls(): Promise<AgentResult<ToolCall[]>> {
    if (!this.#host.session()) return notFound;
    return { ok: true, value: this.#host.store.toolCalls() };
  }

  /** Cancels whatever runs and deletes every byte the session stored. */
  async erase(): Promise<AgentResult<null>> {
    if (!this.#host.session()) return notFound;
    this.#host.abortInflight("erased");
    for (const socket of this.ctx.getWebSockets()) socket.close(1000, "session erased");
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    return { ok: true, value: null };
  }

  override async fetch(request: Request): Promise<Response> {
    if (!this.#host.session()) return Response.json({ error: "not_found" }, { status: 404 });
    if (request.headers.get("Upgrade")?.toLowerCase() === "websocket") {
      const pair = new WebSocketPair();
      this.ctx.acceptWebSocket(pair[1]);
      pair[1].send(JSON.stringify({ type: "snapshot", data: this.#snapshot() }));
      return new Response(null, { status: 101, webSocket: pair[0] });
    }
    if (request.method !== "GET") return Response.json({ error: "method_not_allowed" }, { status: 405 });
    return Response.json(this.#snapshot());
  }

  override async webSocketMessage(): Promise<void> {
    // The stream is one-way; control goes through the REST API.
  }

  override async webSocketClose(socket: WebSocket, code: number): Promise<void> {
    try {
      socket.close(code === 1005 ? 1000 : code, "closing");
    } catch {
      // already closed
    }
  }

  override async alarm(): Promise<void> {
    const host = this.#host;
    if (!host.session()) return;
    if (host.store.run().reported_revision < host.store.run().revision) await host.report();
    const run = host.store.run();
    if (run.status !== "running") return void (await host.ensureAlarm());
    if ((run.next_attempt_at ?? 0) > Date.now()) return void (await host.scheduleAt(run.next_attempt_at ?? Date.now()));
    const generation = run.generation;
    try {
      if (host.store.openToolCalls().length > 0) await runToolStep(host, generation);
      else await runModelStep(host, generation);
    } catch (err) {
      // An unexpected fault (a bug, a storage error). The alarm never throws: the runtime's
      // own retries would bypass the loop's backoff and attempt count.
      console.error(`session ${host.session()?.id ?? "(erased)"}: unit failed: ${err instanceof Error ? err.stack : String(err)}`);
      if (!host.isCurrent(generation)) return;
      const attempts = host.store.run().attempts + 1;
      if (attempts >= MAX_ATTEMPTS) {
        host.transaction(() => host.closeOpenCalls("not run: the session failed"));
        await finishRun(host, "failed", "model_error", "the session failed after repeated internal errors");
        return;
      }
      const at = Date.now() + backoffDelay(attempts, null);
      host.updateRun({ attempts, next_attempt_at: at });
      await host.scheduleAt(at);
    }
  }

  // ---- private ---------------------------------------------------------------------------

  #startRun(input: RunInput): void {
    const host = this.#host;
    const content: ContentBlock[] = typeof input === "string" ? [{ type: "text", text: input }] : input;
    const message = host.transaction(() => {
      const saved = host.store.appendMessage("user", content, host.nowIso());
      const run = host.store.run();
      host.updateRun({ status: "running", generation: run.generation + 1, steps: 0, attempts: 0, error: null, stop_reason: null, next_attempt_at: 0 });
      return saved;
    });
    host.emit("message", message);
  }

  async #decide(callId: string, expected: "waiting_approval" | "waiting_tool_output", apply: (call: ToolCall) => void): Promise<AgentResult<Session>> {
    if (!this.#host.session()) return notFound;
    const call = this.#host.store.toolCall(callId);
    if (!call) return { ok: false, code: "not_found", detail: "tool call not found" };
    if (call.status !== expected) {
      return { ok: false, code: "conflict", detail: `the tool call is ${call.status}, not ${expected}` };
    }
    this.#host.transaction(() => apply(call));
    this.#host.emit("tool_call", this.#host.store.toolCall(callId));
    await this.#host.continueRun();
    await this.#afterControl();
    return { ok: true, value: this.#host.view() };
  }

  async #afterControl(): Promise<void> {
    // The alarm first, so a slow or failing report never delays (or, with a crash, loses) the
    // next step; again after it, to drop a report-retry alarm that is no longer needed.
    await this.#host.ensureAlarm();
    await this.#host.report();
    await this.#host.ensureAlarm();
  }

  #snapshot() {
    const session = this.#host.view();
    return {
      status: session.status,
      stop_reason: session.stop_reason,
      error: session.error,
      usage: session.usage,
      messages: this.#host.store.messages(),
    };
  }
}

/** The length cap of one user message; longer input belongs in a file or a tool. */
export const MAX_INPUT_CHARS = 200_000;

function checkInput(input: RunInput): string | null {
  if (typeof input === "string") {
    if (!input.trim()) return "input must not be empty";
    return input.length > MAX_INPUT_CHARS ? `input is longer than ${MAX_INPUT_CHARS} characters` : null;
  }
  if (!Array.isArray(input) || input.length === 0) return "input must be a string or a non-empty list of text blocks";
  let total = 0;
  for (const block of input) {
    if (block?.type !== "text" || typeof block.text !== "string") return "input blocks must be text blocks";
    total += block.text.length;
  }
  return total > MAX_INPUT_CHARS ? `input is longer than ${MAX_INPUT_CHARS} characters` : null;
}
