import { describe, expect, it } from "vitest";
import { resolveSessionLimits } from "../../src/sessions/limits";
import { BUILTIN_DEFAULT_LIMITS, type Limits } from "../../src/limits";

const tenant: Limits = { ...BUILTIN_DEFAULT_LIMITS, max_steps_per_run: 10, max_tokens_per_day: 50_000 };

describe("resolveSessionLimits", () => {
  it("gives the tenant's limits when the session asks for none", () => {
    expect(resolveSessionLimits(tenant, undefined)).toEqual({ ok: true, limits: tenant });
    expect(resolveSessionLimits(tenant, {})).toEqual({ ok: true, limits: tenant });
  });

  it("takes lower and equal values and keeps the rest from the tenant", () => {
    const result = resolveSessionLimits(tenant, { max_steps_per_run: 3, max_tool_output_chars: tenant.max_tool_output_chars });
    expect(result).toEqual({ ok: true, limits: { ...tenant, max_steps_per_run: 3 } });
  });

  it("refuses every value above the tenant's, naming each field", () => {
    const result = resolveSessionLimits(tenant, {
      max_steps_per_run: 11,
      max_tokens_per_call: tenant.max_tokens_per_call + 1,
      max_tokens_per_session: 1,
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => e.path)).toEqual(["body.limits.max_steps_per_run", "body.limits.max_tokens_per_call"]);
    expect(result.errors[0]!.message).toContain("10");
  });

  it("treats a null daily budget as unlimited: asking for it under a capped tenant raises it", () => {
    const result = resolveSessionLimits(tenant, { max_tokens_per_day: null });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toEqual([{ path: "body.limits.max_tokens_per_day", message: expect.stringContaining("50000") }]);
  });

  it("lets any number lower an unlimited daily budget", () => {
    const unlimited: Limits = { ...tenant, max_tokens_per_day: null };
    expect(resolveSessionLimits(unlimited, { max_tokens_per_day: 9_999_999 })).toEqual({
      ok: true,
      limits: { ...unlimited, max_tokens_per_day: 9_999_999 },
    });
    expect(resolveSessionLimits(unlimited, { max_tokens_per_day: null })).toEqual({ ok: true, limits: unlimited });
  });

  it("does not change the tenant's object", () => {
    const copy = structuredClone(tenant);
    resolveSessionLimits(tenant, { max_steps_per_run: 1 });
    expect(tenant).toEqual(copy);
  });
});
