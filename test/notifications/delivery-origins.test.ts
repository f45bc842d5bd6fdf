/**
 * A status webhook keeps to the tenant's `webhook_origins` when it is sent: an endpoint or a
 * session's `notify_url` outside the list as it stands now is refused for good, and nothing is
 * fetched; one inside is sent.
 */
import { describe, expect, it } from "vitest";
import { attemptDelivery } from "../../src/notifications/deliver";

const REQUEST = { url: "https://hooks.example.com/status", eventId: "evt_1", eventType: "session.status_changed", body: "{}" };

function recordingFetch(calls: string[]): typeof fetch {
  return (async (input: RequestInfo | URL) => {
    calls.push(String(input instanceof Request ? input.url : input));
    return new Response("ok", { status: 200 });
  }) as typeof fetch;
}

describe("a status webhook delivery", () => {
  it("is refused, finally and without a request, when its origin left the tenant's webhook_origins", async () => {
    const calls: string[] = [];
    const context = { secrets: ["s".repeat(32)], allowPrivateUrls: false, now: Date.now(), fetchImpl: recordingFetch(calls) };
    const refused = await attemptDelivery(REQUEST, { ...context, allowedOrigins: ["https://other.example.com"] });
    expect(refused).toEqual({
      ok: false,
      final: true,
      status: null,
      error: "refused: the origin https://hooks.example.com is not in the tenant's webhook_origins",
    });
    expect(calls).toEqual([]);
    expect(await attemptDelivery(REQUEST, { ...context, allowedOrigins: ["https://hooks.example.com"] })).toEqual({
      ok: true,
      status: 200,
    });
    expect(calls).toEqual(["https://hooks.example.com/status"]);
  });
});
