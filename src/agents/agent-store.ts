/**
 * The AgentStore Durable Object, one per tenant: its agents, their immutable versions and their
 * aliases (storage.md). An object of its own rather than a part of the tenant index, which every
 * request of the tenant already passes through: agent reads and writes, and the one `resolve`
 * a session's creation makes, land here instead. What each call answers: `AgentStoreRpc`.
 */
import { purgeStorage, storageFootprint, type StorageFootprint } from "../storage/object-storage";
import { DurableObject } from "cloudflare:workers";
import type { Page } from "../session-config/types";
import { parseAuditContext } from "../audit/entry";
import { type AuditOutbox, tenantAuditOutbox } from "../audit/outbox";
import type { AuditChange, AuditContext } from "../audit/types";
import { AlarmClock } from "../storage/alarm-clock";
import { migrate } from "../storage/migrations";
import { TenantBinding } from "../tenants/tenant-binding";
import { optionalCursor, optionalString, requireInt, requireNow, requirePageLimit, requireString } from "../shared/validate";
import { canonicalJson } from "./canonical";
import { EvalsDoor } from "../evals/door";
import type { EvalHost } from "../evals/host";
import { type EvalOp, type EvalOps, WRITE_OPS } from "../evals/types";
import type { CanarySpec } from "./canary";
import { aliasTarget, applyCanary, type CanaryHost, countCanaryRun, type CountResult, promote } from "./canary-ops";
import { getCanary } from "./canary-store";
import { type CanaryRunFacts, parseCanarySpec, parseRunFacts, runOutcome, scoreCanaryRun } from "./canary-scoring";
import { AgentNotificationOutbox } from "./notification-outbox";
import { AGENT_STORE_MIGRATIONS } from "./migrations";
import { MAX_VERSION, newAgentId } from "./refs";
import type { AgentStoreRpc } from "./rpc";
import * as store from "./store";
import { writeAlias } from "./alias-write";
import { MAX_AGENTS_PER_TENANT, MAX_HELD_VERSIONS, MAX_VERSIONS_PER_AGENT, requireAlias, requireDefinition } from "./store-input";
import type {
  Agent,
  AgentDefinition,
  AgentListInput,
  AgentPage,
  AgentResult,
  AgentVersion,
  NewAgent,
  NewVersion,
  ResolvedAgent,
  VersionSelector,
} from "./types";

const NOT_FOUND = { ok: false, reason: "agent_not_found" } as const;

export class AgentStore extends DurableObject<Cloudflare.Env> implements AgentStoreRpc {
  #binding: TenantBinding;
  /** Whether the tables exist: only once an agent was created, never for a lookup alone. */
  #migrated = false;
  readonly #alarms: AlarmClock;
  /** Entries owed to the tenant's log; the alarm hands over what a call could not. */
  readonly #audit: AuditOutbox;
  /** The tenant's datasets and eval runs, a module of their own (src/evals/). */
  readonly #evals: EvalsDoor;
  /** Agents' events owed to the tenant's webhook endpoints (a canary rolled back). */
  readonly #notifications: AgentNotificationOutbox;

