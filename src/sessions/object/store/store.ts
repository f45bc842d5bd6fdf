/**
 * The Agent's storage. SQLite tables hold the conversation, the tool calls and the stored
 * events; the synchronous KV holds the session's fixed settings and its run state. Nothing
 * is written until the session is created, so an id that was never created leaves no trace.
 *
 * Tables
 *   messages   (seq PK autoincrement, role, content JSON content blocks, created_at,
 *               tokens = the estimate of the message (context/estimate.ts), kind = input |
 *               tool_result | answer | tool_use; both computed once, when it is saved)
 *   summaries  (id PK autoincrement, first_seq, last_seq = the messages it stands for, content,
 *               tokens, created_at); the newest row is the session's summary, each one extending
 *               the one before
 *   pending_messages (id PK autoincrement, content JSON content blocks, created_at, options JSON
 *               RunOptions or NULL): messages posted with `if_running: enqueue`, oldest first;
 *               each starts a run in turn, with its own options
 *   images     (id PK = img_ + the first 32 hex digits of the bytes' SHA-256, media_type,
 *               size_bytes, width, height, created_at): each image of the session once; messages
 *               and queued messages hold `image` blocks that refer to it by id
 *   image_chunks (image_id, idx, data BLOB; PK (image_id, idx)): the bytes in pieces of at most
 *               `IMAGE_CHUNK_BYTES`, since a row holds at most 2 MB
 *   tool_calls (id PK = the model's tool_use id, step, message_seq, position, name, input JSON,
 *               status, output, is_error, reported 0|1, created_at, started_at, finished_at,
 *               restarts, decided_by, decided_at, decision)
 *               `reported` = 1 once its tool_result message is written; `restarts`: how
 *               often a restart cut the call off and it was run again; the `decided_*` columns
 *               are set when a call that needed approval is approved, denied or expires.
 *   events     (id PK autoincrement, type, data JSON, created_at): the event log, replayed by
 *              id (the primary key is the replay index). `data` holds small events whole and
 *              messages and tool calls as references ({ seq } / { id, status }); ids are never
 *              reused, so a cursor stays meaningful after pruning (events/retention.ts).
 *   steps      (seq PK autoincrement, kind, started_at ms, ended_at ms, queued_ms, input_tokens,
 *               output_tokens, outcome): one row per unit of work, the newest `MAX_STORED_STEPS` kept
 *   run_tools  (name PK = the name offered to the model, position, server = the session's mcp
 *               tool, remote_name, description, input_schema JSON, at_most_once 0|1): what
 *               the MCP servers offered when the current run started; emptied when a run starts.
 *   outbox     (seq PK autoincrement, id = event id, type, created_at, session JSON): status
 *               notifications owed to the tenant index, written with the status change; deleted
 *               once the index has them (notify/outbox.ts)
 * KV
 *   session         SessionInit + created_at (written once)
 *   run             RunState
 *   outbox_retry    { failures, retry_at ms }: a failed hand-off of the outbox; absent when none failed
 *   schema_version  the last migration applied (src/sessions/object/store/migrations.ts)
 *   run_output_schema  the current (or last) run's `output_schema`, or null (absent: no run yet)
 *   run_output      the parsed answer of the last run that ended `done` with one (absent: none)
 *   events_pruned_through  every event up to this id was pruned (absent: none)
 *   run_tools       { discovered_at }: present once the current run's MCP tools are saved
 * Storage is migrated when a session is created and on every wake of an existing one.
 */
