/**
 * One standing rule for an API key (`keyStandingProblem`): a request, a token exchanged from the
 * key, an event stream opened with it and a schedule created with it all stop at the same moment.
 */
import { describe, expect, it } from "vitest";
import { type ApiKeyRecord, exchangedKeyStands, keyStandingProblem } from "../../src/auth/api-keys";
import { keyProblem } from "../../src/schedules/fire";
import { noteStream } from "../../src/tenants/event-streams";

const NOW = Date.parse("2026-06-01T12:00:00Z");
const record = (over: Partial<ApiKeyRecord>): ApiKeyRecord => ({
  key_id: "k1",
  tenant_id: "t1",
  name: "backend",
  scopes: ["sessions:read"],
  hash: "0".repeat(64),
  created_by: "user:a",
  created_at: "2026-01-01T00:00:00Z",
  expires_at: null,
  revoked_at: null,
  last_used_at: null,
  ...over,
});

/** Only what `noteStream` needs of SQL storage: every statement accepted, nothing read. */
const sql = { exec: () => ({ toArray: () => [], one: () => ({ n: 0 }) }) } as unknown as SqlStorage;

const CASES: [string, Partial<ApiKeyRecord>, ReturnType<typeof keyStandingProblem>][] = [
  ["no expiry", {}, null],
  ["an expiry still to come", { expires_at: "2026-06-01T12:00:01Z" }, null],
  ["an expiry at this very moment", { expires_at: "2026-06-01T12:00:00Z" }, "key_expired"],
  ["an expiry passed", { expires_at: "2026-05-01T00:00:00Z" }, "key_expired"],
  ["an unreadable expiry", { expires_at: "soon" }, "key_expired"],
  ["a revocation", { revoked_at: "2026-05-01T00:00:00Z" }, "key_revoked"],
  ["a revocation and a passed expiry", { revoked_at: "2026-05-01T00:00:00Z", expires_at: "2026-05-01T00:00:00Z" }, "key_revoked"],
];

describe("whether an API key stands", () => {
  it.each(CASES)("with %s: %s for requests, exchanged tokens, streams and schedules alike", (_name, over, problem) => {
    const key = record(over);
    expect(keyStandingProblem(key, NOW)).toBe(problem);
    expect(exchangedKeyStands(key, { tenantId: "t1", keyId: "k1" }, NOW)).toBe(problem === null);
    const note = noteStream(sql, { sessionId: "s1", streamId: "st1", keyId: "k1", now: NOW, expiresAt: NOW + 60_000 }, key, false, 10, 1);
    expect(note.ok).toBe(problem === null);
    expect(keyProblem(key, NOW)).toBe(problem === null ? null : problem === "key_revoked" ? "api_key_revoked" : "api_key_expired");
  });

  it("does not stand when its record is missing", () => {
    expect(exchangedKeyStands(null, { tenantId: "t1", keyId: "k1" }, NOW)).toBe(false);
    expect(
      noteStream(sql, { sessionId: "s1", streamId: "st1", keyId: "k1", now: NOW, expiresAt: NOW + 60_000 }, null, false, 10, 1).ok,
    ).toBe(false);
    expect(keyProblem(null, NOW)).toBe("api_key_revoked");
  });
});
