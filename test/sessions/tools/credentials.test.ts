/** Vault credentials on the tool paths: the webhook tool, the MCP transport's fetch and connection, and a unit's lookups. */
import { afterEach, describe, expect, inject, it, vi } from "vitest";
import type { McpToolSpec, ToolSpec } from "../../../src/session-config/types";
import { WEBHOOK_MAX_RESPONSE_BYTES, webhookTool } from "../../../src/sessions/object/tools/webhook";
import type { ToolContext } from "../../../src/sessions/object/tools/tool";
import { McpConnections } from "../../../src/sessions/object/tools/mcp/pool";
import { mcpFetch } from "../../../src/sessions/object/tools/mcp/mcp-fetch";
import { describeFailure } from "../../../src/sessions/object/tools/mcp/outcome";
import { UnitCredentials } from "../../../src/sessions/object/tools/unit-credentials";
import { CredentialUnavailable } from "../../../src/egress/credential-fetch";
import type { CredentialLookup, CredentialSource, EgressCredential } from "../../../src/egress/credentials";
import { maskerOf } from "../../../src/shared/secret-mask";
import { uniqueKey } from "../../support/mock-client";

const OLD = "Bearer old-token-0123456789";
const NEW = "Bearer new-token-9876543210";

function credential(overrides: Partial<EgressCredential> = {}): EgressCredential {
  return {
    name: "github",
    owner: "end_user",
    header: "authorization",
    value: OLD,
    allowedOrigins: ["https://hooks.example.com"],
    refreshable: true,
    ...overrides,
  };
}

/** A vault of one credential: `get` gives `first`, `refresh` gives the new value. */
function vault(first: CredentialLookup | null) {
  const asked = { gets: 0, refreshes: [] as string[] };
  const source: CredentialSource = {
    async get(name) {
      asked.gets++;
      return first ?? { ok: false, code: "credential_missing", name, owner: null, detail: "" };
    },
    async refresh(_name, rejected) {
      asked.refreshes.push(rejected);
      return { ok: true, credential: credential({ value: NEW }) };
    },
  };
  return { source, asked };
}

type WebhookSpec = Extract<ToolSpec, { type: "webhook" }>;
const spec = (url = "https://hooks.example.com/x"): WebhookSpec => ({
  type: "webhook",
  name: "lookup",
  description: "d",
  input_schema: { type: "object" },
  url,
  auth: { credential: "github" },
});

function context(credentials?: CredentialSource): ToolContext {
  return {
    sessionId: "ses_1",
    tenantId: "t-1",
    createdBy: "end_user:alice",
    toolCallId: "toolu_1",
    idempotencyKey: "ses_1:toolu_1",
    signal: new AbortController().signal,
    allowPrivateUrls: false,
    maxOutputChars: 1000,
    mcp: new McpConnections({ allowPrivateUrls: false, allowedOrigins: async () => null }),
    callSigning: async () => ({ secrets: ["whsec_new"], webhook_origins: null }),
    memory: () => {
      throw new Error("not used");
    },
    ...(credentials ? { credentials } : {}),
  };
}

/** Answers with `answer` and records the requests, instead of reaching the network. */
function recordFetches(answer: (request: Request) => Response = () => Response.json({ output: "ok" })): Request[] {
  const seen: Request[] = [];
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const request = new Request(input, init);
    seen.push(request);
    return answer(request);
  });
  return seen;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("a webhook tool that names a credential", () => {
  it("sends it to an origin it allows, and nothing to one it does not", async () => {
    const seen = recordFetches();
    const { source } = vault({ ok: true, credential: credential() });
    expect(await webhookTool(spec()).run!({}, context(source))).toEqual({ output: "ok", isError: false });
    await webhookTool(spec("https://other.example.com/x")).run!({}, context(source));
    expect(seen.map((r) => r.headers.get("authorization"))).toEqual([OLD, null]);
  });

  it("refreshes once after a 401 and sends the call again with the new value", async () => {
    const seen = recordFetches((r) =>
      r.headers.get("authorization") === NEW ? Response.json({ output: "ok" }) : new Response("no", { status: 401 }),
    );
    const { source, asked } = vault({ ok: true, credential: credential() });
    expect(await webhookTool(spec()).run!({}, context(source))).toEqual({ output: "ok", isError: false });
    expect(asked.refreshes).toEqual([OLD]);
    expect(seen.map((r) => r.headers.get("authorization"))).toEqual([OLD, NEW]);
  });

  it("is not called without its credential: the result names it, and says who must act", async () => {
    const seen = recordFetches();
    const outcome = await webhookTool(spec()).run!({}, context(vault(null).source));
    expect(seen).toEqual([]);
    expect(outcome).toMatchObject({ isError: true, credentialFailure: { code: "credential_missing", name: "github" } });
    expect(outcome.output).toMatch(/^credential_missing: the credential "github" is not connected/);
  });

  it("reads a session without a vault as vault_unavailable", async () => {
    recordFetches();
    const outcome = await webhookTool(spec()).run!({}, context());
    expect(outcome).toMatchObject({ isError: true, credentialFailure: { code: "vault_unavailable" } });
  });

  it("never lets a credential set a header the platform signs the call with", async () => {
    const seen = recordFetches();
    const { source } = vault({ ok: true, credential: credential({ header: "X-Webhook-Signature" }) });
    const outcome = await webhookTool(spec()).run!({}, context(source));
    expect(seen).toEqual([]);
    expect(outcome.isError).toBe(true);
    expect(outcome.output).not.toContain("old-token");
  });

  it("drops the start of a token the answer echoes where the size cap cuts it", async () => {
    const echoed = "old-token-0123456789";
    for (const cutAfter of [1, 4, echoed.length - 1]) {
      recordFetches(() => new Response("x".repeat(WEBHOOK_MAX_RESPONSE_BYTES - cutAfter) + echoed, { status: 400 }));
      const outcome = await webhookTool(spec()).run!({}, context(vault({ ok: true, credential: credential() }).source));
      expect(outcome.isError).toBe(true);
      expect(outcome.output.endsWith("x"), `cut after ${cutAfter}`).toBe(true);
      vi.restoreAllMocks();
    }
  });
});

