/**
 * CORS: the test run allows exactly one origin (vitest.config.ts sets CORS_ORIGINS); every
 * other origin gets no Access-Control-Allow-Origin, on a preflight or on the request itself.
 */
import { describe, expect, it } from "vitest";
import wrangler from "../../wrangler.json";
import { allowedOrigin } from "../../src/api/middleware/cors";
import { call } from "../support/api";
import { bearer, freshTenant } from "../support/tokens";

const CONSOLE = "https://console.example.com";
const FOREIGN = "https://evil.example.net";

function preflight(origin: string, path = "/v1/sessions") {
  return call(path, {
    method: "OPTIONS",
    headers: { Origin: origin, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, content-type" },
  });
}

describe("CORS", () => {
  it("answers a preflight from a listed origin without credentials", async () => {
    const res = await preflight(CONSOLE);
    expect(res.status).toBe(204);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe(CONSOLE);
    expect(res.headers.get("Access-Control-Allow-Methods")).toContain("POST");
    expect(res.headers.get("Access-Control-Allow-Headers")?.toLowerCase()).toContain("authorization");
    expect(res.headers.get("Access-Control-Allow-Headers")?.toLowerCase()).toContain("last-event-id");
    expect(res.headers.get("Access-Control-Allow-Credentials")).toBeNull();
    expect(res.headers.get("Vary")).toContain("Origin");
  });

  it("never reflects an origin that is not listed", async () => {
    const pre = await preflight(FOREIGN);
    expect(pre.headers.get("Access-Control-Allow-Origin")).toBeNull();
    await pre.body?.cancel();
    const res = await call("/v1/tenant", {
      headers: { Origin: FOREIGN, ...(await bearer({ tenantId: freshTenant(), scopes: ["sessions:read"] })) },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBeNull();
    expect(res.headers.get("Vary")).toContain("Origin");
    await res.body?.cancel();
  });

  it("lets a listed origin read answers and errors, with the headers it needs", async () => {
    const ok = await call("/v1/tenant", {
      headers: { Origin: CONSOLE, ...(await bearer({ tenantId: freshTenant(), scopes: ["sessions:read"] })) },
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("Access-Control-Allow-Origin")).toBe(CONSOLE);
    expect(ok.headers.get("Access-Control-Expose-Headers")).toContain("X-Request-Id");
    expect(ok.headers.get("Access-Control-Expose-Headers")).toContain("RateLimit-Policy");
    expect(ok.headers.get("Access-Control-Expose-Headers")?.split(/,\s*/)).toContain("RateLimit");
    await ok.body?.cancel();
    const refused = await call("/v1/tenant", { headers: { Origin: CONSOLE } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("Access-Control-Allow-Origin")).toBe(CONSOLE);
    await refused.body?.cancel();
  });

  it("matches origins exactly", () => {
    const list = [CONSOLE];
    expect(allowedOrigin(CONSOLE, list)).toBe(CONSOLE);
    expect(allowedOrigin(`${CONSOLE}/`, list)).toBeNull();
    expect(allowedOrigin("https://console.example.com.evil.net", list)).toBeNull();
    expect(allowedOrigin("http://console.example.com", list)).toBeNull();
    expect(allowedOrigin("null", list)).toBeNull();
    expect(allowedOrigin(undefined, list)).toBeNull();
  });
});

describe("the Worker's logs", () => {
  it("strip query strings, where ?access_token= would carry a credential", () => {
    expect(wrangler.observability).toMatchObject({ enabled: true, redact_query_string: true });
  });
});
