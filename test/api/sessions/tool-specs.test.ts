import { describe, expect, it } from "vitest";
import { checkSessionTools, checkWebhookUrl } from "../../../src/api/sessions/tool-specs";
import type { ToolSpec } from "../../../src/agents/types";

const strict = { allowPrivateUrls: false };
const local = { allowPrivateUrls: true };

function webhook(name: string, url: string): ToolSpec {
  return { type: "webhook", name, description: "d", input_schema: { type: "object" }, url };
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
  ])("refuses %s", (url) => {
    expect(checkWebhookUrl(url, strict)).toEqual(expect.any(String));
  });

  it("refuses plain http even to a public host", () => {
    expect(checkWebhookUrl("http://example.com/hook", strict)).toBe("Webhook URLs must use https.");
  });

  it("accepts https to a public host", () => {
    expect(checkWebhookUrl("https://hooks.example.com/tools/lookup", strict)).toBeNull();
  });

  it("names the refused address so the caller can fix it", () => {
    expect(checkWebhookUrl("https://169.254.169.254/", strict)).toContain("169.254.169.254");
  });
});

describe("checkWebhookUrl with private URLs allowed", () => {
  it("accepts http and loopback, for local tests", () => {
    expect(checkWebhookUrl("http://127.0.0.1:8787/hook", local)).toBeNull();
  });

  it("still refuses other schemes and credentials", () => {
    expect(checkWebhookUrl("ftp://127.0.0.1/hook", local)).toEqual(expect.any(String));
    expect(checkWebhookUrl("http://a:b@127.0.0.1/hook", local)).toEqual(expect.any(String));
  });
});

describe("checkSessionTools", () => {
  it("accepts a valid mixed list", () => {
    const tools: ToolSpec[] = [
      { type: "builtin", name: "get_time" },
      webhook("lookup", "https://example.com/hook"),
      { type: "client", name: "ask_user", description: "d", input_schema: { type: "object" } },
    ];
    expect(checkSessionTools(tools, strict)).toEqual([]);
  });

  it("places each bad webhook URL on its own field", () => {
    const errors = checkSessionTools([webhook("a", "https://example.com/ok"), webhook("b", "https://127.0.0.1/x"), webhook("c", "https://169.254.169.254/")], strict);
    expect(errors.map((e) => e.path)).toEqual(["body.tools.1.url", "body.tools.2.url"]);
  });

  it("reports an unknown built-in and a repeated name from the registry's rules", () => {
    expect(checkSessionTools([{ type: "builtin", name: "shell" }], strict)).toEqual([{ path: "body.tools", message: expect.stringContaining("shell") }]);
    expect(checkSessionTools([{ type: "builtin", name: "get_time" }, webhook("get_time", "https://example.com/")], strict)).toEqual([
      { path: "body.tools", message: expect.stringContaining("used twice") },
    ]);
  });
});
