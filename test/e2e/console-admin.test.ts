/**
 * The console's pages for the rest of the API, in a real headless Chromium against the shared
 * `wrangler dev`: sessions named by their first input and found by id and by metadata, created
 * by a key shown by its name, a session's setup, a session started from the console; API keys
 * (the secret shown once and working, a revoke from the keyboard), a status webhook's deliveries
 * and a redelivery, a schedule's firings with pause, resume and delete, and the tenant settings.
 * Every page is checked for policy violations and script errors; screenshots go to
 * test-results/console/.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApiClient } from "./support/api-client";
import { DESKTOP, launchChromium, openPage, screenshot, type WatchedPage } from "./support/browser";
import { type SharedStack, sharedStack, uniqueName } from "./support/stack";
import { tokenMinter } from "./support/tokens";
import { waitFor } from "./support/wait";

const UI_TIMEOUT_MS = 20_000;
/** A run and its delivery on a loaded machine. */
const RUN_TIMEOUT_MS = 40_000;

interface Firing {
  session_id: string | null;
  outcome: string;
}

function policyOrScriptProblems(watched: WatchedPage): string[] {
  return watched.problems.filter((line) => /content.security.policy|csp violation|trusted ?type|page error/i.test(line));
}

describe("the console's admin pages in Chromium", () => {
  let stack: SharedStack;
  let browser: Browser;
  let tenant: string;
  let admin: ApiClient;
  let watched: WatchedPage;
  let page: Page;

  beforeAll(async () => {
    [stack, browser] = await Promise.all([sharedStack(), launchChromium()]);
    const mint = await tokenMinter(stack.platform.signingKey);
    tenant = uniqueName("console-admin");
    admin = await stack.client(tenant, "ops-alice", ["tenant:admin"]);
    watched = await openPage(browser, DESKTOP);
    page = watched.page;
    await page.goto(`${stack.platform.url}/console`);
    await page.getByLabel("API key or token").fill(await mint({ tenantId: tenant, subject: "ops-alice", scopes: ["tenant:admin"] }));
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { level: 1, name: "Sessions" }).waitFor({ timeout: UI_TIMEOUT_MS });
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.dispose();
  });

  /** Opens a view by its address, as a bookmark would. */
  async function go(hash: string, heading: string | RegExp): Promise<void> {
    await page.evaluate((to) => (window.location.hash = to), hash);
    await page.getByRole("heading", { level: 1, name: heading }).waitFor({ timeout: UI_TIMEOUT_MS });
  }

  it("names sessions by their first input and their key, finds them by id and metadata, and shows a session's setup", async () => {
    const key = await admin.expect<{ key: string; key_id: string }>(201, "POST", "/v1/api-keys", {
      name: "billing backend",
      scopes: ["sessions:write", "sessions:read"],
    });
    const created = await fetch(`${stack.platform.url}/v1/sessions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key.key}`, "content-type": "application/json" },
      body: JSON.stringify({
        input: "Refund order ord_100200 and tell\nthe customer",
        system: "You are the billing assistant.",
        tools: [{ type: "builtin", name: "get_time", requires_approval: true }],
        metadata: { ticket: "T-77", shop: "eu" },
      }),
    });
    expect(created.status).toBe(201);
    const session = (await created.json()) as { id: string };
    const other = await admin.createSession({ metadata: { ticket: "T-78" } } as never);

    const row = page.locator(`[data-session="${session.id}"]`);
    await row.getByText("Refund order ord_100200 and tell the customer").waitFor({ timeout: UI_TIMEOUT_MS });
    await row.getByText("billing backend").waitFor({ timeout: UI_TIMEOUT_MS });
    await page.locator(`[data-session="${other.id}"]`).getByText("No input yet").waitFor({ timeout: UI_TIMEOUT_MS });

    // Metadata words list the sessions holding them, and the address keeps the search.
    await page.getByLabel("Find", { exact: true }).fill("ticket=T-77 shop=eu");
    await page.getByLabel("Find", { exact: true }).press("Enter");
    await page.locator(`[data-session="${other.id}"]`).waitFor({ state: "detached", timeout: UI_TIMEOUT_MS });
    await row.waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await page.evaluate(() => decodeURIComponent(window.location.hash))).toContain("metadata[ticket]=T-77");
    expect(
      watched.responses.some((line) => line.startsWith("GET /v1/sessions?") && decodeURIComponent(line).includes("metadata[ticket]=T-77")),
    ).toBe(true);
    await screenshot(page, "sessions-search");

    // An id opens the session, with its setup beside the conversation.
    await page.getByLabel("Find", { exact: true }).fill(session.id);
    await page.getByLabel("Find", { exact: true }).press("Enter");
    await page.getByRole("heading", { level: 1, name: `Session ${session.id}` }).waitFor({ timeout: UI_TIMEOUT_MS });
    const setup = page.locator(".session-setup");
    await setup.getByText("You are the billing assistant.").waitFor({ timeout: UI_TIMEOUT_MS });
    await setup.locator(".metadata").getByText("T-77").waitFor();
    await setup.locator(".tools").getByText("needs approval").waitFor();
    await page.locator(".page-head .subtitle").getByText("billing backend").waitFor();
    await screenshot(page, "session-setup");
    await admin.request("POST", `/v1/sessions/${session.id}/cancel`);
    await admin.request("POST", `/v1/sessions/${other.id}/cancel`);
  });

  it("starts a session from the console, with metadata and a built-in tool", async () => {
    await go("#/sessions", "Sessions");
    await page.getByRole("link", { name: "New session" }).click();
    await page.getByRole("heading", { level: 1, name: "New session" }).waitFor({ timeout: UI_TIMEOUT_MS });
    await page.getByLabel("Metadata (optional), one key=value per line").fill("ticket T-9");
    await page.getByLabel("First message").fill("What time is it in Lisbon?");
    await page.getByLabel("get_time").check();
    await screenshot(page, "new-session");
    // Ctrl+Enter sends from the message box; the bad metadata line is named and nothing is made.
    await page.getByLabel("First message").press("Control+Enter");
    await page.getByRole("alert").getByText("“ticket T-9” is not key=value").waitFor({ timeout: UI_TIMEOUT_MS });
    await page.getByLabel("Metadata (optional), one key=value per line").fill("ticket=T-9");
    await page.getByLabel("First message").press("Control+Enter");
    await page.getByRole("heading", { level: 1, name: /^Session ses_/ }).waitFor({ timeout: UI_TIMEOUT_MS });
    await page.locator(".session-title").getByText("What time is it in Lisbon?").waitFor({ timeout: UI_TIMEOUT_MS });
    const id = (await page.getByRole("heading", { level: 1 }).textContent())!.replace("Session ", "");
    const made = await admin.expect<{ metadata: Record<string, string>; tools: { name: string }[]; created_by: string }>(
      200,
      "GET",
      `/v1/sessions/${id}`,
    );
    expect(made).toMatchObject({ metadata: { ticket: "T-9" }, tools: [{ name: "get_time" }], created_by: "ops-alice" });
  });

  it("makes an API key whose secret is shown once and works, and revokes it from the keyboard", async () => {
    await go("#/api-keys", "API keys");
    await page.getByLabel("Name").fill("nightly export");
    await page.getByLabel("sessions:write").uncheck();
    await page.getByLabel("Name").press("Enter");
    const secretField = page.getByLabel("Secret");
    await secretField.waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("new-key-secret");
    const secret = await secretField.inputValue();
    expect(secret).toMatch(/^ak_/);
    await screenshot(page, "api-key-created");
    const exchanged = await fetch(`${stack.platform.url}/v1/auth/token`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(exchanged.status).toBe(200);
    await page.getByRole("button", { name: "I have stored it" }).click();
    await secretField.waitFor({ state: "detached" });
    expect(await page.getByText(secret).count()).toBe(0);

    const row = page.locator("tr", { hasText: "nightly export" });
    await row.getByText("sessions:read").waitFor({ timeout: UI_TIMEOUT_MS });
    await screenshot(page, "api-keys");
    const revoke = row.getByRole("button", { name: "Revoke nightly export" });
    await revoke.focus();
    await page.keyboard.press("Enter");
    await page.getByRole("dialog").waitFor();
    await page.keyboard.press("Escape");
    await page.getByRole("dialog").waitFor({ state: "hidden" });
    expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("Revoke nightly export");
    await page.keyboard.press("Enter");
    await page.getByRole("dialog").getByRole("button", { name: "Revoke" }).press("Enter");
    await row.getByText("revoked").waitFor({ timeout: UI_TIMEOUT_MS });
    const refused = await fetch(`${stack.platform.url}/v1/auth/token`, { method: "POST", headers: { authorization: `Bearer ${secret}` } });
    expect(refused.status).toBe(401);
  });

  it("adds a status webhook, shows its deliveries, redelivers one and deletes the endpoint", async () => {
    const hook = stack.mock.hook(uniqueName("status-hook"));
    await go("#/webhooks", "Webhooks");
    await page.getByLabel("URL").fill(hook.url);
    await page.getByLabel("Description (optional)").fill("on-call pager");
    await page.getByRole("button", { name: "Add endpoint" }).click();
    const link = page.getByRole("link", { name: hook.url });
    await link.waitFor({ timeout: UI_TIMEOUT_MS });

    // A session that ends done is delivered to it.
    const model = stack.mock.model(uniqueName("model"));
    await model.script({ reply: { content: [{ type: "text", text: "done" }] } });
    const session = await admin.createSession({ input: "hello", model: model.key });
    await waitFor(
      async () => ((await admin.expect<{ status: string }>(200, "GET", `/v1/sessions/${session.id}`)).status === "done" ? true : undefined),
      {
        timeoutMs: RUN_TIMEOUT_MS,
        intervalMs: 250,
        what: "the session done",
      },
    );
    await link.click();
    await page.getByRole("heading", { level: 1, name: "Webhook deliveries" }).waitFor({ timeout: UI_TIMEOUT_MS });
    const delivered = page.locator("tr", { hasText: session.id }).filter({ hasText: "succeeded" });
    const endpointId = (await page.evaluate(() => window.location.hash)).split("/").at(-1)!;
    const log = () => admin.request("GET", `/v1/tenant/webhooks/${endpointId}/deliveries`).then((res) => res.text);
    await waitFor(
      async () => {
        if ((await delivered.count()) > 0) return true;
        // Not there yet: read the log again (the next look comes a second later, once it is read).
        await page.getByRole("button", { name: "Refresh" }).click();
        return undefined;
      },
      { timeoutMs: RUN_TIMEOUT_MS, intervalMs: 1_000, what: "the session's delivery, succeeded" },
    ).catch(async (error: Error) => {
      await screenshot(page, "webhook-deliveries-failed");
      throw new Error(
        `${error.message}; the delivery log: ${await log()}; the page: ${await page.locator("main").innerText()}; ${watched.responses.slice(-5).join(" | ")}`,
      );
    });
    await delivered
      .first()
      .getByRole("button", { name: /^Redeliver session\.done/ })
      .click();
    await page
      .getByRole("status")
      .getByText(/^Redelivery dlv_\S+ queued\.$/)
      .waitFor({ timeout: UI_TIMEOUT_MS });
    await page.locator("tr", { hasText: "redelivery of" }).waitFor({ timeout: UI_TIMEOUT_MS });
    await screenshot(page, "webhook-deliveries");

    await go("#/webhooks", "Webhooks");
    await page.getByRole("button", { name: `Delete the endpoint ${hook.url}` }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete" }).click();
    await link.waitFor({ state: "detached", timeout: UI_TIMEOUT_MS });
    expect((await admin.expect<{ data: unknown[] }>(200, "GET", "/v1/tenant/webhooks")).data).toEqual([]);
  });

  it("shows a schedule's firings, pauses and resumes it, and deletes it", async () => {
    const schedule = await admin.expect<{ id: string }>(201, "POST", "/v1/schedules", {
      cron: "*/2 * * * * *",
      session: { input: "Check the failed orders" },
    });
    const fired = await waitFor(
      async () => {
        const { data } = await admin.expect<{ data: Firing[] }>(200, "GET", `/v1/schedules/${schedule.id}/firings`);
        return data.find((firing) => firing.session_id !== null);
      },
      { timeoutMs: UI_TIMEOUT_MS, what: "a firing with its session" },
    );
    await go(`#/schedules/${schedule.id}`, `Schedule ${schedule.id}`);
    await page.getByRole("link", { name: fired.session_id! }).waitFor({ timeout: UI_TIMEOUT_MS });
    await page.getByText("New session: Check the failed orders").first().waitFor();
    await screenshot(page, "schedule");

    await page.getByRole("button", { name: `Pause ${schedule.id}` }).click();
    await page.getByRole("button", { name: `Resume ${schedule.id}` }).waitFor({ timeout: UI_TIMEOUT_MS });
    expect((await admin.expect<{ paused: boolean }>(200, "GET", `/v1/schedules/${schedule.id}`)).paused).toBe(true);
    await page.getByRole("button", { name: `Resume ${schedule.id}` }).click();
    await page.getByRole("button", { name: `Pause ${schedule.id}` }).waitFor({ timeout: UI_TIMEOUT_MS });
    expect((await admin.expect<{ paused: boolean }>(200, "GET", `/v1/schedules/${schedule.id}`)).paused).toBe(false);

    await page.getByRole("button", { name: `Delete ${schedule.id}` }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete" }).click();
    await page.getByRole("heading", { level: 1, name: "Schedules" }).waitFor({ timeout: UI_TIMEOUT_MS });
    expect((await admin.request("GET", `/v1/schedules/${schedule.id}`)).status).toBe(404);
  });

  it("saves the tenant's webhook origins and shows the signing secret", async () => {
    await go("#/settings", "Settings");
    await page.getByLabel("Allowed origins, one per line").fill("https://hooks.example.com\nhttps://pager.example.com");
    await page.getByRole("button", { name: "Save origins" }).click();
    await page.getByRole("status").getByText("Saved.").waitFor({ timeout: UI_TIMEOUT_MS });
    const settings = await admin.expect<{ webhook_origins: string[] | null }>(200, "GET", "/v1/tenant/settings");
    expect(settings.webhook_origins).toEqual(["https://hooks.example.com", "https://pager.example.com"]);
    await page.getByRole("button", { name: "Show secret" }).click();
    const { secret } = await admin.expect<{ secret: string }>(200, "GET", "/v1/tenant/webhook-secret");
    await page.locator("code.secret").getByText(secret).waitFor({ timeout: UI_TIMEOUT_MS });
    await screenshot(page, "settings");
    expect(policyOrScriptProblems(watched)).toEqual([]);
  });

  it("saves the tenant's redaction, keeping its other settings", async () => {
    await go("#/settings", "Settings");
    // The form's own messages: another form of the page (webhook origins) may still show its "Saved.".
    const form = page.getByRole("form", { name: "Redaction" });
    await form.getByRole("checkbox", { name: "Email addresses" }).check();
    await form.getByRole("button", { name: "Save redaction" }).click();
    await form.getByRole("alert").getByText("Choose where to redact").waitFor({ timeout: UI_TIMEOUT_MS });
    await form.getByRole("checkbox", { name: "Tool output" }).check();
    await form.getByRole("button", { name: "Save redaction" }).click();
    await form.getByRole("status").getByText("Saved.").waitFor({ timeout: UI_TIMEOUT_MS });
    const settings = await admin.expect<{ webhook_origins: string[] | null; redaction: unknown }>(200, "GET", "/v1/tenant/settings");
    expect(settings.redaction).toEqual({ detectors: ["email"], apply_to: ["tool_output"] });
    expect(settings.webhook_origins).toEqual(["https://hooks.example.com", "https://pager.example.com"]);
    expect(await form.getByRole("checkbox", { name: "Email addresses" }).isChecked()).toBe(true);
    expect(policyOrScriptProblems(watched)).toEqual([]);
  });

  it("validates the tool policy on save, shows the validator's message, and checks a call by it", async () => {
    await go("#/settings", "Settings");
    const panel = page.getByRole("region", { name: "Tool policy" });
    const editor = panel.getByLabel(/Cedar policy/);
    await editor.fill("permit (principal, action, resource) when { context.nope };");
    await panel.getByRole("button", { name: "Validate and save" }).click();
    await panel
      .getByRole("alert")
      .getByText(/body\.cedar: .*nope/)
      .waitFor({ timeout: UI_TIMEOUT_MS });
    expect((await admin.request("GET", "/v1/tenant/policy")).status).toBe(404);
    await editor.fill('@id("no-fetch") forbid (principal, action, resource == Tool::"http_fetch");');
    await panel.getByRole("button", { name: "Validate and save" }).click();
    await panel.getByRole("status").getByText("Saved.").waitFor({ timeout: UI_TIMEOUT_MS });
    expect((await admin.expect<{ version: number }>(200, "GET", "/v1/tenant/policy")).version).toBe(1);
    await panel.getByRole("button", { name: "Check" }).click();
    await panel.getByRole("status").getByText("deny by tenant.no-fetch").waitFor({ timeout: UI_TIMEOUT_MS });
    expect(policyOrScriptProblems(watched)).toEqual([]);
  });
});
