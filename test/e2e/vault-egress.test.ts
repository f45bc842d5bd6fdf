/**
 * Vault credentials at egress against `wrangler dev`, with a local MCP server, a local webhook
 * receiver and OAuth2 token endpoint (egress-server.ts), credentials put through the public
 * routes: an end user's credential reaches the MCP server and a webhook, the tenant's is used
 * when the user has none, another end user's never; a disallowed origin and a cross-origin
 * redirect get no header; an expired token is refreshed once under 5 concurrent calls; a revoked
 * refresh token ends `refresh_failed`, the call's result says `credential_refresh_failed` and the
 * session tells its backend (`credential_required`, event and status webhook). Last, every byte
 * the platform stored or emitted in all of it (each object's storage files, events, exports,
 * the trace export, the audit log, notifications, model requests, its own output) is searched
 * for every secret: none is found.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ModelStep } from "../support/mock-protocol";
import { leakedForms } from "../support/secret-forms";
import { generateVaultKey } from "../../src/vault/keys";
import { EgressServer } from "./support/egress-server";
import { McpServerProcess } from "./support/mcp-process";
import { NotificationReceiver } from "./support/notification-receiver";
import { say } from "./support/scenario";
import { type Stack, startStack, uniqueName } from "./support/stack";
import { tokenMinter } from "./support/tokens";
import { waitFor } from "./support/wait";

const STEP_TIMEOUT_MS = 60_000;
const BACKEND_SCOPES = ["sessions:read", "sessions:write", "agents:write", "end_users:issue", "tenant:admin"] as const;

/** Secrets with a random part, so a hit can only be this run's. */
const secret = (label: string) => `${label}-${crypto.randomUUID()}`;
const ALICE = secret("alice-gh");
const BOB = secret("bob-gh");
const TENANT = secret("tenant-gh");
const CRM_OLD = secret("crm-expired");
const CRM_NEW = secret("crm-fresh");
const CRM_REFRESH = secret("crm-rt");
const CRM_REFRESH_NEXT = secret("crm-rt-next");
const CLIENT_SECRET = secret("crm-client");
const DAVE_OLD = secret("dave-expired");
const FRANK_OLD = secret("frank-refused");
const FRANK_NEW = secret("frank-fresh");
const FRANK_REFRESH = secret("frank-rt");
const DAVE_REVOKED = secret("dave-rt-revoked");
const ALL_SECRETS = {
  ALICE,
  BOB,
  TENANT,
  CRM_OLD,
  CRM_NEW,
  CRM_REFRESH,
  CRM_REFRESH_NEXT,
  CLIENT_SECRET,
  DAVE_OLD,
  DAVE_REVOKED,
  FRANK_OLD,
  FRANK_NEW,
  FRANK_REFRESH,
};

function callTool(id: string, name: string, input: Record<string, unknown> = {}): ModelStep {
  return { reply: { content: [{ type: "tool_use", id, name, input }] } };
}