describe("the MCP transport's fetch with a credential", () => {
  const SERVER = new URL("https://hooks.example.com/mcp");

  it("adds it to every request, refreshes once after a 401 and resends the same body", async () => {
    const seen: { auth: string | null; body: string }[] = [];
    const impl = (async (_input: RequestInfo | URL, init?: RequestInit) => {
      const auth = new Headers(init?.headers).get("authorization");
      seen.push({ auth, body: String(init?.body) });
      return auth === NEW ? Response.json({}) : new Response("no", { status: 401 });
    }) as typeof fetch;
    const { source, asked } = vault({ ok: true, credential: credential() });
    const guarded = mcpFetch({
      server: SERVER,
      allowPrivateUrls: false,
      allowedOrigins: null,
      fetchImpl: impl,
      auth: { name: "github", source },
    });
    const response = await guarded(SERVER.href, { method: "POST", body: '{"id":1}', headers: { authorization: "Bearer tool-own" } });
    expect(response.status).toBe(200);
    expect(asked.refreshes).toEqual([OLD]);
    expect(seen).toEqual([
      { auth: OLD, body: '{"id":1}' },
      { auth: NEW, body: '{"id":1}' },
    ]);
  });

  it("fails a request whose credential is missing with an error that names it and carries no value", async () => {
    const impl = (async () => Response.json({})) as typeof fetch;
    const guarded = mcpFetch({
      server: SERVER,
      allowPrivateUrls: false,
      allowedOrigins: null,
      fetchImpl: impl,
      auth: { name: "github", source: vault(null).source },
    });
    const error = await guarded(SERVER.href, { method: "POST", body: "{}" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CredentialUnavailable);
    const failure = await describeFailure("gh", error, maskerOf([]));
    expect(failure).toMatchObject({ transient: false, credential: { code: "credential_missing", name: "github" } });
    expect(failure.message).toContain('credential "github"');
  });
});

describe("an MCP server that names a credential, against the local MCP server", () => {
  const server = (key: string): McpToolSpec => ({
    type: "mcp",
    name: "gh",
    url: `${inject("mcpUrl")}/mcp/${key}`,
    auth: { credential: "github" },
  });

  it("receives the credential on every request of the connection", async () => {
    const origin = new URL(inject("mcpUrl")).origin;
    const { source } = vault({ ok: true, credential: credential({ allowedOrigins: [origin], refreshable: false }) });
    const pool = new McpConnections({ allowPrivateUrls: true, allowedOrigins: async () => null, credentials: source });
    try {
      const connection = await pool.get(server(uniqueKey("cred")), new AbortController().signal);
      const result = await connection.callTool("whoami", {}, new AbortController().signal, 10_000);
      expect(result.content).toEqual([{ type: "text", text: `authorization: ${OLD}` }]);
    } finally {
      await pool.closeAll();
    }
  });

  it("cannot connect without it: the failure names the credential and is final", async () => {
    const pool = new McpConnections({ allowPrivateUrls: true, allowedOrigins: async () => null, credentials: vault(null).source });
    try {
      const error = await pool.get(server(uniqueKey("nocred")), new AbortController().signal).catch((e: unknown) => e);
      const failure = await describeFailure("gh", error, maskerOf([]));
      expect(failure).toMatchObject({ transient: false, credential: { code: "credential_missing" } });
    } finally {
      await pool.closeAll();
    }
  });
});

describe("a unit's credentials", () => {
  it("asks the vault once per name, masks every value it handed out, and says who must connect what", async () => {
    const { source, asked } = vault({ ok: true, credential: credential() });
    const unit = new UnitCredentials(source, "alice");
    await unit.get("github");
    await unit.get("github");
    expect(asked.gets).toBe(1);
    await unit.refresh("github", OLD);
    expect(unit.masker().mask(`echo ${OLD} and new-token-9876543210`)).toBe("echo ******** and ********");
    expect(unit.required({ ok: false, code: "credential_missing", name: "crm", owner: null, detail: "" })).toEqual({
      credential: "crm",
      owner: "end_user",
      subject: "alice",
      code: "credential_missing",
    });
    const tenants = new UnitCredentials(source, null);
    expect(tenants.required({ ok: false, code: "credential_refresh_failed", name: "crm", owner: "tenant", detail: "" })).toEqual({
      credential: "crm",
      owner: "tenant",
      code: "credential_refresh_failed",
    });
  });
});
