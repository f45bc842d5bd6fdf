/**
 * The console in a real headless Chromium against a real platform (`wrangler dev`): signing in
 * with an API key and with a token, a session seen live from running to done with its text
 * streaming, an approval and a denial, cancels (one session, then in bulk), a tenant admin who
 * cannot see another tenant's sessions, end users' sessions by subject and filtered by one, an expired token, a platform admin's tenant pages, and
 * the agents: two versions compared, its endpoints in each protocol with a snippet copied, an alias
 * set from the keyboard, a session started from a version, an archival, and a reader who is offered no changes; the memory: namespaces drilled
 * down, a search within one, an item's versions, a deletion from the keyboard, and a reader; the
 * tenant's usage charted per day by model, with its breakdown tables; a recorded web-search answer's
 * sources under it, in the console and on a `useChat` page.
 * Every page is checked for Content-Security-Policy violations and script errors; screenshots
 * of the main views go to test-results/console/.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApiClient } from "./support/api-client";
import { DESKTOP, launchChromium, openPage, PHONE, screenshot, type WatchedPage } from "./support/browser";
import type { ModelStep } from "./support/mock-process";
import { say, waitForFinal, waitForStatus } from "./support/scenario";
import { type SharedStack, sharedStack, uniqueName } from "./support/stack";
import { type Identity, tokenMinter } from "./support/tokens";
import { serveUseChatPage } from "./support/use-chat-server";
import { waitFor } from "./support/wait";

/** A browser step: the console polls every 2 s and the stream is immediate, so this is slack for a loaded machine. */
const UI_TIMEOUT_MS = 20_000;
const RUN_TIMEOUT_MS = 30_000;
const ADMIN_SCOPES: Identity["scopes"] = ["tenant:admin"];
/** Long enough to sign in and see the list on a loaded machine, short enough to wait out. */
const SHORT_TOKEN_SECONDS = 8;

/** A model answer that asks for the time, with an input `get_time` accepts. */
function askTime(id: string): ModelStep {
  return { reply: { content: [{ type: "tool_use", id, name: "get_time", input: {} }] } };
}

/** A real Anthropic answer that searched the web and cites four pages (test/fixtures/provider-streams/README.md). */
const WEB_SEARCH_SSE = readFileSync(join(import.meta.dirname, "../fixtures/provider-streams/anthropic/web-search-citations.sse"), "utf8");

/** The pages a recorded stream cites, read straight from its `citations_delta` events: each URL once, first title, in order. */
function citedPages(sse: string): [title: string, url: string][] {
  const pages = new Map<string, string>();
  for (const line of sse.split("\n")) {
    if (!line.startsWith("data: ")) continue;
    const event = JSON.parse(line.slice(6)) as { delta?: { type: string; citation?: { url: string; title: string } } };
    const citation = event.delta?.type === "citations_delta" ? event.delta.citation : undefined;
    if (citation && !pages.has(citation.url)) pages.set(citation.url, citation.title);
  }
  return [...pages].map(([url, title]) => [title, url]);
}

/** `[text, href]` of each link under `selector`, in order. */
function linksOf(page: Page, selector: string): Promise<[string, string][]> {
  return page.locator(`${selector} a`).evaluateAll((links) => links.map((a) => [a.textContent ?? "", a.getAttribute("href") ?? ""]));
}

/** Presses Tab until the focused element is the button or link named `name` (a bounded number of times). */
async function tabUntilFocused(page: Page, name: string): Promise<void> {
  for (let presses = 0; presses < 60; presses++) {
    await page.keyboard.press("Tab");
    const focused = await page.evaluate(() => document.activeElement?.textContent?.trim() ?? "");
    if (focused === name) return;
  }
  throw new Error(`Tab never reached "${name}"`);
}

/** Presses Tab until the focused element has the id `id` (a field, which has no text to name it by). */
async function tabUntilId(page: Page, id: string): Promise<void> {
  for (let presses = 0; presses < 60; presses++) {
    await page.keyboard.press("Tab");
    if ((await page.evaluate(() => document.activeElement?.id ?? "")) === id) return;
  }
  throw new Error(`Tab never reached #${id}`);
}

/** What the browser must never report on a console page: the policy refusing something, or a script failing. */
function policyOrScriptProblems(watched: WatchedPage): string[] {
  return watched.problems.filter((line) => /content.security.policy|csp violation|trusted ?type|page error/i.test(line));
}