describe("vault credentials at egress", () => {
  let stack: Stack;
  let mcp: McpServerProcess;
  let egress: EgressServer;
  let elsewhere: EgressServer;
  let receiver: NotificationReceiver;
  let backend: Record<string, string>;
  const tenant = uniqueName("vault");
  const sessions: string[] = [];
  const models: string[] = [];

  beforeAll(async () => {
    mcp = await McpServerProcess.start();
    egress = await EgressServer.start();
    elsewhere = await EgressServer.start();
    egress.redirectTo = elsewhere.url("/stolen");
    receiver = await NotificationReceiver.start();
    stack = await startStack({ vars: { VAULT_KEYS: JSON.stringify([generateVaultKey()]) } });
    const mint = await tokenMinter(stack.platform.signingKey);
    backend = { authorization: `Bearer ${await mint({ tenantId: tenant, subject: "backend", scopes: [...BACKEND_SCOPES] })}` };
    await ok(
      send("PUT", "/v1/tenant/settings", backend, {
        webhook_origins: null,
        traces: { endpoint: egress.url("/otel"), capture_content: true },
      }),
    );
    await ok(
      send("POST", "/v1/tenant/webhooks", backend, { url: receiver.url, event_types: ["session.credential_required", "session.done"] }),
    );
    const origins = [egress.origin, new URL(mcp.url).origin];
    await ok(putCredential(null, "github", { type: "bearer", value: TENANT, allowed_origins: origins }));
    await ok(putCredential("alice", "github", { type: "bearer", value: ALICE, allowed_origins: origins }));
    await ok(putCredential("bob", "github", { type: "bearer", value: BOB, allowed_origins: origins }));
  }, 180_000);

  afterAll(async () => {
    await stack?.dispose();
    await mcp?.kill();
    await egress?.close();
    await elsewhere?.close();
    await receiver?.close();
  });

  const send = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
    fetch(`${stack.platform.url}${path}`, {
      method,
      headers: { ...headers, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  async function ok(response: Promise<Response>): Promise<unknown> {
    const res = await response;
    const text = await res.text();
    expect(res.status, text).toBeLessThan(300);
    return text ? (JSON.parse(text) as unknown) : null;
  }

  function putCredential(subject: string | null, name: string, body: Record<string, unknown>) {
    const path = subject === null ? `/v1/tenant/credentials/${name}` : `/v1/end-users/${subject}/credentials/${name}`;
    return send("PUT", path, backend, body);
  }

  /** An agent with its own scripted model, and a session of it for `subject`'s end user. */
  async function runAs(subject: string, tools: unknown[], steps: ModelStep[]): Promise<{ id: string; status: string }> {
    const model = stack.mock.model(uniqueName("model"));
    models.push(model.key);
    await model.script(...steps);
    const agent = (await ok(send("POST", "/v1/agents", backend, { name: uniqueName("agent"), model: model.key, tools }))) as { id: string };
    const token = (
      (await ok(send("POST", "/v1/auth/end-user-token", backend, { subject, scopes: ["sessions:read", "sessions:write"] }))) as {
        access_token: string;
      }
    ).access_token;
    const created = (await ok(send("POST", "/v1/sessions", { authorization: `Bearer ${token}` }, { agent: agent.id, input: "go" }))) as {
      id: string;
    };
    sessions.push(created.id);
    return waitFor(
      async () => {
        const session = (await ok(send("GET", `/v1/sessions/${created.id}`, backend))) as { id: string; status: string };
        return ["done", "failed", "cancelled", "idle"].includes(session.status) ? session : undefined;
      },
      { timeoutMs: STEP_TIMEOUT_MS, intervalMs: 100, what: `session ${created.id} to end` },
    );
  }

  async function toolCalls(id: string): Promise<{ name: string; output: string; is_error: boolean }[]> {
    return (
      (await ok(send("GET", `/v1/sessions/${id}/tool-calls`, backend))) as { data: { name: string; output: string; is_error: boolean }[] }
    ).data;
  }

  /** Every stored event of the session, as the SSE stream replays it (it ends after `end`). */
  async function events(id: string): Promise<string> {
    const res = await fetch(`${stack.platform.url}/v1/sessions/${id}/events?after=0`, {
      headers: { ...backend, accept: "text/event-stream" },
      signal: AbortSignal.timeout(15_000),
    });
    const reader = res.body!.getReader();
    let text = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
      if (text.includes("event: end")) break;
    }
    await reader.cancel().catch(() => undefined);
    return text;
  }

  const hook = (name: string, url: string, credential = "github") => ({
    type: "webhook",
    name,
    description: "a hook",
    input_schema: { type: "object", properties: {} },
    url,
    auth: { credential },
  });

  it("sends an end user's credential to the MCP server and the webhook, the tenant's when the user has none, another user's never", async () => {
    const keyA = uniqueName("alice");
    const keyC = uniqueName("carol");
    const tools = (key: string, hookPath: string) => [
      { type: "mcp", name: "gh", url: mcp.endpoint(key), auth: { credential: "github" } },
      hook("hook", egress.url(hookPath)),
    ];
    const steps = [callTool("toolu_1", "gh__whoami"), callTool("toolu_2", "hook"), say("done")];
    const alice = await runAs("alice", tools(keyA, "/hook/alice"), steps);
    const carol = await runAs("carol", tools(keyC, "/hook/carol"), steps);
    expect(alice.status, stack.logs()).toBe("done");
    expect(carol.status, stack.logs()).toBe("done");

    expect((await mcp.calls(keyA)).map((call) => call.authorization)).toEqual([`Bearer ${ALICE}`]);
    expect(egress.to("/hook/alice").map((r) => r.headers.authorization)).toEqual([`Bearer ${ALICE}`]);
    expect((await mcp.calls(keyC)).map((call) => call.authorization)).toEqual([`Bearer ${TENANT}`]);
    expect(egress.to("/hook/carol").map((r) => r.headers.authorization)).toEqual([`Bearer ${TENANT}`]);
    // The server echoed the token back: the result the model sees holds it masked.
    const [whoami] = await toolCalls(alice.id);
    expect(whoami).toMatchObject({ name: "gh__whoami", is_error: false, output: expect.stringContaining("********") });
    expect(whoami!.output).not.toContain(ALICE);
    // The tool names its credential, as given; never a value.
    const session = (await ok(send("GET", `/v1/sessions/${alice.id}`, backend))) as { tools: unknown[] };
    expect(session.tools).toEqual(expect.arrayContaining([expect.objectContaining({ auth: { credential: "github" } })]));
  }, 180_000);

  it("sends nothing to an origin the credential does not allow, nor across a redirect to another origin", async () => {
    const run = await runAs(
      "alice",
      [hook("other", elsewhere.url("/hook/other")), hook("moved", egress.url("/redirect/moved"))],
      [callTool("toolu_o", "other"), callTool("toolu_m", "moved"), say("done")],
    );
    expect(run.status, stack.logs()).toBe("done");
    expect(elsewhere.to("/hook/other")).toEqual([expect.objectContaining({ method: "POST" })]);
    expect(elsewhere.to("/hook/other")[0]!.headers.authorization).toBeUndefined();
    // A webhook follows no redirect: the call fails, and nothing reached the other origin with the header.
    expect(egress.to("/redirect/moved").map((r) => r.headers.authorization)).toEqual([`Bearer ${ALICE}`]);
    expect(elsewhere.to("/stolen").filter((r) => r.headers.authorization !== undefined)).toEqual([]);
    const calls = await toolCalls(run.id);
    expect(calls.find((call) => call.name === "moved")).toMatchObject({ is_error: true, output: expect.stringContaining("redirect") });
  }, 180_000);

  it("refreshes an expired token once for 5 concurrent calls, and every call carries the new one", async () => {
    egress.grants.set(CRM_REFRESH, { access_token: CRM_NEW, refresh_token: CRM_REFRESH_NEXT });
    await ok(
      putCredential("erin", "crm", {
        type: "oauth2",
        oauth2: {
          access_token: CRM_OLD,
          refresh_token: CRM_REFRESH,
          expires_at: new Date(Date.now() - 60_000).toISOString(),
          token_url: egress.url("/token"),
          client_id: "crm-client",
          client_secret: CLIENT_SECRET,
        },
        allowed_origins: [egress.origin],
      }),
    );
    const runs = await Promise.all(
      [0, 1, 2, 3, 4].map((i) =>
        runAs("erin", [hook("crm", egress.url(`/hook/crm/${i}`), "crm")], [callTool(`toolu_c${i}`, "crm"), say("done")]),
      ),
    );
    expect(
      runs.map((run) => run.status),
      stack.logs(),
    ).toEqual(["done", "done", "done", "done", "done"]);
    expect(egress.to("/token")).toHaveLength(1);
    expect(egress.to("/hook/crm/").map((r) => r.headers.authorization)).toEqual(Array(5).fill(`Bearer ${CRM_NEW}`));
    const shown = (await ok(send("GET", "/v1/end-users/erin/credentials/crm", backend))) as { status: string };
    expect(shown.status).toBe("ok");
  }, 240_000);

  it("refreshes a token the origin answers 401 to, and sends the call once more with the new one", async () => {
    egress.grants.set(FRANK_REFRESH, { access_token: FRANK_NEW });
    await ok(
      putCredential("frank", "crm", {
        type: "oauth2",
        oauth2: { access_token: FRANK_OLD, refresh_token: FRANK_REFRESH, token_url: egress.url("/token") },
        allowed_origins: [egress.origin],
      }),
    );
    const tokensBefore = egress.to("/token").length;
    egress.refused.add(`Bearer ${FRANK_OLD}`);
    const path = "/hook/frank";
    const run = await runAs("frank", [hook("crm", egress.url(path), "crm")], [callTool("toolu_f", "crm"), say("done")]);
    expect(run.status, stack.logs()).toBe("done");
    expect(egress.to(path).map((r) => r.headers.authorization)).toEqual([`Bearer ${FRANK_OLD}`, `Bearer ${FRANK_NEW}`]);
    expect(egress.to("/token").length - tokensBefore).toBe(1);
    expect((await toolCalls(run.id))[0]).toMatchObject({ is_error: false, output: "hook ok" });
  }, 180_000);

  it("ends a revoked refresh token refresh_failed: the call says credential_refresh_failed and the backend is told", async () => {
    egress.grants.set(DAVE_REVOKED, "revoked");
    await ok(
      putCredential("dave", "crm", {
        type: "oauth2",
        oauth2: {
          access_token: DAVE_OLD,
          refresh_token: DAVE_REVOKED,
          expires_at: new Date(Date.now() - 60_000).toISOString(),
          token_url: egress.url("/token"),
        },
        allowed_origins: [egress.origin],
      }),
    );
    const run = await runAs("dave", [hook("crm", egress.url("/hook/dave"), "crm")], [callTool("toolu_d", "crm"), say("please reconnect")]);
    expect(run.status, stack.logs()).toBe("done");
    expect(egress.to("/hook/dave")).toEqual([]);
    const [call] = await toolCalls(run.id);
    expect(call).toMatchObject({ is_error: true, output: expect.stringContaining("credential_refresh_failed") });
    expect(call!.output).toContain("reconnect");
    const shown = (await ok(send("GET", "/v1/end-users/dave/credentials/crm", backend))) as { status: string };
    expect(shown.status).toBe("refresh_failed");
    const stream = await events(run.id);
    expect(stream).toContain("event: credential_required");
    const frame = stream.split("\n").find((line) => line.startsWith("data:") && line.includes('"credential_required"'))!;
    expect(JSON.parse(frame.slice(5)).data).toEqual({
      credential: "crm",
      owner: "end_user",
      subject: "dave",
      code: "credential_refresh_failed",
    });
    const told = await waitFor(
      async () => receiver.received.find((r) => r.body.type === "session.credential_required" && r.body.session.id === run.id),
      { timeoutMs: STEP_TIMEOUT_MS, intervalMs: 100, what: "the credential_required notification" },
    );
    expect((told.body as unknown as { credential: unknown }).credential).toEqual({
      credential: "crm",
      owner: "end_user",
      subject: "dave",
      code: "credential_refresh_failed",
    });
  }, 180_000);

  it("leaves no secret in any byte the platform stored or emitted", async () => {
    // The trace export of the runs above, which carries tool results (capture_content).
    await waitFor(async () => (egress.to("/otel").length > 0 ? true : undefined), {
      timeoutMs: STEP_TIMEOUT_MS,
      intervalMs: 200,
      what: "a trace export",
    });
    const emitted: [string, string][] = [];
    for (const id of sessions) {
      emitted.push([`events ${id}`, await events(id)]);
      emitted.push([`export ${id}`, await (await send("GET", `/v1/sessions/${id}/export`, backend)).text()]);
      emitted.push([`session ${id}`, await (await send("GET", `/v1/sessions/${id}`, backend)).text()]);
      emitted.push([`tool calls ${id}`, JSON.stringify(await toolCalls(id))]);
    }
    emitted.push(["audit log", await (await send("GET", "/v1/tenant/audit-log", backend)).text()]);
    emitted.push(["credentials", await (await send("GET", "/v1/end-users/alice/credentials", backend)).text()]);
    emitted.push([
      "trace export",
      egress
        .to("/otel")
        .map((r) => r.body)
        .join("\n"),
    ]);
    emitted.push(["notifications", receiver.received.map((r) => r.body_text).join("\n")]);
    for (const key of models) emitted.push([`model requests ${key}`, JSON.stringify(await stack.mock.model(key).requests())]);
    emitted.push(["platform output", stack.logs()]);
    // Every file of every Durable Object's storage (the vault's holds ciphertext only).
    const root = join(stack.platform.root, "state");
    const files = (await readdir(root, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile());
    expect(files.length).toBeGreaterThan(3);
    const stored: [string, Buffer][] = await Promise.all(
      files.map(
        async (entry) => [join(entry.parentPath, entry.name), await readFile(join(entry.parentPath, entry.name))] as [string, Buffer],
      ),
    );

    const hits: string[] = [];
    for (const [name, value] of Object.entries(ALL_SECRETS)) {
      for (const [label, form] of leakedForms(value).filter(([, form]) => form.length >= 16)) {
        for (const [where, text] of emitted) if (text.toLowerCase().includes(form.toLowerCase())) hits.push(`${name} ${label} in ${where}`);
        for (const [where, bytes] of stored) if (bytes.includes(form)) hits.push(`${name} ${label} in ${where}`);
      }
    }
    expect({
      hits,
      searched: { emitted: emitted.length, files: stored.length, bytes: stored.reduce((n, [, b]) => n + b.length, 0) },
    }).toEqual({
      hits: [],
      searched: expect.anything(),
    });
    // The search can find what it looks for: the receiving ends saw the values.
    expect(egress.seen.some((r) => r.headers.authorization === `Bearer ${ALICE}`)).toBe(true);
  }, 180_000);
});
