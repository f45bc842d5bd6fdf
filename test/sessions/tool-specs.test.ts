import { describe, expect, it } from "vitest";
import { checkTenantUrl } from "../../src/egress/tenant-url";
import { checkCallUrl, checkNotifyUrl, prepareSessionTools } from "../../src/sessions/tool-specs";
import type { ToolSpec } from "../../src/session-config/types";

const strict = { allowPrivateUrls: false, webhookOrigins: null };
const local = { allowPrivateUrls: true, webhookOrigins: null };

function webhook(name: string, url: string): ToolSpec {
  return { type: "webhook", name, description: "d", input_schema: { type: "object" }, url };
}

/** The message of a refusal, or null when the URL is accepted. */
function refusal(url: string, options: { allowPrivateUrls: boolean }): string | null {
  const result = checkTenantUrl(url, options);
  return result.ok ? null : result.message;
}

describe("checkWebhookUrl without private URLs", () => {
  it.each([
    "http://127.0.0.1:8787/hook",
    "https://127.0.0.1/hook",
    "https://169.254.169.254/latest/meta-data/",
    "https://[::1]/hook",
    "https://10.0.0.5/hook",
    "https://192.168.1.1/hook",
    "https://localhost/hook",
    "https://metadata.google.internal/computeMetadata/v1/",
    "https://2130706433/hook",
    "https://[::ffff:169.254.169.254]/hook",
    "https://user:pass@example.com/hook",
    "not a url",
    "HTTP://hooks.example.com/x",
    " http://hooks.example.com/x",
    "http:hooks.example.com/x",
  ])("refuses %s", (url) => {
    expect(refusal(url, strict)).toEqual(expect.any(String));
  });

  it("refuses plain http even to a public host", () => {
    expect(refusal("http://example.com/hook", strict)).toBe("Webhook URLs must use https.");
  });

  it("accepts https to a public host", () => {
    expect(refusal("https://hooks.example.com/tools/lookup", strict)).toBeNull();
  });

  it("names the refused address so the caller can fix it", () => {
    expect(refusal("https://169.254.169.254/", strict)).toContain("169.254.169.254");
  });

  it.each([
    ["HTTPS://Hooks.Example.com/x", "https://hooks.example.com/x"],
    [" https://hooks.example.com/x", "https://hooks.example.com/x"],
    ["https:hooks.example.com/x", "https://hooks.example.com/x"],
    ["https:///hooks.example.com/x", "https://hooks.example.com/x"],
    ["https://hooks.example.com:443/x?a=1", "https://hooks.example.com/x?a=1"],
    ["\thttps://hooks.example.com/x\n", "https://hooks.example.com/x"],
  ])("reads %j as the https URL %s, by parsing", (raw, normalized) => {
    const result = checkTenantUrl(raw, strict);
    expect(result.ok && result.url.href).toBe(normalized);
  });
});

describe("checkWebhookUrl with private URLs allowed", () => {
  it("accepts http and loopback, for local tests", () => {
    expect(refusal("http://127.0.0.1:8787/hook", local)).toBeNull();
  });

  it("still refuses other schemes and credentials", () => {
    expect(refusal("ftp://127.0.0.1/hook", local)).toEqual(expect.any(String));
    expect(refusal("http://a:b@127.0.0.1/hook", local)).toEqual(expect.any(String));
  });
});