describe("the console in Chromium", () => {
  let stack: SharedStack;
  let browser: Browser;
  let mint: (identity: Identity) => Promise<string>;
  let tenant: string;
  let admin: ApiClient;
  let adminToken: string;
  const pages: WatchedPage[] = [];

  beforeAll(async () => {
    [stack, browser] = await Promise.all([sharedStack(), launchChromium()]);
    mint = await tokenMinter(stack.platform.signingKey);
    tenant = uniqueName("console");
    adminToken = await mint({ tenantId: tenant, subject: "ops-alice", scopes: ADMIN_SCOPES });
    admin = await stack.client(tenant, "ops-alice", ADMIN_SCOPES);
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.dispose();
  });

  async function open(viewport = DESKTOP): Promise<WatchedPage> {
    const watched = await openPage(browser, viewport);
    pages.push(watched);
    return watched;
  }

  /** Opens the console and signs in with `credential` (a JWT or an API key). */
  async function signIn(credential: string, viewport = DESKTOP, hash = ""): Promise<WatchedPage> {
    const watched = await open(viewport);
    await watched.page.goto(`${stack.platform.url}/console${hash}`);
    await watched.page.getByLabel("API key or token").fill(credential);
    await watched.page.getByRole("button", { name: "Sign in" }).click();
    await watched.page.getByRole("heading", { level: 1 }).filter({ hasNotText: "console" }).waitFor({ timeout: UI_TIMEOUT_MS });
    return watched;
  }

  function statusOf(page: Page) {
    return page.locator(".page-head .subtitle .status").first();
  }

  it("signs in with an API key and shows a session go from running to done live, its text streaming", async () => {
    const key = await admin.expect<{ key: string }>(201, "POST", "/v1/api-keys", { name: "console", scopes: ["tenant:admin"] });
    const watched = await signIn(key.key);
    const { page } = watched;
    await page.getByText("No sessions yet").waitFor({ timeout: UI_TIMEOUT_MS });
    await screenshot(page, "sessions-empty");
    // The list is kept fresh with conditional requests: an unchanged page comes back as 304.
    await waitFor(async () => (watched.responses.some((line) => /^GET \/v1\/sessions\?\S* 304$/.test(line)) ? true : undefined), {
      timeoutMs: UI_TIMEOUT_MS,
      what: "a 304 to the list's poll",
    });

    const model = stack.mock.model(uniqueName("model"));
    const answer = "The time is noon, and every part of this answer was streamed to the console while it was written.";
    await model.script(
      // A slow first answer, so the console sees the run before the tool call, and its session
      // page is open before the second call starts: an answer is streamed while someone watches.
      { ...askTime("toolu_time"), delay_ms: 8_000 },
      // Written slowly, after a pause, so the session page is open before the first word.
      { reply: { content: [{ type: "text", text: answer }] }, delay_ms: 3_000, stream: { chunk_chars: 4, event_delay_ms: 120 } },
    );
    const session = await admin.createSession({
      input: "What time is it?",
      model: model.key,
      tools: [{ type: "builtin", name: "get_time" }],
    });

    // The list finds it by polling, then the session page watches it over the WebSocket.
    const link = page.getByRole("link", { name: session.id });
    await link.waitFor({ timeout: UI_TIMEOUT_MS });
    await screenshot(page, "sessions");
    await link.click();
    await statusOf(page).filter({ hasText: "running" }).waitFor({ timeout: UI_TIMEOUT_MS });
    await page.locator(".live-live").waitFor({ timeout: UI_TIMEOUT_MS });
    // Text the model is still writing, before the complete answer is saved.
    await page.locator(".draft").waitFor({ timeout: UI_TIMEOUT_MS });
    await screenshot(page, "session-streaming");
    await statusOf(page).filter({ hasText: "done" }).waitFor({ timeout: RUN_TIMEOUT_MS });
    await page.locator(".message-assistant .text", { hasText: answer }).waitFor({ timeout: UI_TIMEOUT_MS });
    // The stream said `end` and closed; the console does not reconnect.
    await page.locator(".live-ended").waitFor({ timeout: UI_TIMEOUT_MS });
    await page.locator('[data-call="toolu_time"] .call-status-done').waitFor({ timeout: UI_TIMEOUT_MS });
    await page.locator(".step-table tbody tr").nth(2).waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await page.locator(".draft").count()).toBe(0);
    await screenshot(page, "session");

    // The stream was opened with the exchanged token, never with the key.
    expect(watched.responses.join("\n")).not.toContain("ak_");
    expect(policyOrScriptProblems(watched)).toEqual([]);

    const phone = await signIn(adminToken, PHONE, `#/sessions/${session.id}`);
    await statusOf(phone.page).filter({ hasText: "done" }).waitFor({ timeout: UI_TIMEOUT_MS });
    // A finished session opened later: its snapshot, then `end`.
    await phone.page.locator(".message-assistant .text", { hasText: answer }).waitFor({ timeout: UI_TIMEOUT_MS });
    await phone.page.locator(".live-ended").waitFor({ timeout: UI_TIMEOUT_MS });
    await screenshot(phone.page, "session-phone");
    expect(policyOrScriptProblems(phone)).toEqual([]);
  });

  it("approves a waiting tool call, and denies another with a reason the model reads", async () => {
    const { page, ...watched } = await signIn(adminToken);
    const model = stack.mock.model(uniqueName("model"));
    await model.script(askTime("toolu_ok"), say("Approved and done."), askTime("toolu_no"), say("Denied, fine."));
    const tools = [{ type: "builtin" as const, name: "get_time", requires_approval: true }];

    const approved = await admin.createSession({ input: "Time, please.", model: model.key, tools });
    await page.goto(`${stack.platform.url}/console#/sessions/${approved.id}`);
    await statusOf(page).filter({ hasText: "waiting for approval" }).waitFor({ timeout: UI_TIMEOUT_MS });
    const card = page.locator('[data-call="toolu_ok"]');
    await card.getByRole("button", { name: "Approve" }).waitFor({ timeout: UI_TIMEOUT_MS });
    // The call's timings and the model step come from the lists read beside the stream.
    await card.getByText("Asked").waitFor({ timeout: UI_TIMEOUT_MS });
    await page.locator(".step-table tbody tr").first().waitFor({ timeout: UI_TIMEOUT_MS });
    await screenshot(page, "session-approval");
    // From the top of the page, the keyboard alone reaches the button and presses it.
    await page.getByRole("heading", { level: 1 }).focus();
    await tabUntilFocused(page, "Approve");
    await page.keyboard.press("Enter");
    await statusOf(page).filter({ hasText: "done" }).waitFor({ timeout: RUN_TIMEOUT_MS });
    expect((await admin.toolCalls(approved.id)).map((call) => [call.id, call.status])).toEqual([["toolu_ok", "done"]]);

    const denied = await admin.createSession({ input: "Time again.", model: model.key, tools });
    await page.goto(`${stack.platform.url}/console#/sessions/${denied.id}`);
    const other = page.locator('[data-call="toolu_no"]');
    await other.getByRole("button", { name: "Deny…" }).click({ timeout: UI_TIMEOUT_MS });
    await other.getByLabel("Reason (the model reads it)").fill("not during the freeze");
    await other.getByRole("button", { name: "Deny", exact: true }).click();
    await statusOf(page).filter({ hasText: "done" }).waitFor({ timeout: RUN_TIMEOUT_MS });
    const [call] = await admin.toolCalls(denied.id);
    expect(call).toMatchObject({ id: "toolu_no", status: "error", is_error: true });
    expect(call?.output).toContain("not during the freeze");
    expect(policyOrScriptProblems({ page, ...watched })).toEqual([]);
  });

  it("pauses and resumes a session that waits for a client tool, then submits the tool's output from the keyboard", async () => {
    const { page, ...watched } = await signIn(adminToken);
    const model = stack.mock.model(uniqueName("model"));
    await model.script(
      { reply: { content: [{ type: "tool_use", id: "toolu_temp", name: "read_thermometer", input: {} }] } },
      say("It is 21 degrees."),
    );
    const thermometer = {
      type: "client" as const,
      name: "read_thermometer",
      description: "Reads the room's thermometer.",
      input_schema: { type: "object", properties: {} },
    };
    const session = await admin.createSession({ input: "How warm is it?", model: model.key, tools: [thermometer] });

    await page.goto(`${stack.platform.url}/console#/sessions/${session.id}`);
    await statusOf(page).filter({ hasText: "waiting for tool output" }).waitFor({ timeout: UI_TIMEOUT_MS });
    await page.getByRole("button", { name: "Pause", exact: true }).click();
    await statusOf(page).filter({ hasText: "paused" }).waitFor({ timeout: UI_TIMEOUT_MS });
    expect((await admin.getSession(session.id)).status).toBe("paused");
    await page.getByRole("button", { name: "Resume", exact: true }).click();
    await statusOf(page).filter({ hasText: "waiting for tool output" }).waitFor({ timeout: UI_TIMEOUT_MS });

    // "Go to it" moves the focus into the waiting call's output field; the rest is typed.
    await page.getByRole("button", { name: "Go to it" }).click();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("output-toolu_temp");
    await page.keyboard.type("21 °C");
    await tabUntilFocused(page, "Submit output");
    await page.keyboard.press("Enter");
    await statusOf(page).filter({ hasText: "done" }).waitFor({ timeout: RUN_TIMEOUT_MS });
    await page.locator(".message-assistant .text", { hasText: "It is 21 degrees." }).waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await admin.toolCalls(session.id)).toMatchObject([{ id: "toolu_temp", status: "done", output: "21 °C", is_error: false }]);
    expect(policyOrScriptProblems({ page, ...watched })).toEqual([]);
  });

  it("shows a recorded web-search answer's sources under it on a useChat page and in the console", async () => {
    const expected = citedPages(WEB_SEARCH_SSE);
    expect(expected).toHaveLength(4);
    expect(expected[0]![1]).toBe("https://www.apple.com/newsroom/2025/09/the-all-new-apple-ginza-opens-this-friday-september-26-in-tokyo/");
    // A tenant of its own, so its one session is the chat's; named like a catalog model that has web search.
    const searchTenant = uniqueName("sources");
    const token = await mint({ tenantId: searchTenant, subject: "ops-erin", scopes: ADMIN_SCOPES });
    const owner = await stack.client(searchTenant, "ops-erin", ADMIN_SCOPES);
    const model = stack.mock.model(uniqueName("claude-sonnet-4-search"));
    await model.script({ raw: { body: WEB_SEARCH_SSE } });
    const agent = await owner.expect<{ id: string }>(201, "POST", "/v1/agents", {
      name: uniqueName("news"),
      model: model.key,
      tools: [{ type: "provider", name: "web_search", max_uses: 3 }],
    });

    const server = await serveUseChatPage(stack.platform.url);
    try {
      const chat = await open();
      const query = new URLSearchParams({ api: `/v1/agents/${agent.id}/chat`, token, chat: uniqueName("chat") });
      await chat.page.goto(`${server.url}/?${query}`);
      await chat.page.fill("input[name=draft]", "What is in the tech news today?");
      await chat.page.press("input[name=draft]", "Enter");
      await chat.page.locator("main[data-status=ready] .assistant .sources li").first().waitFor({ timeout: RUN_TIMEOUT_MS });
      expect(await linksOf(chat.page, ".assistant .sources")).toEqual(expected);
      await chat.page.locator(".assistant .sources").scrollIntoViewIfNeeded();
      await screenshot(chat.page, "chat-sources");
    } finally {
      await server.close();
    }

    const [session] = (await owner.expect<{ data: { id: string }[] }>(200, "GET", "/v1/sessions")).data;
    const { page, ...watched } = await signIn(token, DESKTOP, `#/sessions/${session!.id}`);
    await statusOf(page).filter({ hasText: "done" }).waitFor({ timeout: UI_TIMEOUT_MS });
    const sources = page.locator(".message-assistant .sources");
    await sources.getByRole("heading", { name: "Sources" }).waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await linksOf(page, ".message-assistant .sources")).toEqual(expected);
    await sources.scrollIntoViewIfNeeded();
    await screenshot(page, "console-sources");
    expect(policyOrScriptProblems({ page, ...watched })).toEqual([]);
  });

  it("shows a session waiting on its budget, and raises the budget from its page so the run ends", async () => {
    const { page, ...watched } = await signIn(adminToken);
    const model = stack.mock.model(uniqueName("model"));
    const usage = { input_tokens: 10, output_tokens: 5 };
    await model.script(
      { reply: { content: [{ type: "tool_use", id: "toolu_b1", name: "get_time", input: {} }], usage } },
      say("It is late."),
    );
    const session = await admin.createSession({
      input: "What time is it?",
      model: model.key,
      tools: [{ type: "builtin", name: "get_time" }],
      limits: { max_tokens_per_session: 10 },
    });
    await page.goto(`${stack.platform.url}/console#/sessions/${session.id}`);
    await statusOf(page).filter({ hasText: "waiting for budget" }).waitFor({ timeout: RUN_TIMEOUT_MS });
    await page.getByText("Waits on this session's token budget").waitFor({ timeout: UI_TIMEOUT_MS });
    await page.getByRole("button", { name: "Raise budget", exact: true }).click();
    await statusOf(page).filter({ hasText: "done" }).waitFor({ timeout: RUN_TIMEOUT_MS });
    expect((await admin.getSession(session.id)).limits.max_tokens_per_session).toBe(20);
    expect(policyOrScriptProblems({ page, ...watched })).toEqual([]);
  });

  it("cancels a running session from its page, and the rest of the running ones in bulk", async () => {
    const { page, ...watched } = await signIn(adminToken);
    const model = stack.mock.model(uniqueName("model"));
    await model.script({ hang: true, repeat: 3 });
    const [one, two, three] = await Promise.all([1, 2, 3].map(() => admin.createSession({ input: "Think forever.", model: model.key })));
    await Promise.all([one, two, three].map((s) => waitForStatus(admin, s!.id, (x) => x.status === "running", RUN_TIMEOUT_MS)));

    await page.goto(`${stack.platform.url}/console#/sessions/${one!.id}`);
    await statusOf(page).filter({ hasText: "running" }).waitFor({ timeout: UI_TIMEOUT_MS });
    // Escape closes the question without cancelling; the second time it is confirmed.
    await page.getByRole("button", { name: "Cancel session…" }).click();
    await page.getByRole("dialog").waitFor({ timeout: UI_TIMEOUT_MS });
    await page.keyboard.press("Escape");
    await page.getByRole("dialog").waitFor({ state: "hidden", timeout: UI_TIMEOUT_MS });
    expect((await admin.getSession(one!.id)).status).toBe("running");
    await page.getByRole("button", { name: "Cancel session…" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Cancel the session" }).click();
    await statusOf(page).filter({ hasText: "cancelled" }).waitFor({ timeout: UI_TIMEOUT_MS });
    expect((await admin.getSession(one!.id)).status).toBe("cancelled");

    await page.goto(`${stack.platform.url}/console#/sessions?status=running`);
    await page.getByRole("link", { name: two!.id }).waitFor({ timeout: UI_TIMEOUT_MS });
    await page.getByRole("button", { name: "Cancel all running sessions…" }).click();
    await screenshot(page, "bulk-cancel");
    await page.getByRole("dialog").getByRole("button", { name: "Cancel them" }).click();
    await page.getByText("Cancelled 2 sessions.").waitFor({ timeout: UI_TIMEOUT_MS });
    await page.getByText("No running sessions.").waitFor({ timeout: UI_TIMEOUT_MS });
    for (const session of [two!, three!]) expect((await waitForFinal(admin, session.id, RUN_TIMEOUT_MS)).status).toBe("cancelled");
    expect(policyOrScriptProblems({ page, ...watched })).toEqual([]);
  });

  it("shows a tenant admin its own tenant's sessions and never another tenant's", async () => {
    const other = uniqueName("other");
    const otherAdmin = await stack.client(other, "bob", ADMIN_SCOPES);
    const theirs = await otherAdmin.createSession({ metadata: { secret: "theirs" } });
    const mine = await admin.createSession({});

    const { page, ...watched } = await signIn(adminToken);
    await page.getByRole("link", { name: mine.id }).waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await page.getByText(theirs.id).count()).toBe(0);

    await page.goto(`${stack.platform.url}/console#/sessions/${theirs.id}`);
    await page.getByText(`No session ${theirs.id} in tenant ${tenant} that you can see.`).waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await page.getByText("theirs").count()).toBe(0);
    // Every read of it was refused as missing, the stream included.
    const reads = watched.responses.filter((line) => line.includes(theirs.id));
    expect(reads.length).toBeGreaterThan(0);
    for (const line of reads) expect(line).toMatch(/ (401|404)$/);
    expect(policyOrScriptProblems({ page, ...watched })).toEqual([]);
  });

  it("shows end users' sessions by subject, marked as end users, and lists one end user's sessions", async () => {
    const endUsers = uniqueName("end-users");
    const [alice, bob, backend] = await Promise.all([
      stack.client(endUsers, "end_user:alice", ["sessions:read", "sessions:write"]),
      stack.client(endUsers, "end_user:bob", ["sessions:read", "sessions:write"]),
      stack.client(endUsers, "backend", ["sessions:read", "sessions:write", "agents:write"]),
    ]);
    // An end user starts sessions from the tenant's agents only.
    const agent = await backend.expect<{ id: string }>(201, "POST", "/v1/agents", { name: uniqueName("concierge") });
    const alices = await alice.createSession({ agent: agent.id });
    const bobs = await bob.createSession({ agent: agent.id });
    const backends = await backend.createSession({});

    const { page, ...watched } = await signIn(await mint({ tenantId: endUsers, subject: "ops-dana", scopes: ADMIN_SCOPES }));
    const row = (id: string) => page.locator(`tr[data-session="${id}"] [data-label="Created by"]`);
    await row(alices.id).waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await row(alices.id).textContent()).toBe("alice (end user)");
    expect(await row(alices.id).locator(".end-user").getAttribute("title")).toBe("end_user:alice");
    expect(await row(bobs.id).textContent()).toBe("bob (end user)");
    expect(await row(backends.id).textContent()).toBe("backend");

    // The filter asks for the end user's principal; the name in a row leads to the same list.
    await page.getByLabel("Kind of creator").selectOption("end_user");
    await page.locator("#created-by").fill("alice");
    await page.getByRole("button", { name: "Filter" }).click();
    await waitFor(
      async () => ((await page.locator("tr[data-session]").count()) === 1 && (await row(alices.id).count()) === 1 ? true : undefined),
      { timeoutMs: UI_TIMEOUT_MS, what: "only alice's session" },
    );
    expect(page.url()).toContain("created_by=end_user%3Aalice");
    expect(watched.responses.some((line) => /^GET \/v1\/sessions\?\S*created_by=end_user%3Aalice\S* (200|304)$/.test(line))).toBe(true);

    await page.goto(`${stack.platform.url}/console#/sessions`);
    await row(bobs.id).getByRole("link", { name: "bob" }).click();
    await waitFor(
      async () => ((await page.locator("tr[data-session]").count()) === 1 && (await row(bobs.id).count()) === 1 ? true : undefined),
      { timeoutMs: UI_TIMEOUT_MS, what: "only bob's session" },
    );
    expect(await page.getByLabel("Kind of creator").inputValue()).toBe("end_user");
    expect(await page.locator("#created-by").inputValue()).toBe("bob");
    await screenshot(page, "sessions-end-user");
    expect(policyOrScriptProblems({ page, ...watched })).toEqual([]);
  });

  it("asks to sign in again when a pasted token expires, and refuses an unreadable credential", async () => {
    const watched = await open();
    const { page } = watched;
    await page.goto(`${stack.platform.url}/console`);
    await page.getByLabel("API key or token").fill("not a credential");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText("That is neither an API key").waitFor({ timeout: UI_TIMEOUT_MS });

    const shortLived = await mint({ tenantId: tenant, subject: "short-lived", scopes: ADMIN_SCOPES, ttlSeconds: SHORT_TOKEN_SECONDS });
    await page.getByLabel("API key or token").fill(shortLived);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Sessions" }).waitFor({ timeout: UI_TIMEOUT_MS });
    await page.getByText("Your sign-in expired").waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    expect(policyOrScriptProblems(watched)).toEqual([]);
  });

  it("lists the agents, compares two versions, sets an alias from the keyboard, starts a session from a version and archives the agent", async () => {
    const model = stack.mock.model(uniqueName("model"));
    await model.script(say("Order 1042 ships on Monday."));
    const name = uniqueName("triage");
    type AgentAnswer = { id: string; version: number; aliases: Record<string, number>; archived: boolean };
    const created = await admin.expect<AgentAnswer>(201, "POST", "/v1/agents", {
      name,
      description: "Answers order questions",
      model: model.key,
      system: "You are a support agent for Acme. Be brief.",
      limits: { max_steps_per_run: 10 },
    });
    const agentId = created.id;
    const changed = await admin.expect<AgentAnswer>(200, "PATCH", `/v1/agents/${agentId}`, {
      system: "You are a support agent for Acme. Be brief and kind.",
    });
    expect(changed.version).toBe(2);

    const { page, ...watched } = await signIn(adminToken);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Agents" }).click();
    await page.getByRole("heading", { level: 1, name: "Agents" }).waitFor({ timeout: UI_TIMEOUT_MS });
    // The list: name, latest version, no aliases yet, live; the name filter finds it alone.
    await page.getByLabel("Name", { exact: true }).fill(name);
    await page.getByRole("button", { name: "Filter" }).click();
    const row = page.locator(`[data-agent="${agentId}"]`);
    await row.waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await page.locator("table.agents tbody tr").count()).toBe(1);
    expect(await row.locator('[data-label="Latest version"]').textContent()).toBe("2");
    expect(await row.locator('[data-label="Aliases"]').textContent()).toBe("—");
    expect(await row.locator('[data-label="State"]').textContent()).toBe("live");
    await screenshot(page, "agents");

    await row.getByRole("link", { name }).click();
    await page.getByRole("heading", { level: 1, name: `Agent ${name}` }).waitFor({ timeout: UI_TIMEOUT_MS });
    // The same version twice shows it whole; then versions 1 and 2 show the changed line.
    await page.getByLabel("From version").selectOption("2");
    await page.getByText("Version 2, whole").waitFor({ timeout: UI_TIMEOUT_MS });
    await page.getByLabel("From version").selectOption("1");
    await page.getByLabel("To version").selectOption("2");
    await page.getByText("From version 1 to version 2: 1 line removed, 1 line added.").waitFor({ timeout: UI_TIMEOUT_MS });
    expect(page.url()).toContain(`#/agents/${agentId}?from=1&to=2`);
    expect(await page.locator("table.diff .diff-removed .code").allTextContents()).toEqual([
      '  "system": "You are a support agent for Acme. Be brief."',
    ]);
    expect(await page.locator("table.diff .diff-added .code").allTextContents()).toEqual([
      '  "system": "You are a support agent for Acme. Be brief and kind."',
    ]);
    await screenshot(page, "agent");
    // Its endpoints, one per protocol, at this platform's address; a snippet copies.
    const endpoints = page.locator(".agent-endpoints .endpoint");
    expect(await endpoints.evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-protocol")))).toEqual([
      "REST (OpenAPI)",
      "AI SDK chat",
      "MCP",
      "A2A",
      "AG-UI",
    ]);
    const agUi = page.locator('.endpoint[data-protocol="AG-UI"]');
    expect(await agUi.locator("code").allTextContents()).toEqual([`POST ${stack.platform.url}/v1/agents/${agentId}/ag-ui`]);
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
    await agUi.getByRole("button", { name: "Copy snippet" }).click();
    await agUi.getByRole("button", { name: "Copied" }).waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await page.evaluate(() => navigator.clipboard.readText())).toContain(`${stack.platform.url}/v1/agents/${agentId}/ag-ui`);

    // From the top of the page, the keyboard alone names the alias, picks version 1 and sets it.
    await page.getByRole("heading", { level: 1 }).focus();
    await tabUntilId(page, "alias-name");
    await page.keyboard.type("production");
    await tabUntilId(page, "alias-version");
    expect(await page.locator("#alias-version").inputValue()).toBe("2");
    await page.keyboard.press("ArrowDown");
    expect(await page.locator("#alias-version").inputValue()).toBe("1");
    await tabUntilFocused(page, "Set alias");
    await page.keyboard.press("Enter");
    await page.getByRole("status").filter({ hasText: "production now names version 1." }).waitFor({ timeout: UI_TIMEOUT_MS });
    await page.locator('[data-alias="production"]').waitFor({ timeout: UI_TIMEOUT_MS });
    expect((await admin.expect<AgentAnswer>(200, "GET", `/v1/agents/${agentId}`)).aliases).toEqual({ production: 1 });

    // A session from version 1: the console opens it, and it names the agent it came from.
    await page.getByLabel("Version to run").selectOption("1");
    await page.getByLabel("First message").fill("Where is order 1042?");
    await page.getByRole("button", { name: "Start session" }).click();
    await page.getByRole("heading", { level: 1, name: /^Session ses_/ }).waitFor({ timeout: UI_TIMEOUT_MS });
    const sessionId = decodeURIComponent(new URL(page.url()).hash.replace("#/sessions/", ""));
    const agentLink = page.locator(".page-head .subtitle").getByRole("link", { name: `${agentId}@1` });
    await agentLink.waitFor({ timeout: UI_TIMEOUT_MS });
    const session = await waitForFinal(admin, sessionId, RUN_TIMEOUT_MS);
    expect(session).toMatchObject({ status: "done", agent: { id: agentId, version: 1 } });
    await page.locator(".message-assistant .text", { hasText: "Order 1042 ships on Monday." }).waitFor({ timeout: UI_TIMEOUT_MS });
    // The sessions list links the agent too.
    await page.goto(`${stack.platform.url}/console#/sessions`);
    await page
      .locator(`[data-session="${sessionId}"]`)
      .getByRole("link", { name: `${agentId}@1` })
      .click({ timeout: UI_TIMEOUT_MS });
    await page.getByRole("heading", { level: 1, name: `Agent ${name}` }).waitFor({ timeout: UI_TIMEOUT_MS });

    // A reader sees the agent and is offered none of the changes.
    const reader = await signIn(
      await mint({ tenantId: tenant, subject: "reader", scopes: ["sessions:read"] }),
      DESKTOP,
      `#/agents/${agentId}`,
    );
    await reader.page.getByRole("heading", { level: 1, name: `Agent ${name}` }).waitFor({ timeout: UI_TIMEOUT_MS });
    await reader.page.locator('[data-alias="production"]').waitFor({ timeout: UI_TIMEOUT_MS });
    for (const control of ["Set alias", "Archive agent…", "Start session", "Delete alias production…"]) {
      expect(await reader.page.getByRole("button", { name: control }).count(), control).toBe(0);
    }
    // An agent of 21 versions shows the newest 20, and "More versions", pressed from the keyboard, reads the last one.
    const long = await admin.expect<AgentAnswer>(201, "POST", "/v1/agents", { name: uniqueName("long"), system: "v1" });
    for (let version = 2; version <= 21; version++) await admin.expect(200, "PATCH", `/v1/agents/${long.id}`, { system: `v${version}` });
    await reader.page.goto(`${stack.platform.url}/console#/agents/${long.id}`);
    const versionRows = reader.page.locator("table.versions tbody tr");
    await versionRows.nth(19).waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await versionRows.count()).toBe(20);
    await reader.page.getByRole("button", { name: "More versions" }).focus();
    await reader.page.keyboard.press("Enter");
    await reader.page.locator('table.versions tbody tr[data-version="1"]').waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await versionRows.count()).toBe(21);
    expect(await reader.page.getByRole("button", { name: /versions/ }).count()).toBe(0);
    expect(policyOrScriptProblems(reader)).toEqual([]);

    // Archival asks first; Escape keeps the agent as it is.
    await page.getByRole("button", { name: "Archive agent…" }).click();
    await page.getByRole("dialog").waitFor({ timeout: UI_TIMEOUT_MS });
    await page.keyboard.press("Escape");
    await page.getByRole("dialog").waitFor({ state: "hidden", timeout: UI_TIMEOUT_MS });
    expect((await admin.expect<AgentAnswer>(200, "GET", `/v1/agents/${agentId}`)).archived).toBe(false);
    await page.getByRole("button", { name: "Archive agent…" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Archive the agent" }).click();
    await page.locator(".page-head .subtitle .status", { hasText: "archived" }).waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await page.getByRole("button", { name: "Set alias" }).count()).toBe(0);
    expect((await admin.expect<AgentAnswer>(200, "GET", `/v1/agents/${agentId}`)).archived).toBe(true);
    expect((await admin.request("POST", "/v1/sessions", { agent: `${agentId}@1`, input: "again" })).status).toBe(409);
    expect(policyOrScriptProblems({ page, ...watched })).toEqual([]);
  });

  it("shows a session's sub-agents as a tree, each child linked and linking back to its parent", async () => {
    const childModel = stack.mock.model(uniqueName("child-model"));
    await childModel.script(say("Refund for order 7 approved."));
    const child = await admin.expect<{ id: string }>(201, "POST", "/v1/agents", { name: uniqueName("refunds"), model: childModel.key });
    const parentModel = stack.mock.model(uniqueName("parent-model"));
    await parentModel.script(
      { reply: { content: [{ type: "tool_use", id: "toolu_refund", name: "refunds", input: { input: "Refund order 7" } }] } },
      say("The refunds agent approved it."),
    );
    const parent = await admin.expect<{ id: string }>(201, "POST", "/v1/sessions", {
      input: "Please refund order 7.",
      model: parentModel.key,
      tools: [{ type: "agent", name: "refunds", description: "Handles refunds.", agent: child.id }],
    });
    expect((await waitForFinal(admin, parent.id, RUN_TIMEOUT_MS)).status).toBe("done");
    const children = await admin.expect<{ data: { id: string }[] }>(200, "GET", `/v1/sessions?parent_session_id=${parent.id}`);
    expect(children.data).toHaveLength(1);
    const childId = children.data[0]!.id;

    const { page, ...watched } = await signIn(adminToken, DESKTOP, `#/sessions/${parent.id}`);
    const tree = page.getByRole("region", { name: "Sub-agents" });
    await tree.waitFor({ timeout: UI_TIMEOUT_MS });
    const link = tree.getByRole("link", { name: childId });
    await link.waitFor({ timeout: UI_TIMEOUT_MS });
    await tree.locator("li", { hasText: childId }).locator(".status", { hasText: "done" }).waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await tree.getByRole("link", { name: `${child.id}@1` }).count()).toBe(1);
    await link.focus();
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { level: 1, name: `Session ${childId}` }).waitFor({ timeout: UI_TIMEOUT_MS });
    await page.locator(".page-head .subtitle").getByRole("link", { name: parent.id }).click();
    await page.getByRole("heading", { level: 1, name: `Session ${parent.id}` }).waitFor({ timeout: UI_TIMEOUT_MS });
    await screenshot(page, "subagents");
    expect(policyOrScriptProblems({ page, ...watched })).toEqual([]);
  });

  it("browses memory level by level, searches within a namespace, opens an item's versions and deletes it from the keyboard", async () => {
    // A tenant of its own, so the top level holds exactly the namespaces written here.
    const memoryTenant = uniqueName("memory");
    const owner = await stack.client(memoryTenant, "ops-carol", ADMIN_SCOPES);
    const put = (namespace: string[], key: string, value: Record<string, unknown>) =>
      owner.expect<{ version: number }>(200, "PUT", "/v1/memory/items", { namespace, key, value });
    await put(["users", "u_1"], "prefs", { language: "French", tone: "casual" });
    expect(
      (await put(["users", "u_1"], "prefs", { language: "French", tone: "formal", note: "Prefers a formal tone in every reply" })).version,
    ).toBe(2);
    await put(["users", "u_1"], "history", { summary: "Asked about the tone of an invoice reminder" });
    await put(["users", "u_1"], "address", { city: "Lyon" });
    // Better matches than some of u_1's, but outside the namespace searched.
    await put(["users", "u_2"], "prefs", { language: "German", tone: "formal", note: "A formal tone, always" });
    await put(["shared"], "faq", { answer: "A formal tone for every customer" });

    const { page, ...watched } = await signIn(await mint({ tenantId: memoryTenant, subject: "ops-carol", scopes: ADMIN_SCOPES }));
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Memory" }).click();
    await page.getByRole("heading", { level: 1, name: "Memory", exact: true }).waitFor({ timeout: UI_TIMEOUT_MS });
    const namespaces = page.locator("ul.namespaces li");
    await namespaces.nth(1).waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await namespaces.allTextContents()).toEqual(["shared", "users"]);
    await screenshot(page, "memory");

    // One level down from the keyboard, the next with a click; the breadcrumbs lead back up.
    await page.locator("ul.namespaces").getByRole("link", { name: "users" }).focus();
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { level: 1, name: "Memory: users" }).waitFor({ timeout: UI_TIMEOUT_MS });
    await namespaces.filter({ hasText: "u_2" }).waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await namespaces.allTextContents()).toEqual(["u_1", "u_2"]);
    await page.locator("ul.namespaces").getByRole("link", { name: "u_1" }).click();
    await page.getByRole("heading", { level: 1, name: "Memory: users.u_1" }).waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await page.getByRole("navigation", { name: "Namespace" }).getByRole("link").allTextContents()).toEqual([
      "All namespaces",
      "users",
      "u_1",
    ]);
    const keys = page.locator("table.memory-items tbody th");
    const keysAre = (wanted: string[], what: string) =>
      waitFor(async () => ((await keys.allTextContents()).join() === wanted.join() ? true : undefined), { timeoutMs: UI_TIMEOUT_MS, what });
    await keysAre(["address", "history", "prefs"], "u_1's items, newest first");

    // A search ranks the item with more of the words first, and stays within users.u_1.
    await page.getByLabel("Search", { exact: true }).fill("formal tone");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.getByRole("heading", { level: 2, name: "Best matches for “formal tone”" }).waitFor({ timeout: UI_TIMEOUT_MS });
    await keysAre(["prefs", "history"], "the matches in u_1, best first");
    const rows = page.locator("table.memory-items tbody tr");
    expect(await rows.locator('[data-label="Namespace"]').allTextContents()).toEqual(["users.u_1", "users.u_1"]);
    expect(await rows.first().locator('[data-label="Value"]').textContent()).toContain('"note":"Prefers a formal tone');
    expect(await rows.first().locator('[data-label="Created by"]').textContent()).toBe("ops-carol");
    // Few items make small scores (the platform rounds them to millionths), but never a worse one first.
    const [best, next] = (await rows.locator('[data-label="Score"]').allTextContents()).map(Number);
    expect(best).toBeGreaterThan(0);
    expect(best).toBeGreaterThanOrEqual(next!);
    await screenshot(page, "memory-search");

    // The item: its value whole, its version, and both versions, the first one opened.
    await rows.first().getByRole("link", { name: "prefs" }).click();
    await page.getByRole("heading", { level: 1, name: "Item prefs" }).waitFor({ timeout: UI_TIMEOUT_MS });
    await page
      .locator("pre.memory-value", { hasText: '"note": "Prefers a formal tone in every reply"' })
      .waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await page.locator(".facts dd").first().textContent()).toBe("2");
    const versions = page.locator(".memory-versions li");
    await versions.nth(1).waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await versions.evaluateAll((items) => items.map((item) => item.getAttribute("data-version")))).toEqual(["2", "1"]);
    const first = versions.filter({ has: page.locator("summary", { hasText: "Version 1" }) });
    await first.locator("summary").click();
    await first.locator("pre", { hasText: '"tone": "casual"' }).waitFor({ timeout: UI_TIMEOUT_MS });
    await screenshot(page, "memory-item");

    // Deleted from the keyboard alone: the question opens with its deletion focused.
    await page.getByRole("heading", { level: 1 }).focus();
    await tabUntilFocused(page, "Delete item…");
    await page.keyboard.press("Enter");
    await page.getByRole("dialog").waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe("Delete the item");
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { level: 1, name: "Memory: users.u_1" }).waitFor({ timeout: UI_TIMEOUT_MS });
    await keysAre(["address", "history"], "u_1's items without the deleted one");
    expect((await owner.request("GET", "/v1/memory/items?namespace=users.u_1&key=prefs")).status).toBe(404);
    expect((await owner.request("GET", "/v1/memory/items?namespace=users.u_2&key=prefs")).status).toBe(200);
    expect(policyOrScriptProblems({ page, ...watched })).toEqual([]);

    // A reader of memory opens an item and is offered no deletion; a token without memory:read is offered no Memory page.
    const reader = await signIn(
      await mint({ tenantId: memoryTenant, subject: "reader", scopes: ["sessions:read", "memory:read"] }),
      DESKTOP,
      "#/memory/users.u_1?key=history",
    );
    await reader.page.getByRole("heading", { level: 1, name: "Item history" }).waitFor({ timeout: UI_TIMEOUT_MS });
    await reader.page.locator("pre.memory-value", { hasText: "invoice reminder" }).waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await reader.page.getByRole("button", { name: /Delete/ }).count()).toBe(0);
    await reader.page.getByRole("navigation", { name: "Namespace" }).getByRole("link", { name: "u_1" }).click();
    await reader.page.getByText("read only (deleting needs memory:write)").waitFor({ timeout: UI_TIMEOUT_MS });
    expect(policyOrScriptProblems(reader)).toEqual([]);
    const sessionsOnly = await signIn(
      await mint({ tenantId: memoryTenant, subject: "viewer", scopes: ["sessions:read"] }),
      DESKTOP,
      "#/memory",
    );
    await sessionsOnly.page.getByText("Reading memory needs the scope memory:read.").waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await sessionsOnly.page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Memory" }).count()).toBe(0);
  });

  it("shows the tenant's tokens and cost per day stacked by model, and the usage by model, user, key and agent as tables", async () => {
    // Named like catalog models, so the built-in prices cost them.
    const models = [stack.mock.model(uniqueName("claude-sonnet-4-usage")), stack.mock.model(uniqueName("claude-haiku-4-usage"))];
    for (const [i, model] of models.entries()) {
      await model.script({
        reply: { content: [{ type: "text", text: "counted" }], usage: { input_tokens: 100 * (i + 1), output_tokens: 40 } },
      });
      const session = await admin.createSession({ input: "count me", model: model.key });
      await waitForStatus(admin, session.id, (x) => x.status === "done", RUN_TIMEOUT_MS);
    }
    const { page, ...watched } = await signIn(adminToken, DESKTOP, "#/usage?days=7");
    await page.getByRole("heading", { name: "Usage" }).waitFor({ timeout: UI_TIMEOUT_MS });
    const chart = page.getByRole("img", { name: "Tokens per day, stacked by model" });
    await chart.waitFor({ timeout: UI_TIMEOUT_MS });
    // Today's bar holds a segment per model; the legend names both.
    await waitFor(async () => ((await chart.locator("rect").count()) >= 2 ? true : undefined), {
      timeoutMs: UI_TIMEOUT_MS,
      what: "a segment per model",
    });
    for (const model of models) await page.locator(".legend li", { hasText: model.key }).first().waitFor({ timeout: UI_TIMEOUT_MS });
    await page.getByRole("img", { name: "Cost per day (USD), stacked by model" }).waitFor({ timeout: UI_TIMEOUT_MS });
    const byModel = page.getByRole("table", { name: "By model" });
    await byModel.getByRole("row", { name: new RegExp(models[1]!.key) }).waitFor({ timeout: UI_TIMEOUT_MS });
    // 200 in and 40 out at the built-in haiku-4 price ($1 and $5 a million): $0.0004.
    expect(await byModel.getByRole("row", { name: new RegExp(models[1]!.key) }).innerText()).toMatch(/240[\s\S]*\$0\.0004/);
    await page
      .getByRole("table", { name: "By user" })
      .getByRole("row", { name: /ops-alice/ })
      .waitFor({ timeout: UI_TIMEOUT_MS });
    await screenshot(page, "usage");
    expect(policyOrScriptProblems({ page, ...watched })).toEqual([]);
  });

  it("lets a platform admin edit a tenant's limits, suspend and unsuspend it, and pin a new tenant to a jurisdiction", async () => {
    const platformToken = await mint({ tenantId: uniqueName("ops"), subject: "root", scopes: ["platform:admin"] });
    const { page, ...watched } = await signIn(platformToken, DESKTOP, "#/tenants");
    await page.getByRole("heading", { name: "Tenants" }).waitFor({ timeout: UI_TIMEOUT_MS });
    await page.getByRole("link", { name: tenant, exact: true }).click({ timeout: UI_TIMEOUT_MS });
    await page.getByRole("button", { name: "Save limits" }).waitFor({ timeout: UI_TIMEOUT_MS });
    await page.locator(".tenant-sessions table").waitFor({ timeout: UI_TIMEOUT_MS });
    await screenshot(page, "tenant");

    await page.getByLabel("Concurrent runs").fill("7");
    await page.getByLabel("Tokens per day", { exact: true }).fill("unlimited");
    await page.getByRole("button", { name: "Save limits" }).click();
    await page.getByText("Saved.").waitFor({ timeout: UI_TIMEOUT_MS });
    const config = await admin.expect<{ limits: { max_concurrent_runs: number; max_tokens_per_day: number | null } }>(
      200,
      "GET",
      "/v1/tenant",
    );
    expect(config.limits).toMatchObject({ max_concurrent_runs: 7, max_tokens_per_day: null });

    await page.getByRole("button", { name: "Suspend tenant…" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Suspend" }).click();
    await page.locator(".subtitle .warn", { hasText: "suspended" }).waitFor({ timeout: UI_TIMEOUT_MS });
    expect((await admin.request("GET", "/v1/tenant")).status).toBe(403);
    await page.getByRole("button", { name: "Unsuspend tenant…" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Unsuspend" }).click();
    // Exactly the status line: the closed dialog stays in the page, and once the tenant is
    // reloaded its (hidden) text for the next suspension ends in "until it is unsuspended."
    await page.getByRole("status").filter({ hasText: "Unsuspended." }).waitFor({ timeout: UI_TIMEOUT_MS });
    expect((await admin.request("GET", "/v1/tenant")).status).toBe(200);

    // The tenant holds data: its jurisdiction is refused, and the platform's reason shown.
    await page.getByLabel("Jurisdiction", { exact: true }).selectOption("eu");
    await page.getByRole("button", { name: "Save jurisdiction" }).click();
    await page.locator(".residency .form-error", { hasText: "holds data" }).waitFor({ timeout: UI_TIMEOUT_MS });

    await page.goto(`${stack.platform.url}/console#/tenants`);
    await page.locator(`[data-tenant="${tenant}"]`).waitFor({ timeout: UI_TIMEOUT_MS });
    await screenshot(page, "tenants");
    // A tenant not used yet is pinned before its first request.
    const pinned = uniqueName("pinned");
    await page.getByLabel("Tenant id").fill(pinned);
    await page.getByLabel("Jurisdiction", { exact: true }).selectOption("fedramp");
    await page.getByRole("button", { name: "Set jurisdiction" }).click();
    await page
      .getByRole("status")
      .filter({ hasText: `Saved: ${pinned}.` })
      .waitFor({ timeout: UI_TIMEOUT_MS });
    const ops = await stack.client(uniqueName("ops"), "root", ["platform:admin"]);
    expect((await ops.expect<{ jurisdiction: string | null }>(200, "GET", `/v1/admin/tenants/${pinned}`)).jurisdiction).toBe("fedramp");
    // On its page, its new sessions are spread over three shards: the generation the platform answered is shown.
    await page.getByRole("link", { name: pinned }).click();
    await page.getByLabel("Shard count").fill("3");
    await page.getByRole("button", { name: "Save shards" }).click();
    await page.getByRole("status").filter({ hasText: "Saved: generation 1, 3 shards." }).waitFor({ timeout: UI_TIMEOUT_MS });
    expect((await ops.expect<{ shards: number }>(200, "GET", `/v1/admin/tenants/${pinned}`)).shards).toBe(3);
    expect(policyOrScriptProblems({ page, ...watched })).toEqual([]);
  });
});
