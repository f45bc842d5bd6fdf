/**
 * MCP header names that `Object.prototype` answers for (`toString`, `hasOwnProperty`,
 * `constructor`, `__proto__`) are refused with a 400 naming the header, never stored and then
 * lost; and an agent's masked headers are restored from the stored ones it owns, never from the
 * prototype.
 */
import { describe, expect, it } from "vitest";
import { restoreMaskedHeaders } from "../../src/agents/definition";
import { MASKED_VALUE } from "../../src/session-config/masking";
import type { ToolSpec } from "../../src/session-config/types";
import { callJson, readProblem } from "../support/api";
import { caller } from "./sessions/helpers";

const URL = "https://mcp.example.com/mcp";

describe("MCP header names", () => {
  it.each(["toString", "hasOwnProperty", "constructor", "valueOf", "ToString", "__proto__"])(
    "refuses %s with a 400 naming it",
    async (name) => {
      const who = await caller();
      const body = `{"tools":[{"type":"mcp","name":"docs","url":"${URL}","headers":{"${name}":"sk-abcdefgh12345","X-Other":"abcdefgh999"}}]}`;
      const res = await callJson("/v1/sessions", "POST", JSON.parse(body), who.headers);
      expect(res.status).toBe(400);
      const problem = await readProblem(res);
      expect(problem.errors?.map((e) => e.path)).toEqual([name === "__proto__" ? "body.tools.0.headers" : `body.tools.0.headers.${name}`]);
    },
  );

  it("takes a name that only contains one (X-Constructor)", async () => {
    const who = await caller();
    const res = await callJson(
      "/v1/sessions",
      "POST",
      { tools: [{ type: "mcp", name: "docs", url: URL, headers: { "X-Constructor": "sk-abcdefgh12345" } }] },
      who.headers,
    );
    expect(res.status).toBe(201);
  });
});

describe("restoring an agent's masked headers", () => {
  const tool = (headers: Record<string, string>): ToolSpec => ({ type: "mcp", name: "docs", url: URL, headers });

  it("restores from the stored value the tool owns, and asks for one it never had, whatever its name", () => {
    const previous = [tool({ Authorization: "Bearer sk-stored-123456" })];
    const restored = restoreMaskedHeaders([tool({ Authorization: MASKED_VALUE, toString: MASKED_VALUE })], previous);
    expect(restored.errors.map((e) => e.path)).toEqual(["body.tools.0.headers.toString"]);
    const headers = (restored.tools![0] as { headers: Record<string, unknown> }).headers;
    expect(Object.hasOwn(headers, "toString")).toBe(false);
    expect(headers.Authorization).toBe("Bearer sk-stored-123456");
  });
});
