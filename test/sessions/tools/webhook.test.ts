import { afterEach, describe, expect, it, vi } from "vitest";
import type { ToolSpec } from "../../../src/session-config/types";
import { webhookTool } from "../../../src/sessions/object/tools/webhook";
import type { ToolContext } from "../../../src/sessions/object/tools/tool";
import { McpConnections } from "../../../src/sessions/object/tools/mcp/pool";

type WebhookSpec = Extract<ToolSpec, { type: "webhook" }>;

function spec(url: string): WebhookSpec {
  return { type: "webhook", name: "lookup", description: "d", input_schema: { type: "object" }, url };
}

function context(origins: string[] | null = null): ToolContext {
  return {
    sessionId: "ses_1",
    tenantId: "t-1",
    createdBy: "user-1",
    toolCallId: "toolu_1",
    idempotencyKey: "ses_1:toolu_1",
    signal: new AbortController().signal,
    allowPrivateUrls: false,
    maxOutputChars: 1000,
    mcp: new McpConnections({ allowPrivateUrls: false, allowedOrigins: async () => null }),
    callSigning: async () => ({ secrets: ["whsec_new", "whsec_old"], webhook_origins: origins }),
    memory: () => {
      throw new Error("not used");
    },
  };
}

/** Answers every fetch with 200 and records the requests, instead of reaching the network. */
function recordFetches(): Request[] {
  const seen: Request[] = [];
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    seen.push(new Request(input, init));
    return new Response(JSON.stringify({ output: "ok" }), { status: 200, headers: { "content-type": "application/json" } });
  });
  return seen;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("a webhook call checks its URL by parsing, as at creation", () => {
  it.each(["HTTPS://hooks.example.com/x", " https://hooks.example.com/x", "https:hooks.example.com/x", "https://hooks.example.com/x"])(
    "calls %j as https://hooks.example.com/x",
    async (url) => {
      const seen = recordFetches();
      const outcome = await webhookTool(spec(url)).run!({ a: 1 }, context());
      expect(outcome).toEqual({ output: "ok", isError: false });
      expect(seen.map((r) => r.url)).toEqual(["https://hooks.example.com/x"]);
    },
  );

  it.each(["http://hooks.example.com/x", "HTTP://hooks.example.com/x", "https://127.0.0.1/x", "javascript:alert(1)"])(
    "refuses %j without calling it",
    async (url) => {
      const seen = recordFetches();
      const outcome = await webhookTool(spec(url)).run!({}, context());
      expect(outcome.isError).toBe(true);
      expect(outcome.output).toMatch(/^refused: /);
      expect(seen).toEqual([]);
    },
  );
});

describe("the signed webhook body", () => {
  it("says whom the call is for, which tool and which URL", async () => {
    const seen = recordFetches();
    await webhookTool(spec("HTTPS://hooks.example.com/x")).run!({ a: 1 }, context());
    expect(await seen[0]!.json()).toEqual({
      tenant_id: "t-1",
      session_id: "ses_1",
      created_by: "user-1",
      tool_call_id: "toolu_1",
      name: "lookup",
      url: "https://hooks.example.com/x",
      input: { a: 1 },
    });
    expect(seen[0]!.headers.get("x-webhook-signature")).toMatch(/^v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
  });

  it("is not sent to an origin the tenant's list leaves out", async () => {
    const seen = recordFetches();
    const outcome = await webhookTool(spec("https://hooks.example.com/x")).run!({}, context(["https://other.example.com"]));
    expect(outcome).toEqual({
      output: "refused: the origin https://hooks.example.com is not in the tenant's webhook_origins",
      isError: true,
    });
    expect(seen).toEqual([]);
  });
});
