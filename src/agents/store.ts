/**
 * The Agent's storage. SQLite tables hold the conversation, the tool calls and the stored
 * events; the synchronous KV holds the session's fixed settings and its run state. Nothing
 * is written until the session is created, so an id that was never created leaves no trace.
 *
 * Tables
 *   messages   (seq PK autoincrement, role, content JSON content blocks, created_at)
 *   tool_calls (id PK = the model's tool_use id, step, message_seq, position, name, input JSON,
 *               status, output, is_error, reported 0|1, created_at, started_at, finished_at)
 *               `reported` = 1 once its tool_result message is written; `restarts`: how
 *               often a restart cut the call off and it was run again.
 *   events     (id PK autoincrement, type, data JSON, created_at)
 *   run_tools  (name PK = the name offered to the model, position, server = the session's mcp
 *               tool, remote_name, description, input_schema JSON, at_most_once 0|1): what
 *               the MCP servers offered when the current run started; emptied when a run starts.
 * KV
 *   session         SessionInit + created_at (written once)
 *   run             RunState
 *   schema_version  the last migration applied (src/agents/migrations.ts)
 *   run_tools       { discovered_at }: present once the current run's MCP tools are saved
 * Storage is migrated when a session is created and on every wake of an existing one.
 */
import { migrate } from "../storage/migrations";
import type { IntPairCursor } from "../tenants/cursor";
import { AGENT_MIGRATIONS } from "./migrations";
import type { DiscoveredTool } from "./tools/mcp/plan";
import type { ContentBlock, Message, Role, SessionInit, StopReason, SessionStatus, ToolCall, ToolCallStatus, Usage } from "./types";

export interface RunState {
  status: SessionStatus;
  /** Bumped by start, cancel and pause; a unit whose generation is stale discards its result. */
  generation: number;
  /** Model calls in the current run (the step limit counts these). */
  steps: number;
  /** Failed tries of the current unit. */
  attempts: number;
  error: string | null;
  stop_reason: StopReason | null;
  /** Session totals; `steps` counts model calls over all runs. */
  usage: Usage;
  /** Bumped on every change the tenant index should hear of. */
  revision: number;
  /** The highest revision the tenant index has acknowledged. */
  reported_revision: number;
  /**
   * The revision of the newest change the index must hear of at once (a status change); a
   * change of usage alone may wait for the next coalesced report (see report/report-policy.ts).
   */
  urgent_revision: number;
  /** When the index last acknowledged a report, epoch ms (0: never). */
  last_report_at: number;
  /** Failed reports in a row, for their backoff. */
  report_failures: number;
  /** Epoch ms before which a failed report is not tried again (0: none failed). */
  report_retry_at: number;
  /** Epoch ms before which the next unit must not start (a retry's backoff; 0: none). */
  next_attempt_at: number;
  updated_at: string;
}

export interface StoredSession extends SessionInit {
  created_at: string;
}


type Row = Record<string, SqlStorageValue>;

const RUN_TOOLS_KEY = "run_tools";

export class AgentStore {
  constructor(private readonly storage: DurableObjectStorage) {}

  /** The session's settings, or undefined when it was never created. Reads only. */
  session(): StoredSession | undefined {
    return this.storage.kv.get<StoredSession>("session");
  }

  requireSession(): StoredSession {
    const session = this.session();
    if (!session) throw new Error("session used before it was created");
    return session;
  }

  /** Brings an existing session's storage to the current layout; a never-created id stays empty. */
  migrateIfCreated(): void {
    if (this.session()) migrate(this.storage, AGENT_MIGRATIONS);
  }

  putSession(session: StoredSession): void {
    this.storage.kv.put("session", session);
  }

  run(): RunState {
    const run = this.storage.kv.get<RunState>("run");
    if (!run) throw new Error("run state read before the session was created");
    return run;
  }

  putRun(run: RunState): void {
    this.storage.kv.put("run", run);
  }

  /** Creates the tables and writes the settings; the one place that first writes storage. */
  create(session: StoredSession, run: RunState): void {
    migrate(this.storage, AGENT_MIGRATIONS);
    this.storage.kv.put("session", session);
    this.storage.kv.put("run", run);
  }

  #inTransaction = false;