  /** `evalHost`: how evals start and read sessions, from the layers above (src/lifecycle/agent-store.ts). */
  constructor(ctx: DurableObjectState, env: Cloudflare.Env, evalHost: EvalHost) {
    super(ctx, env);
    // The tenant registry is the tenant index's to feed; this object only binds its tenant.
    this.#binding = new TenantBinding(ctx.storage.kv, async () => undefined);
    this.#alarms = new AlarmClock(ctx.storage);
    this.#audit = tenantAuditOutbox(ctx.storage, env, () => this.#binding.tenantId ?? null, this.#alarms);
    this.#evals = new EvalsDoor({
      storage: ctx.storage,
      host: evalHost,
      record: (by, change, now) => this.#record(by, change, now),
      wake: () => this.#alarms.wakeWithWrite(),
    });
    this.#notifications = new AgentNotificationOutbox(() => ctx.storage.sql, env);
    if (this.#binding.bound) this.#migrate();
  }
  /**
   * The tenant was deleted: every byte this object stored goes, and it forgets its tenant, as an
   * object never used. Harmless when done already (src/lifecycle/tenant-deletion.ts).
   */
  async purge(tenantId: string): Promise<void> {
    if (!this.#peek(tenantId)) return;
    await purgeStorage(this.ctx.storage);
    this.#binding = new TenantBinding(this.ctx.storage.kv, async () => undefined);
    this.#migrated = false;
  }

  /** What this object's storage holds; reads only. */
  async footprint(): Promise<StorageFootprint> {
    return storageFootprint(this.ctx.storage);
  }

  /** Handing over the audit entries and notifications a call could not, and advancing the running evals. */
  override async alarm(): Promise<void> {
    if (!this.#migrated) return;
    await this.#audit.flush();
    const evalsAt = await this.#evals.step(this.#binding.tenantId!, Date.now());
    await this.#audit.flush();
    if (this.#binding.tenantId) await this.#notifications.flush(this.#binding.tenantId);
    const now = Date.now();
    const times = [this.#audit.retryAt(now), this.#notifications.retryAt(now), evalsAt].filter((t): t is number => t !== null);
    await this.#alarms.sync(times.length === 0 ? null : Math.min(...times));
  }

  /** The tenant's datasets and eval runs: each operation answered by src/evals/door.ts. */
  async evals<K extends EvalOp>(tenantId: string, op: K, input: EvalOps[K]["input"], by?: AuditContext): Promise<EvalOps[K]["output"]> {
    if (WRITE_OPS.has(op)) await this.#enter(tenantId);
    else if (!this.#peek(tenantId)) return EvalsDoor.empty(op);
    const answer = await this.#evals.call(op, input, parseAuditContext(by));
    await this.#audit.flush();
    return answer;
  }

  async create(tenantId: string, input: NewAgent, by?: AuditContext): Promise<AgentResult<Agent>> {
    await this.#enter(tenantId);
    const definition = requireDefinition(input.definition);
    const createdBy = requireString("createdBy", input.createdBy);
    const now = requireNow(input.now);
    const context = parseAuditContext(by);
    const id = newAgentId();
    const result = this.ctx.storage.transactionSync((): AgentResult<null> => {
      if (store.countAgents(this.#sql) >= MAX_AGENTS_PER_TENANT)
        return { ok: false, reason: "limit_reached", what: "agents", max: MAX_AGENTS_PER_TENANT };
      if (store.liveAgentNamed(this.#sql, definition.name) !== null) return { ok: false, reason: "name_taken", name: definition.name };
      store.insertAgent(this.#sql, {
        id,
        name: definition.name,
        latest_version: 1,
        archived_at: null,
        created_by: createdBy,
        created_at: now,
        updated_at: now,
      });
      store.insertVersion(this.#sql, id, 1, definition, createdBy, now);
      this.#record(
        context,
        { action: "agent.created", target: { type: "agent", id }, details: { name: definition.name, version: 1 } },
        now,
      );
      return { ok: true, value: null };
    });
    await this.#audit.flush();
    return result.ok ? this.#view(id) : result;
  }

  async get(tenantId: string, agentId: string): Promise<AgentResult<Agent>> {
    if (!this.#peek(tenantId)) return NOT_FOUND;
    return this.#view(requireString("agentId", agentId));
  }

  async list(tenantId: string, input: AgentListInput): Promise<AgentPage> {
    const limit = requirePageLimit(input.limit);
    const cursor = optionalCursor(input.cursor);
    const filter = { name: optionalString("name", input.name), includeArchived: input.includeArchived === true };
    if (!this.#peek(tenantId)) return { data: [], next_cursor: null };
    const page = store.listAgents(this.#sql, filter, limit, cursor);
    return { data: page.rows.map((row) => store.toAgent(this.#sql, row)), next_cursor: page.next_cursor };
  }

  async addVersion(tenantId: string, agentId: string, input: NewVersion, by?: AuditContext): Promise<AgentResult<Agent>> {
    if (!this.#peek(tenantId)) return NOT_FOUND;
    const id = requireString("agentId", agentId);
    const definition = requireDefinition(input.definition);
    const basedOn = requireInt("basedOn", input.basedOn, 1, MAX_VERSION);
    const createdBy = requireString("createdBy", input.createdBy);
    const now = requireNow(input.now);
    const context = parseAuditContext(by);
    const result = this.ctx.storage.transactionSync((): AgentResult<null> => {
      const row = store.getAgent(this.#sql, id);
      if (!row) return NOT_FOUND;
      if (row.archived_at !== null) return { ok: false, reason: "archived" };
      if (row.latest_version !== basedOn) return { ok: false, reason: "version_moved", latest: row.latest_version };
      const latest = store.getVersionRow(this.#sql, id, row.latest_version);
      if (latest && canonicalJson(JSON.parse(latest.definition)) === canonicalJson(definition)) return { ok: true, value: null };
      const holder = store.liveAgentNamed(this.#sql, definition.name);
      if (holder !== null && holder !== id) return { ok: false, reason: "name_taken", name: definition.name };
      if (store.countVersions(this.#sql, id) >= MAX_VERSIONS_PER_AGENT)
        return { ok: false, reason: "limit_reached", what: "versions", max: MAX_VERSIONS_PER_AGENT };
      const version = row.latest_version + 1;
      store.insertVersion(this.#sql, id, version, definition, createdBy, now);
      store.advanceAgent(this.#sql, id, version, definition.name, now);
      this.#record(
        context,
        {
          action: "agent.updated",
          target: { type: "agent", id },
          details: { name: definition.name, version, previous_version: row.latest_version },
        },
        now,
      );
      return { ok: true, value: null };
    });
    await this.#audit.flush();
    return result.ok ? this.#view(id) : result;
  }

  async archive(tenantId: string, agentId: string, now: number, by?: AuditContext): Promise<AgentResult<null>> {
    if (!this.#peek(tenantId)) return NOT_FOUND;
    const id = requireString("agentId", agentId);
    const at = requireNow(now);
    const context = parseAuditContext(by);
    if (!store.getAgent(this.#sql, id)) return NOT_FOUND;
    this.ctx.storage.transactionSync(() => {
      // Archiving an archived agent changes nothing, and records nothing.
      if (store.archiveAgent(this.#sql, id, at)) this.#record(context, { action: "agent.archived", target: { type: "agent", id } }, at);
    });
    await this.#audit.flush();
    return { ok: true, value: null };
  }

  async listVersions(
    tenantId: string,
    agentId: string,
    input: { limit: number; cursor: string | null },
  ): Promise<AgentResult<Page<AgentVersion>>> {
    const limit = requirePageLimit(input.limit);
    const cursor = optionalCursor(input.cursor);
    if (!this.#peek(tenantId)) return NOT_FOUND;
    const id = requireString("agentId", agentId);
    if (!store.getAgent(this.#sql, id)) return NOT_FOUND;
    return { ok: true, value: store.listVersions(this.#sql, id, limit, cursor) };
  }

  async getVersion(tenantId: string, agentId: string, version: number): Promise<AgentResult<AgentVersion>> {
    if (!this.#peek(tenantId)) return NOT_FOUND;
    const id = requireString("agentId", agentId);
    const wanted = requireInt("version", version, 1, MAX_VERSION);
    if (!store.getAgent(this.#sql, id)) return NOT_FOUND;
    const row = store.getVersionRow(this.#sql, id, wanted);
    return row ? { ok: true, value: store.toVersion(row) } : { ok: false, reason: "version_not_found", version: wanted };
  }

  async setAlias(
    tenantId: string,
    agentId: string,
    alias: string,
    version: number,
    now: number,
    by?: AuditContext,
    canarySpec: CanarySpec | null = null,
  ): Promise<AgentResult<Agent>> {
    if (!this.#peek(tenantId)) return NOT_FOUND;
    const id = requireString("agentId", agentId);
    const name = requireAlias(alias);
    const wanted = requireInt("version", version, 1, MAX_VERSION);
    const at = requireNow(now);
    const context = parseAuditContext(by);
    const canary = canarySpec === null ? null : parseCanarySpec(canarySpec);
    const result = this.ctx.storage.transactionSync(() => writeAlias(this.#canaryHost(context), id, name, wanted, canary, at));
    await this.#audit.flush();
    return result.ok ? this.#view(id) : result;
  }

  async deleteAlias(tenantId: string, agentId: string, alias: string, now: number, by?: AuditContext): Promise<AgentResult<null>> {
    if (!this.#peek(tenantId)) return NOT_FOUND;
    const id = requireString("agentId", agentId);
    const name = requireAlias(alias);
    const at = requireNow(now);
    const context = parseAuditContext(by);
    const row = store.getAgent(this.#sql, id);
    if (!row) return NOT_FOUND;
    if (row.archived_at !== null) return { ok: false, reason: "archived" };
    const result = this.ctx.storage.transactionSync((): AgentResult<null> => {
      const version = store.aliasVersion(this.#sql, id, name);
      if (!store.deleteAlias(this.#sql, id, name)) return { ok: false, reason: "alias_not_found", alias: name };
      applyCanary(this.#canaryHost(context), id, name, null, at);
      store.touchAgent(this.#sql, id, at);
      this.#record(context, { action: "agent.alias_deleted", target: { type: "agent", id }, details: { alias: name, version } }, at);
      return { ok: true, value: null };
    });
    await this.#audit.flush();
    return result;
  }

  async resolve(
    tenantId: string,
    agentId: string,
    selector: VersionSelector,
    held: readonly number[],
  ): Promise<AgentResult<ResolvedAgent>> {
    if (!Array.isArray(held) || held.length > MAX_HELD_VERSIONS)
      throw new TypeError(`held must be a list of at most ${MAX_HELD_VERSIONS} versions`);
    if (!this.#peek(tenantId)) return NOT_FOUND;
    const id = requireString("agentId", agentId);
    const row = store.getAgent(this.#sql, id);
    if (!row) return NOT_FOUND;
    if (row.archived_at !== null) return { ok: false, reason: "archived" };
    let version = selector.kind === "version" ? requireInt("selector.version", selector.version, 1, MAX_VERSION) : row.latest_version;
    let canary: ResolvedAgent["canary"];
    if (selector.kind === "alias") {
      const target = aliasTarget(this.#sql, id, requireAlias(selector.alias), selector.bucket);
      if (target === null) return { ok: false, reason: "alias_not_found", alias: selector.alias };
      ({ version, canary } = target);
    }
    const tag = canary ? { canary } : {};
    // Versions are never deleted: one the caller holds, up to the latest, exists as it holds it.
    if (held.includes(version) && version <= row.latest_version) return { ok: true, value: { agent_id: id, version, ...tag } };
    const found = store.getVersionRow(this.#sql, id, version);
    if (!found) return { ok: false, reason: "version_not_found", version };
    return { ok: true, value: { agent_id: id, version, definition: JSON.parse(found.definition) as AgentDefinition, ...tag } };
  }

  /** The alias moves to its canary's version and the canary goes (audited); 409 when it carries none. */
  async promoteCanary(
    tenantId: string,
    agentId: string,
    alias: string,
    now: number,
    by?: AuditContext,
    expectedVersion: number | null = null,
  ): Promise<AgentResult<Agent>> {
    if (!this.#peek(tenantId)) return NOT_FOUND;
    const id = requireString("agentId", agentId);
    const name = requireAlias(alias);
    const at = requireNow(now);
    const expected =
      expectedVersion === null || expectedVersion === undefined ? null : requireInt("expectedVersion", expectedVersion, 1, MAX_VERSION);
    const context = parseAuditContext(by);
    const result = this.ctx.storage.transactionSync(() => promote(this.#canaryHost(context), id, name, at, expected));
    await this.#audit.flush();
    return result.ok ? this.#view(id) : result;
  }

  /** A canary run ended: scored by the alias's rule read now, counted once, the canary rolled back when the rule is crossed. */
  async recordCanaryRun(tenantId: string, agentId: string, alias: string, version: number, facts: CanaryRunFacts): Promise<CountResult> {
    if (!this.#peek(tenantId)) return { counted: false, rolled_back: false };
    const [id, name, run] = [requireString("agentId", agentId), requireAlias(alias), parseRunFacts(facts)];
    const canaryVersion = requireInt("version", version, 1, MAX_VERSION);
    const scores = await scoreCanaryRun(getCanary(this.#sql, id, name)?.rollback?.scorers ?? [], run);
    const host = this.#canaryHost(undefined);
    const result = this.ctx.storage.transactionSync(() =>
      countCanaryRun(host, id, name, canaryVersion, runOutcome(run, scores), Date.now()),
    );
    if (result.rolled_back) {
      await this.#audit.flush();
      await this.#notifications.flush(tenantId);
    }
    return result;
  }

  // ---- private helpers (not reachable over RPC) ------------------------------------------

  /** The canary changes' view of this object, inside a transaction; `by`: who made the change (none for a rollback). */
  #canaryHost(by: AuditContext | undefined): CanaryHost {
    return {
      sql: this.#sql,
      tenantId: this.#binding.tenantId!,
      record: (change, now) => this.#record(by, change, now),
      owe: (batch, now) => this.#notifications.owe(batch.notifications[0]!.id, batch, now),
    };
  }

  #view(id: string): AgentResult<Agent> {
    const row = store.getAgent(this.#sql, id);
    return row ? { ok: true, value: store.toAgent(this.#sql, row) } : NOT_FOUND;
  }

  get #sql(): SqlStorage {
    return this.ctx.storage.sql;
  }

  /** Inside the change's transaction: the entry is owed to the tenant's log from then on. */
  #record(by: AuditContext | undefined, change: AuditChange, now: number): void {
    this.#audit.record(this.#binding.tenantId!, by, change, now);
  }

  async #enter(tenantId: string): Promise<void> {
    await this.#binding.enter(tenantId, Date.now());
    if (!this.#migrated) this.#migrate();
  }

  /** For reads and changes to existing agents: false when none was ever created here, so a lookup writes nothing. */
  #peek(tenantId: string): boolean {
    return this.#binding.peek(tenantId) && this.#migrated;
  }

  #migrate(): void {
    migrate(this.ctx.storage, AGENT_STORE_MIGRATIONS);
    this.#migrated = true;
  }
}
