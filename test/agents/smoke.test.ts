import { env, runInDurableObject } from "cloudflare:test";
import { inject, it, expect } from "vitest";
it("reaches the DO and the mock", async () => {
  const stub = env.AGENT.get(env.AGENT.idFromName("t:s"));
  expect(await stub.ping()).toBe("pong");
  const r = await fetch(inject("mockUrl") + "/x");
  expect(await r.json()).toEqual({ hello: "/x" });
  await runInDurableObject(stub, async (inst, state) => { expect(state.storage.kv.get("a")).toBeUndefined(); });
});