  /** Runs `fn` atomically; a transaction opened inside another joins the outer one. */
  transaction<T>(fn: () => T): T {
    if (this.#inTransaction) return fn();
    this.#inTransaction = true;
    try {
      return this.storage.transactionSync(fn);
    } finally {
      this.#inTransaction = false;
    }
  }

  appendMessage(role: Role, content: ContentBlock[], now: string): Message {
    const row = this.storage.sql
      .exec("INSERT INTO messages (role, content, created_at) VALUES (?, ?, ?) RETURNING seq", role, JSON.stringify(content), now)
      .one();
    return { seq: Number(row.seq), role, content, created_at: now };
  }

  messages(after = 0, limit = Number.MAX_SAFE_INTEGER): Message[] {
    return this.storage.sql
      .exec("SELECT seq, role, content, created_at FROM messages WHERE seq > ? ORDER BY seq LIMIT ?", after, limit)
      .toArray()
      .map(toMessage);
  }

  insertToolCall(call: { id: string; step: number; messageSeq: number; position: number; name: string; input: unknown; status: ToolCallStatus; now: string }): void {
    this.storage.sql.exec(
      "INSERT INTO tool_calls (id, step, message_seq, position, name, input, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      call.id,
      call.step,
      call.messageSeq,
      call.position,
      call.name,
      JSON.stringify(call.input ?? null),
      call.status,
      call.now,
    );
  }

  toolCall(id: string): ToolCall | undefined {
    const row = this.storage.sql.exec("SELECT * FROM tool_calls WHERE id = ?", id).toArray()[0];
    return row ? toToolCall(row) : undefined;
  }

  /**
   * Up to `limit` calls in call order after the call at (`after.first` = message_seq,
   * `after.second` = position), and where the next page starts when more follow.
   */
  toolCallPage(after: IntPairCursor | null, limit: number): { calls: ToolCall[]; next: IntPairCursor | null } {
    const seq = after?.first ?? -1;
    const position = after?.second ?? -1;
    const rows = this.storage.sql
      .exec(
        "SELECT * FROM tool_calls WHERE message_seq > ? OR (message_seq = ? AND position > ?) ORDER BY message_seq, position LIMIT ?",
        seq,
        seq,
        position,
        limit + 1,
      )
      .toArray();
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const next = rows.length > limit && last ? { first: Number(last.message_seq), second: Number(last.position) } : null;
    return { calls: page.map(toToolCall), next };
  }

  toolCalls(): ToolCall[] {
    return this.storage.sql.exec("SELECT * FROM tool_calls ORDER BY message_seq, position").toArray().map(toToolCall);
  }

  /** The calls of the latest model response whose results the model has not seen yet. */
  openToolCalls(): ToolCall[] {
    return this.storage.sql.exec("SELECT * FROM tool_calls WHERE reported = 0 ORDER BY message_seq, position").toArray().map(toToolCall);
  }

  setToolCallStatus(id: string, status: ToolCallStatus, now: string): void {
    const started = status === "running" ? now : null;
    this.storage.sql.exec("UPDATE tool_calls SET status = ?, started_at = COALESCE(?, started_at) WHERE id = ?", status, started, id);
  }

  finishToolCall(id: string, output: string, isError: boolean, now: string): void {
    this.storage.sql.exec(
      "UPDATE tool_calls SET status = ?, output = ?, is_error = ?, finished_at = ? WHERE id = ?",
      isError ? "error" : "done",
      output,
      isError ? 1 : 0,
      now,
      id,
    );
  }

  /** Counts one more restart that cut the call off; returns the count. */
  countRestart(id: string): number {
    return Number(this.storage.sql.exec("UPDATE tool_calls SET restarts = restarts + 1 WHERE id = ? RETURNING restarts", id).one().restarts);
  }

  markToolCallsReported(ids: string[]): void {
    for (const id of ids) this.storage.sql.exec("UPDATE tool_calls SET reported = 1 WHERE id = ?", id);
  }

  /** Whether the current run's MCP tools were discovered and saved. */
  runToolsDiscovered(): boolean {
    return this.storage.kv.get(RUN_TOOLS_KEY) !== undefined;
  }

  runTools(): DiscoveredTool[] {
    return this.storage.sql
      .exec("SELECT * FROM run_tools ORDER BY position")
      .toArray()
      .map((row) => ({
        name: String(row.name),
        server: String(row.server),
        remote_name: String(row.remote_name),
        description: String(row.description),
        input_schema: JSON.parse(String(row.input_schema)) as Record<string, unknown>,
        at_most_once: row.at_most_once === 1,
      }));
  }

  /** Saves the run's MCP tools (in one transaction with the caller's other writes). */
  saveRunTools(tools: readonly DiscoveredTool[], now: string): void {
    this.storage.sql.exec("DELETE FROM run_tools");
    tools.forEach((tool, position) => {
      this.storage.sql.exec(
        "INSERT INTO run_tools (name, position, server, remote_name, description, input_schema, at_most_once) VALUES (?, ?, ?, ?, ?, ?, ?)",
        tool.name,
        position,
        tool.server,
        tool.remote_name,
        tool.description,
        JSON.stringify(tool.input_schema),
        tool.at_most_once ? 1 : 0,
      );
    });
    this.storage.kv.put(RUN_TOOLS_KEY, { discovered_at: now });
  }

  /** A new run lists its servers' tools again. */
  clearRunTools(): void {
    this.storage.sql.exec("DELETE FROM run_tools");
    this.storage.kv.delete(RUN_TOOLS_KEY);
  }

  appendEvent(type: string, data: unknown, now: string): number {
    const row = this.storage.sql
      .exec("INSERT INTO events (type, data, created_at) VALUES (?, ?, ?) RETURNING id", type, JSON.stringify(data), now)
      .one();
    return Number(row.id);
  }
}

function toMessage(row: Row): Message {
  return {
    seq: Number(row.seq),
    role: row.role as Role,
    content: JSON.parse(String(row.content)) as ContentBlock[],
    created_at: String(row.created_at),
  };
}

function toToolCall(row: Row): ToolCall {
  return {
    id: String(row.id),
    step: Number(row.step),
    name: String(row.name),
    input: JSON.parse(String(row.input)),
    status: row.status as ToolCallStatus,
    output: row.output === null ? null : String(row.output),
    is_error: row.is_error === 1,
    created_at: String(row.created_at),
    started_at: row.started_at === null ? null : String(row.started_at),
    finished_at: row.finished_at === null ? null : String(row.finished_at),
  };
}