import type { Notification } from "../../../notifications/types";
import { migrate } from "../../../storage/migrations";
import type { IntPairCursor } from "../../../shared/cursor";
import { estimateMessageTokens, type MessageKind, messageKind } from "../context/estimate";
import type { MessageMeta } from "../context/window";
import { KvStretchCache } from "../engine/kv-stretch";
import { AGENT_MIGRATIONS } from "./migrations";
import type { UnitKind, UnitOutcome } from "../loop/next-unit";
import type { DiscoveredTool } from "../tools/mcp/plan";
import type { ContentBlock, ImageMediaType, Message, OutputSchema, Role, RunOptions, SessionInit, StopReason, SessionStatus, ToolCall, ToolCallDecision, ToolCallStatus, Usage } from "../../types";

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
  /** Epoch ms since which the next unit has been ready: the run went running, or the last unit ended. */
  ready_at: number;
  /** Epoch ms when the current (or last) run started, for its duration in the logs (0: unknown). */
  run_started_at: number;
  /** The seq of the current run's first user message, which every model call is sent (0: none). */
  run_start_seq: number;
  /** The provider's input count over the estimate at the last call, ≥ 1 (see `calibratedRatio`). */
  token_ratio: number;
  /** Answers of the current run that were not valid for its `output_schema`. */
  invalid_outputs: number;
  /** Why the last of them was not valid; the run's `error` if it fails with `invalid_output`. */
  output_error: string | null;
  updated_at: string;
}

/** A message waiting for its run (`if_running: enqueue`). */
export interface QueuedMessage {
  content: ContentBlock[];
  options: RunOptions;
}

/** An image as stored, without its bytes. */
export interface StoredImage {
  id: string;
  media_type: ImageMediaType;
  size_bytes: number;
  width: number;
  height: number;
}

/** Bytes per `image_chunks` row: well inside the 2 MB a Durable Object's SQLite row may hold. */
export const IMAGE_CHUNK_BYTES = 1024 * 1024;

export interface StoredSummary {
  id: number;
  first_seq: number;
  last_seq: number;
  content: string;
  tokens: number;
  created_at: string;
}

export interface StoredSession extends SessionInit {
  created_at: string;
}

/** A notification owed to the tenant index: the notification without its tenant (the session's own). */
export type OutboxEntry = Omit<Notification, "tenant_id">;

/** Failed hand-offs of the outbox in a row, and when the next one may be tried (epoch ms). */
export interface OutboxRetry {
  failures: number;
  retry_at: number;
}


type Row = Record<string, SqlStorageValue>;

/** Unit timings kept per session: enough to see where a long session's time went. */
export const MAX_STORED_STEPS = 1_000;
const STEP_PRUNE_EVERY = 100;

/** One unit of work as stored; times are epoch ms. */
export interface StepRecord {
  seq: number;
  kind: UnitKind;
  started_at: number;
  ended_at: number;
  queued_ms: number;
  input_tokens: number | null;
  output_tokens: number | null;
  outcome: UnitOutcome;
}

const RUN_TOOLS_KEY = "run_tools";

export class AgentStore {
  /** The KV entries below, read once per synchronous stretch (see kv-stretch.ts). */
  readonly #kv: KvStretchCache;

  constructor(private readonly storage: DurableObjectStorage) {
    this.#kv = new KvStretchCache(storage.kv);
  }

  /** The session's settings, or undefined when it was never created. Reads only. */
  session(): StoredSession | undefined {
    return this.#kv.get<StoredSession>("session");
  }

  /** Whether the session exists (was created and not erased), without reading its settings. */
  exists(): boolean {
    return this.#kv.get<RunState>("run") !== undefined;
  }

  /** Storage was changed or erased other than through this store. */
  forget(): void {
    this.#kv.forget();
  }

  requireSession(): StoredSession {
    const session = this.session();
    if (!session) throw new Error("session used before it was created");
    return session;
  }

  /** Brings an existing session's storage to the current layout; a never-created id stays empty. */
  migrateIfCreated(): void {
    if (!this.session()) return;
    migrate(this.storage, AGENT_MIGRATIONS);
    this.#kv.forget(); // a migration may rewrite the stored run state
  }

  putSession(session: StoredSession): void {
    this.#kv.put("session", session);
  }