describe("prepareSessionTools", () => {
  it("accepts a valid mixed list", () => {
    const tools: ToolSpec[] = [
      { type: "builtin", name: "get_time" },
      webhook("lookup", "https://example.com/hook"),
      { type: "client", name: "ask_user", description: "d", input_schema: { type: "object" } },
    ];
    expect(prepareSessionTools(tools, strict)).toEqual({ tools, errors: [] });
  });

  it("stores each webhook URL in its normalized form", () => {
    const { tools, errors } = prepareSessionTools([webhook("a", "HTTPS://Example.com/a"), webhook("b", " https:example.com/b")], strict);
    expect(errors).toEqual([]);
    expect(tools.map((t) => (t.type === "webhook" ? t.url : null))).toEqual(["https://example.com/a", "https://example.com/b"]);
  });

  it("places each bad webhook URL on its own field", () => {
    const { errors } = prepareSessionTools(
      [webhook("a", "https://example.com/ok"), webhook("b", "https://127.0.0.1/x"), webhook("c", "https://169.254.169.254/")],
      strict,
    );
    expect(errors.map((e) => e.path)).toEqual(["body.tools.1.url", "body.tools.2.url"]);
  });

  it("refuses a webhook whose origin the tenant did not allow", () => {
    const options = { allowPrivateUrls: false, webhookOrigins: ["https://hooks.example.com"] };
    const { errors } = prepareSessionTools(
      [
        webhook("a", "https://HOOKS.example.com:443/ok"),
        webhook("b", "https://evil.example.net/x"),
        webhook("c", "https://hooks.example.com:8443/x"),
      ],
      options,
    );
    expect(errors).toEqual([
      { path: "body.tools.1.url", message: "The origin https://evil.example.net is not in the tenant's webhook_origins." },
      { path: "body.tools.2.url", message: "The origin https://hooks.example.com:8443 is not in the tenant's webhook_origins." },
    ]);
  });

  it("holds an a2a tool's card URL to the webhook rule and the tenant's origins, stored normalized", () => {
    const a2a = (agent_card_url: string, name = "remote") => ({ type: "a2a" as const, name, description: "d", agent_card_url });
    const options = { allowPrivateUrls: false, webhookOrigins: ["https://agents.example.com"] };
    expect(prepareSessionTools([a2a("HTTPS://agents.example.com/card.json")], options)).toEqual({
      tools: [a2a("https://agents.example.com/card.json")],
      errors: [],
    });
    expect(
      prepareSessionTools([a2a("https://127.0.0.1/card.json"), a2a("https://evil.example.net/card.json", "other")], options).errors,
    ).toEqual([
      { path: "body.tools.0.agent_card_url", message: expect.stringContaining("Not an allowed webhook URL") },
      { path: "body.tools.1.agent_card_url", message: "The origin https://evil.example.net is not in the tenant's webhook_origins." },
    ]);
  });

  it("reports an unknown built-in and a repeated name from the registry's rules", () => {
    expect(prepareSessionTools([{ type: "builtin", name: "shell" }], strict).errors).toEqual([
      { path: "body.tools", message: expect.stringContaining("shell") },
    ]);
    expect(
      prepareSessionTools([{ type: "builtin", name: "get_time" }, webhook("get_time", "https://example.com/")], strict).errors,
    ).toEqual([{ path: "body.tools", message: expect.stringContaining("used twice") }]);
  });
});

describe("checkNotifyUrl and checkCallUrl", () => {
  const options = { allowPrivateUrls: false, webhookOrigins: null };

  it("refuse a URL over 2,048 characters, raw or once normalized, so none is stored that delivery would refuse", () => {
    const base = "https://hooks.example.com/";
    expect(checkNotifyUrl(base + "a".repeat(2_048 - base.length), options)).toMatchObject({ ok: true });
    expect(checkNotifyUrl(base + "a".repeat(2_049 - base.length), options)).toMatchObject({
      ok: false,
      error: { path: "body.notify_url", message: expect.stringContaining("2048") },
    });
    expect(checkCallUrl("body.traces.endpoint", base + "a".repeat(3_000), options)).toMatchObject({ ok: false });
    // Within the cap as sent, past it once encoded: the stored (normalized) form is what counts.
    const accented = base + "é".repeat(400);
    expect(accented.length).toBeLessThan(2_048);
    expect(checkNotifyUrl(accented, options)).toMatchObject({ ok: false });
  });
});
