/**
 * The harness the other scenarios stand on: the platform is a real process group (wrangler and
 * its workerd), a kill reaches all of it, and a restart serves again from the same storage.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSigningKey } from "../../src/auth/dev-signing-key";
import { groupMembers } from "./support/process-group";
import { say, waitForFinal } from "./support/scenario";
import { type Stack, startStack, uniqueName } from "./support/stack";
import { tokenMinter } from "./support/tokens";

describe("the end-to-end harness", () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.dispose();
  });

  it("kills wrangler and its workerd together, and serves the same sessions after a restart", async () => {
    const client = await stack.client(uniqueName("tenant"));
    const model = stack.mock.model(uniqueName("model"));
    await model.script(say("stored before the kill"));
    const session = await client.createSession({ input: "hello", model: model.key });
    await waitForFinal(client, session.id, 30_000);

    const group = stack.platform.processGroup;
    // wrangler itself and at least the workerd it started.
    expect(groupMembers(group).length).toBeGreaterThanOrEqual(2);
    const oldUrl = stack.platform.url;
    await stack.platform.restart("SIGKILL");
    expect(groupMembers(group)).toEqual([]);
    await expect(fetch(`${oldUrl}/health`)).rejects.toThrow();

    expect((await fetch(`${stack.platform.url}/health`)).status).toBe(200);
    const again = await client.getSession(session.id);
    expect(again.status).toBe("done");
    expect((await client.messages(session.id)).map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it("refuses a token signed by another key", async () => {
    const forged = await (await tokenMinter(await generateSigningKey()))({ tenantId: "t", subject: "s", scopes: ["sessions:read"] });
    const res = await fetch(`${stack.platform.url}/v1/sessions`, { headers: { authorization: `Bearer ${forged}` } });
    expect(res.status).toBe(401);
  });
});
