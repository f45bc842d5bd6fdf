/**
 * Test helpers that drive an session Durable Object directly over RPC, as the gateway does,
 * with a fresh tenant per session and the mock model keyed by the session's model name.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { sessionStub } from "../../src/objects";
import type { RunState } from "../../src/sessions/object/store/store";
import type { SessionResult, Message, Page, RunInput, Session, SessionInit, SessionStatus, ToolCall } from "../../src/session-config/types";
import { BUILTIN_DEFAULT_LIMITS, type PartialLimits } from "../../src/limits";
import { mockModel, uniqueKey } from "./mock-client";

export interface TestSession {
  tenantId: string;
  sessionId: string;
  model: ReturnType<typeof mockModel>;
  /** A fresh stub on every read: a stub that saw its object abort stays broken. */
  readonly stub: ReturnType<typeof sessionStub>;
}

/** `modelPrefix`: the start of the mock model's name, for a case that depends on the model family (the catalog reads it). */
export function newTestSession(modelPrefix = "model"): TestSession {
  const tenantId = `t-${crypto.randomUUID().slice(0, 8)}`;
  const sessionId = `ses_${crypto.randomUUID().replaceAll("-", "")}`;
  return {
    tenantId,
    sessionId,
    model: mockModel(uniqueKey(modelPrefix)),
    get stub() {
      return sessionStub(env, tenantId, sessionId);
    },
  };
}

export function sessionInit(
  t: TestSession,
  overrides: Partial<Omit<SessionInit, "limits">> & { limits?: PartialLimits } = {},
): SessionInit {
  return {
    id: t.sessionId,
    tenant_id: t.tenantId,
    created_by: "user-1",
    model: t.model.key,
    system: null,
    tools: [],
    context: null,
    metadata: null,
    ...overrides,
    limits: { ...BUILTIN_DEFAULT_LIMITS, ...overrides.limits },
  };
}

/** Creates the session and starts a run with `input`; fails the test on an error result. */
export async function createAndStart(t: TestSession, input: RunInput, overrides: Parameters<typeof sessionInit>[1] = {}): Promise<Session> {
  return unwrap((await t.stub.create(sessionInit(t, overrides), input)) as SessionResult<Session>);
}

/** The value of a session object RPC result; fails the test on an error result (any, `create`'s refusal too). */
export function unwrap<T>(result: SessionResult<T> | { ok: false }): T {
  if (!result.ok) throw new Error(`agent answered ${JSON.stringify(result)}`);
  return result.value;
}

export async function getSession(t: TestSession): Promise<Session> {
  return unwrap((await t.stub.get()) as SessionResult<Session>);
}

/** Polls until the session reaches one of `statuses` (alarms fire by themselves). */
export async function waitForStatus(t: TestSession, statuses: SessionStatus[], timeoutMs = 15_000): Promise<Session> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const session = await getSession(t);
    if (statuses.includes(session.status)) return session;
    if (Date.now() > deadline) throw new Error(`session stayed ${session.status}, wanted ${statuses.join(" or ")}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export async function messages(t: TestSession): Promise<Message[]> {
  return unwrap((await t.stub.listMessages(0, 1000)) as SessionResult<Page<Message>>).data;
}

export async function toolCalls(t: TestSession): Promise<ToolCall[]> {
  return unwrap((await t.stub.listToolCalls()) as SessionResult<Page<ToolCall>>).data;
}

export async function runState(t: TestSession): Promise<RunState> {
  return runInDurableObject(t.stub, (_instance, state) => state.storage.kv.get<RunState>("run")!);
}

export async function alarmAt(t: TestSession): Promise<number | null> {
  return runInDurableObject(t.stub, (_instance, state) => state.storage.getAlarm());
}

/** Skips a retry's backoff: the pending attempt becomes due now. Returns the skipped wait in ms. */
export async function skipBackoff(t: TestSession): Promise<number> {
  return runInDurableObject(t.stub, async (_instance, state) => {
    const run = state.storage.kv.get<RunState>("run")!;
    const waited = (run.next_attempt_at ?? 0) - Date.now();
    state.storage.kv.put("run", { ...run, next_attempt_at: 0 });
    await state.storage.setAlarm(Date.now());
    return waited;
  });
}