  run(): RunState {
    const run = this.#kv.get<RunState>("run");
    if (!run) throw new Error("run state read before the session was created");
    return run;
  }

  putRun(run: RunState): void {
    this.#kv.put("run", run);
  }

  /** Creates the tables and writes the settings; the one place that first writes storage. */
  create(session: StoredSession, run: RunState): void {
    migrate(this.storage, AGENT_MIGRATIONS);
    this.#kv.forget();
    this.#kv.put("session", session);
    this.#kv.put("run", run);
  }

  #inTransaction = false;

  /** Runs `fn` atomically; a transaction opened inside another joins the outer one. */
  transaction<T>(fn: () => T): T {
    if (this.#inTransaction) return fn();
    this.#inTransaction = true;
    try {
      return this.storage.transactionSync(fn);
    } catch (err) {
      // Rolled back: what the cache remembers of its writes never happened.
      this.#kv.forget();
      throw err;
    } finally {
      this.#inTransaction = false;
    }
  }

  /** Saves a message with its token estimate and kind, computed here once for every later fit. */
  appendMessage(role: Role, content: ContentBlock[], now: string): Message {
    const row = this.storage.sql
      .exec(
        "INSERT INTO messages (role, content, created_at, tokens, kind) VALUES (?, ?, ?, ?, ?) RETURNING seq",
        role,
        JSON.stringify(content),
        now,
        estimateMessageTokens(content),
        messageKind(role, content),
      )
      .one();
    return { seq: Number(row.seq), role, content, created_at: now };
  }

  messages(after = 0, limit = Number.MAX_SAFE_INTEGER): Message[] {
    return this.storage.sql
      .exec("SELECT seq, role, content, created_at FROM messages WHERE seq > ? ORDER BY seq LIMIT ?", after, limit)
      .toArray()
      .map(toMessage);
  }

  /** Messages from `fromSeq` on and the ones named in `alsoSeqs`, oldest first. */
  messagesForWindow(fromSeq: number | null, alsoSeqs: readonly number[]): Message[] {
    const start = fromSeq ?? Number.MAX_SAFE_INTEGER;
    const extra = alsoSeqs.length ? ` OR seq IN (${alsoSeqs.map(() => "?").join(", ")})` : "";
    return this.storage.sql
      .exec(`SELECT seq, role, content, created_at FROM messages WHERE seq >= ?${extra} ORDER BY seq`, start, ...alsoSeqs)
      .toArray()
      .map(toMessage);
  }

  /** Messages with `fromSeq <= seq <= toSeq`, oldest first. */
  messageRange(fromSeq: number, toSeq: number): Message[] {
    return this.storage.sql
      .exec("SELECT seq, role, content, created_at FROM messages WHERE seq >= ? AND seq <= ? ORDER BY seq", fromSeq, toSeq)
      .toArray()
      .map(toMessage);
  }

  /**
   * The stored estimates of the messages after `afterSeq`, newest first. Lazy: rows are read as
   * the caller iterates, so a fit that stops early never reads the older history.
   */
  *metaNewestFirst(afterSeq = 0): Generator<MessageMeta> {
    const cursor = this.storage.sql.exec("SELECT seq, kind, tokens FROM messages WHERE seq > ? ORDER BY seq DESC", afterSeq);
    for (const row of cursor) yield toMeta(row);
  }

  /** The session's first message: its task. */
  firstMessageMeta(): MessageMeta | null {
    const row = this.storage.sql.exec("SELECT seq, kind, tokens FROM messages ORDER BY seq LIMIT 1").toArray()[0];
    return row ? toMeta(row) : null;
  }

  messageMeta(seq: number): MessageMeta | null {
    const row = this.storage.sql.exec("SELECT seq, kind, tokens FROM messages WHERE seq = ?", seq).toArray()[0];
    return row ? toMeta(row) : null;
  }

  // ---- summaries ---------------------------------------------------------------------

  latestSummary(): StoredSummary | null {
    const row = this.storage.sql.exec("SELECT * FROM summaries ORDER BY id DESC LIMIT 1").toArray()[0];
    return row ? toSummary(row) : null;
  }

  summaries(): StoredSummary[] {
    return this.storage.sql.exec("SELECT * FROM summaries ORDER BY id").toArray().map(toSummary);
  }

  saveSummary(summary: Omit<StoredSummary, "id">): void {
    this.storage.sql.exec(
      "INSERT INTO summaries (first_seq, last_seq, content, tokens, created_at) VALUES (?, ?, ?, ?, ?)",
      summary.first_seq,
      summary.last_seq,
      summary.content,
      summary.tokens,
      summary.created_at,
    );
  }

  // ---- messages waiting for the next run ---------------------------------------------

  enqueueMessage(content: ContentBlock[], options: RunOptions, now: string): void {
    this.storage.sql.exec("INSERT INTO pending_messages (content, created_at, options) VALUES (?, ?, ?)", JSON.stringify(content), now, JSON.stringify(options));
  }

  queuedMessages(): number {
    return Number(this.storage.sql.exec("SELECT COUNT(*) AS n FROM pending_messages").one().n);
  }

  /** Removes and returns the oldest waiting message, or null. */
  dequeueMessage(): QueuedMessage | null {
    const row = this.storage.sql.exec("DELETE FROM pending_messages WHERE id = (SELECT MIN(id) FROM pending_messages) RETURNING content, options").toArray()[0];
    if (!row) return null;
    return { content: JSON.parse(String(row.content)) as ContentBlock[], options: row.options === null ? {} : (JSON.parse(String(row.options)) as RunOptions) };
  }

  clearQueue(): number {
    return this.storage.sql.exec("DELETE FROM pending_messages").rowsWritten;
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

  /** Records who decided a call that waited for approval, and how. */
  recordDecision(id: string, decidedBy: string | null, decision: ToolCallDecision, now: string): void {
    this.storage.sql.exec("UPDATE tool_calls SET decided_by = ?, decided_at = ?, decision = ? WHERE id = ?", decidedBy, now, decision, id);
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
    return this.#kv.get(RUN_TOOLS_KEY) !== undefined;
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
    this.#kv.put(RUN_TOOLS_KEY, { discovered_at: now });
  }

  /** A new run lists its servers' tools again. */
  clearRunTools(): void {
    this.storage.sql.exec("DELETE FROM run_tools");
    this.#kv.delete(RUN_TOOLS_KEY);
  }

  /** Records a unit's timing; keeps the newest `MAX_STORED_STEPS` rows. */
  appendStep(step: Omit<StepRecord, "seq">): void {
    const { seq } = this.storage.sql
      .exec<{ seq: number }>(
        "INSERT INTO steps (kind, started_at, ended_at, queued_ms, input_tokens, output_tokens, outcome) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING seq",
        step.kind,
        step.started_at,
        step.ended_at,
        step.queued_ms,
        step.input_tokens,
        step.output_tokens,
        step.outcome,
      )
      .one();
    // Pruned in batches, so most units write one row and delete none.
    if (seq % STEP_PRUNE_EVERY === 0) this.storage.sql.exec("DELETE FROM steps WHERE seq <= ?", seq - MAX_STORED_STEPS);
  }

  steps(after: number, limit: number): StepRecord[] {
    return this.storage.sql
      .exec<Record<string, SqlStorageValue>>("SELECT * FROM steps WHERE seq > ? ORDER BY seq LIMIT ?", after, limit)
      .toArray()
      .map((row) => ({
        seq: Number(row.seq),
        kind: String(row.kind) as StepRecord["kind"],
        started_at: Number(row.started_at),
        ended_at: Number(row.ended_at),
        queued_ms: Number(row.queued_ms),
        input_tokens: row.input_tokens === null ? null : Number(row.input_tokens),
        output_tokens: row.output_tokens === null ? null : Number(row.output_tokens),
        outcome: String(row.outcome) as StepRecord["outcome"],
      }));
  }

  message(seq: number): Message | undefined {
    const row = this.storage.sql.exec("SELECT seq, role, content, created_at FROM messages WHERE seq = ?", seq).toArray()[0];
    return row ? toMessage(row) : undefined;
  }

  /** The newest `limit` messages, newest first. */
  latestMessages(limit: number): Message[] {
    return this.storage.sql
      .exec("SELECT seq, role, content, created_at FROM messages ORDER BY seq DESC LIMIT ?", limit)
      .toArray()
      .map(toMessage);
  }

  hasMessagesBefore(seq: number): boolean {
    return this.storage.sql.exec("SELECT 1 FROM messages WHERE seq < ? LIMIT 1", seq).toArray().length > 0;
  }

  // ---- the notification outbox (see notify/outbox.ts) -----------------------------------

  appendOutbox(entry: OutboxEntry): void {
    this.storage.sql.exec(
      "INSERT INTO outbox (id, type, created_at, session) VALUES (?, ?, ?, ?)",
      entry.id,
      entry.type,
      entry.created_at,
      JSON.stringify(entry.session),
    );
  }

  /** The oldest `limit` owed notifications, oldest first. */
  outbox(limit: number): OutboxEntry[] {
    return this.storage.sql
      .exec<Row>("SELECT id, type, created_at, session FROM outbox ORDER BY seq LIMIT ?", limit)
      .toArray()
      .map((row) => ({
        id: String(row.id),
        type: String(row.type) as OutboxEntry["type"],
        created_at: String(row.created_at),
        session: JSON.parse(String(row.session)) as OutboxEntry["session"],
      }));
  }

  outboxSize(): number {
    return Number(this.storage.sql.exec("SELECT COUNT(*) AS n FROM outbox").one().n);
  }

  removeFromOutbox(ids: readonly string[]): void {
    for (const id of ids) this.storage.sql.exec("DELETE FROM outbox WHERE id = ?", id);
  }

  outboxRetry(): OutboxRetry {
    return this.storage.kv.get<OutboxRetry>("outbox_retry") ?? { failures: 0, retry_at: 0 };
  }

  putOutboxRetry(retry: OutboxRetry): void {
    if (retry.failures === 0) this.storage.kv.delete("outbox_retry");
    else this.storage.kv.put("outbox_retry", retry);
  }

  // ---- images ------------------------------------------------------------------------

  /** Stores an image under its content id; the same bytes stored again write nothing. */
  putImage(image: StoredImage, data: Uint8Array, now: string): void {
    const inserted = this.storage.sql.exec(
      "INSERT OR IGNORE INTO images (id, media_type, size_bytes, width, height, created_at) VALUES (?, ?, ?, ?, ?, ?)",
      image.id,
      image.media_type,
      image.size_bytes,
      image.width,
      image.height,
      now,
    ).rowsWritten;
    if (inserted === 0) return;
    for (let at = 0, idx = 0; at < data.length; at += IMAGE_CHUNK_BYTES, idx++) {
      this.storage.sql.exec("INSERT INTO image_chunks (image_id, idx, data) VALUES (?, ?, ?)", image.id, idx, data.slice(at, at + IMAGE_CHUNK_BYTES).buffer);
    }
  }

  /** An image's bytes, or null when no image has this id. */
  imageData(id: string): Uint8Array | null {
    const meta = this.storage.sql.exec("SELECT size_bytes FROM images WHERE id = ?", id).toArray()[0];
    if (!meta) return null;
    const bytes = new Uint8Array(Number(meta.size_bytes));
    let offset = 0;
    for (const row of this.storage.sql.exec("SELECT data FROM image_chunks WHERE image_id = ? ORDER BY idx", id)) {
      const chunk = new Uint8Array(row.data as ArrayBuffer);
      bytes.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return offset === bytes.length ? bytes : null;
  }

  // ---- the run's output ----------------------------------------------------------------

  /** The current run's `output_schema`: null for a free answer, undefined before any run. */
  runOutputSchema(): OutputSchema | null | undefined {
    return this.storage.kv.get<OutputSchema | null>(RUN_OUTPUT_SCHEMA_KEY);
  }

  /** A new run's schema; its output starts empty. */
  beginRunOutput(schema: OutputSchema | null): void {
    this.storage.kv.put(RUN_OUTPUT_SCHEMA_KEY, schema);
    this.storage.kv.delete(RUN_OUTPUT_KEY);
  }

  runOutput(): unknown {
    return this.storage.kv.get(RUN_OUTPUT_KEY) ?? null;
  }

  setRunOutput(output: unknown): void {
    this.storage.kv.put(RUN_OUTPUT_KEY, output);
  }

  // ---- the event log (its rules live in events/event-log.ts) --------------------------------

  /** `data` is the stored form: the event's data, or a reference to the row that holds it. */
  appendEvent(type: string, data: unknown, now: string): number {
    const row = this.storage.sql
      .exec("INSERT INTO events (type, data, created_at) VALUES (?, ?, ?) RETURNING id", type, JSON.stringify(data), now)
      .one();
    return Number(row.id);
  }

  /** Stored events after `after`, oldest first. */
  eventsAfter(after: number): StoredEventRow[] {
    return this.storage.sql
      .exec("SELECT id, type, data, created_at FROM events WHERE id > ? ORDER BY id", after)
      .toArray()
      .map((row) => ({ id: Number(row.id), type: String(row.type), data: JSON.parse(String(row.data)), created_at: String(row.created_at) }));
  }

  /** The newest stored event id, or 0 when the table is empty. */
  newestEventId(): number {
    return Number(this.storage.sql.exec("SELECT max(id) AS id FROM events").one().id ?? 0);
  }

  /** The newest event id created before `createdAt` (ISO), or 0. */
  newestEventIdBefore(createdAt: string): number {
    return Number(this.storage.sql.exec("SELECT max(id) AS id FROM events WHERE created_at < ?", createdAt).one().id ?? 0);
  }

  /** Deletes the events up to `id` and records that they are gone. */
  pruneEventsThrough(id: number): void {
    this.storage.sql.exec("DELETE FROM events WHERE id <= ?", id);
    this.#kv.put(EVENTS_PRUNED_THROUGH_KEY, Math.max(id, this.eventsPrunedThrough()));
  }

  eventsPrunedThrough(): number {
    return this.#kv.get<number>(EVENTS_PRUNED_THROUGH_KEY) ?? 0;
  }
}

const EVENTS_PRUNED_THROUGH_KEY = "events_pruned_through";
const RUN_OUTPUT_SCHEMA_KEY = "run_output_schema";
const RUN_OUTPUT_KEY = "run_output";

export interface StoredEventRow {
  id: number;
  type: string;
  data: unknown;
  created_at: string;
}

function toMessage(row: Row): Message {
  return {
    seq: Number(row.seq),
    role: row.role as Role,
    content: JSON.parse(String(row.content)) as ContentBlock[],
    created_at: String(row.created_at),
  };
}

function toMeta(row: Row): MessageMeta {
  return { seq: Number(row.seq), kind: String(row.kind) as MessageKind, tokens: Number(row.tokens) };
}

function toSummary(row: Row): StoredSummary {
  return {
    id: Number(row.id),
    first_seq: Number(row.first_seq),
    last_seq: Number(row.last_seq),
    content: String(row.content),
    tokens: Number(row.tokens),
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
    decided_by: row.decided_by == null ? null : String(row.decided_by),
    decided_at: row.decided_at == null ? null : String(row.decided_at),
    decision: row.decision == null ? null : (String(row.decision) as ToolCallDecision),
  };
}
