/** Odd but well-formed input that once reached a Durable Object's own checks: a 4xx, never a 500. */
import { describe, expect, it } from "vitest";
import { call, callJson, readProblem } from "../../support/api";
import { caller } from "./helpers";

const b64url = (text: string) => btoa(text).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");

describe("odd input", () => {
  it("answers a well-formed cursor with a long id as an empty page or a 400, not a 500", async () => {
    const who = await caller();
    const cursor = b64url(JSON.stringify([1, "a".repeat(300)]));
    for (const path of [`/v1/sessions?cursor=${cursor}`, `/v1/api-keys?cursor=${cursor}`]) {
      const res = await call(path, { headers: who.headers });
      expect([200, 400, 403]).toContain(res.status);
      await res.body?.cancel();
    }
  });

  it("answers a very long session id with an Idempotency-Key as 404", async () => {
    const who = await caller();
    for (const action of ["messages", "resume"]) {
      const body = action === "messages" ? { input: "hi" } : {};
      const res = await callJson(`/v1/sessions/ses_${"a".repeat(1500)}/${action}`, "POST", body, {
        ...who.headers,
        "Idempotency-Key": "k",
      });
      expect(res.status).toBe(404);
      expect((await readProblem(res)).status).toBe(404);
    }
  });
});
