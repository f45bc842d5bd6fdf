/**
 * The audit logs and a tenant's deletion in the console, in a real headless Chromium against the
 * shared `wrangler dev`: a tenant admin's changes made in the console (an API key made and
 * revoked, the settings saved) are exactly the entries of its Audit log page, with who made them
 * and on what, filtered by action, their before and after opened and no secret in sight; a
 * platform admin reads one tenant's entries in the platform's log, and deletes a tenant from its
 * page, sees the deletion finish, the tenant leave the list and its API key refused. Every page is
 * checked for policy violations and script errors; screenshots go to test-results/console/ (the
 * tenant's audit log is docs/console-audit-log.png).
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApiClient } from "./support/api-client";
import { DESKTOP, launchChromium, openPage, screenshot, type WatchedPage } from "./support/browser";
import { type SharedStack, sharedStack, uniqueName } from "./support/stack";
import { type Identity, tokenMinter } from "./support/tokens";
import { waitFor } from "./support/wait";

const UI_TIMEOUT_MS = 20_000;
/** A deletion of a few sessions on a loaded machine. */
const DELETION_TIMEOUT_MS = 40_000;
/** Sessions of the tenant deleted from the console: a few deletion passes (25 each), so its progress shows. */
const DOOMED_SESSIONS = 60;

function policyOrScriptProblems(watched: WatchedPage): string[] {
  return watched.problems.filter((line) => /content.security.policy|csp violation|trusted ?type|page error/i.test(line));
}

describe("the console's audit logs and tenant deletion in Chromium", () => {
  let stack: SharedStack;
  let browser: Browser;
  let mint: (identity: Identity) => Promise<string>;
  let tenant: string;
  let admin: ApiClient;
  const pages: WatchedPage[] = [];

  beforeAll(async () => {
    [stack, browser] = await Promise.all([sharedStack(), launchChromium()]);
    mint = await tokenMinter(stack.platform.signingKey);
    tenant = uniqueName("console-audit");
    admin = await stack.client(tenant, "ops-carol", ["tenant:admin"]);
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.dispose();
  });

  /** Opens the console at `hash` and signs in with `credential`. */
  async function signIn(credential: string, hash: string): Promise<WatchedPage> {
    const watched = await openPage(browser, DESKTOP);
    pages.push(watched);
    await watched.page.goto(`${stack.platform.url}/console${hash}`);
    await watched.page.getByLabel("API key or token").fill(credential);
    await watched.page.getByRole("button", { name: "Sign in" }).click();
    await watched.page.getByRole("heading", { level: 1 }).filter({ hasNotText: "console" }).waitFor({ timeout: UI_TIMEOUT_MS });
    return watched;
  }

  async function go(page: Page, hash: string, heading: string): Promise<void> {
    await page.evaluate((to) => (window.location.hash = to), hash);
    await page.getByRole("heading", { level: 1, name: heading, exact: true }).waitFor({ timeout: UI_TIMEOUT_MS });
  }

  /** The entries the page shows, top to bottom, once there are `count` of them. */
  async function shownActions(page: Page, count: number): Promise<string[]> {
    const rows = page.locator("tr[data-entry]");
    return waitFor(
      async () => {
        const actions = await rows.evaluateAll((found) => found.map((row) => row.getAttribute("data-action") ?? ""));
        return actions.length === count ? actions : undefined;
      },
      { timeoutMs: UI_TIMEOUT_MS, what: `${count} audit entries` },
    );
  }

  it("shows a tenant admin exactly the changes made, filters them by action, and opens the settings' before and after", async () => {
    const watched = await signIn(await mint({ tenantId: tenant, subject: "ops-carol", scopes: ["tenant:admin"] }), "#/api-keys");
    const { page } = watched;
    await page.getByRole("heading", { level: 1, name: "API keys" }).waitFor({ timeout: UI_TIMEOUT_MS });

    // A key made and revoked, and the settings saved, all in the console.
    await page.getByLabel("Name", { exact: true }).fill("audit probe");
    await page.getByRole("button", { name: "Create key" }).click();
    const secret = await page.getByLabel("Secret", { exact: true }).inputValue();
    expect(secret).toMatch(/^ak_/);
    await page.getByRole("button", { name: "I have stored it" }).click();
    const keyRow = page.locator("tr", { hasText: "audit probe" });
    await keyRow.getByRole("button", { name: "Revoke audit probe" }).click({ timeout: UI_TIMEOUT_MS });
    await page.getByRole("dialog").getByRole("button", { name: "Revoke" }).click();
    await keyRow.getByText("revoked").waitFor({ timeout: UI_TIMEOUT_MS });
    const [key] = (await admin.expect<{ data: { key_id: string; name: string }[] }>(200, "GET", "/v1/api-keys")).data;
    expect(key!.name).toBe("audit probe");

    await go(page, "#/settings", "Settings");
    await page.getByLabel("Allowed origins, one per line").fill("https://hooks.example.com");
    await page.getByRole("button", { name: "Save origins" }).click();
    await page.getByRole("status").getByText("Saved.").waitFor({ timeout: UI_TIMEOUT_MS });

    // The navigation leads to the log: the three changes, newest first, by whom, how and on what.
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Audit log", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Audit log", exact: true }).waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await shownActions(page, 3)).toEqual(["settings.updated", "api_key.revoked", "api_key.created"]);
    const row = (action: string) => page.locator(`tr[data-action="${action}"]`);
    for (const action of ["settings.updated", "api_key.revoked", "api_key.created"]) {
      expect(await row(action).locator('[data-label="Actor"]').innerText()).toMatch(/^ops-carol\s+via token$/);
      expect(await row(action).locator('[data-label="Request"]').innerText()).toMatch(/\S{8,}/);
    }
    for (const action of ["api_key.revoked", "api_key.created"]) {
      expect((await row(action).locator('[data-label="Target"]').innerText()).split(/\s+/)).toEqual(["api_key", key!.key_id]);
    }
    expect((await row("settings.updated").locator('[data-label="Target"]').innerText()).split(/\s+/)).toEqual(["tenant", tenant]);

    // The settings' change opens in place: before and after, and never a secret.
    await row("settings.updated").getByText("Before and after").click();
    const details = row("settings.updated").locator("details pre");
    await details.first().waitFor({ state: "visible", timeout: UI_TIMEOUT_MS });
    const [before, after] = await details.allInnerTexts();
    expect(JSON.parse(before!)).toEqual({ webhook_origins: null, session_retention_days: null, traces: null });
    expect(JSON.parse(after!)).toEqual({ webhook_origins: ["https://hooks.example.com"], session_retention_days: null, traces: null });
    const { secret: signingSecret } = await admin.expect<{ secret: string }>(200, "GET", "/v1/tenant/webhook-secret");
    const shown = await page.locator("main").innerText();
    expect(shown).not.toContain(secret.split(".")[2]!);
    expect(shown).not.toContain(signingSecret);
    await screenshot(page, "audit-log");

    // One action: only its entry, and the address keeps the filter.
    await page.getByLabel("Action", { exact: true }).selectOption("api_key.revoked");
    await page.getByRole("button", { name: "Filter" }).click();
    expect(await shownActions(page, 1)).toEqual(["api_key.revoked"]);
    expect(await page.evaluate(() => window.location.hash)).toBe("#/audit-log?action=api_key.revoked");
    expect(
      watched.responses.some(
        (line) => line.startsWith("GET /v1/tenant/audit-log?") && line.includes("action=api_key.revoked") && line.endsWith(" 200"),
      ),
    ).toBe(true);
    // A reload keeps it.
    await page.reload();
    await page.getByRole("heading", { level: 1, name: "Audit log", exact: true }).waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await shownActions(page, 1)).toEqual(["api_key.revoked"]);
    expect(await page.getByLabel("Action", { exact: true }).inputValue()).toBe("api_key.revoked");
    expect(policyOrScriptProblems(watched)).toEqual([]);
  });

  it("shows a platform admin one tenant's entries in the platform's log", async () => {
    const watched = await signIn(
      await mint({ tenantId: uniqueName("ops"), subject: "root-audit", scopes: ["platform:admin"] }),
      "#/tenants",
    );
    const { page } = watched;
    await page.getByRole("heading", { level: 1, name: "Tenants" }).waitFor({ timeout: UI_TIMEOUT_MS });
    await page.getByRole("link", { name: "Platform audit log" }).click();
    await page.getByRole("heading", { level: 1, name: "Platform audit log" }).waitFor({ timeout: UI_TIMEOUT_MS });
    await page.getByLabel("Tenant", { exact: true }).fill(tenant);
    await page.getByRole("button", { name: "Filter" }).click();
    expect(await shownActions(page, 3)).toEqual(["settings.updated", "api_key.revoked", "api_key.created"]);
    expect(await page.locator('tr[data-entry] [data-label="Tenant"]').allInnerTexts()).toEqual([tenant, tenant, tenant]);
    expect(await page.evaluate(() => decodeURIComponent(window.location.hash))).toBe(`#/admin/audit-log?tenant=${tenant}`);
    await page.getByLabel("Action", { exact: true }).selectOption("settings.updated");
    await page.getByRole("button", { name: "Filter" }).click();
    expect(await shownActions(page, 1)).toEqual(["settings.updated"]);
    await screenshot(page, "platform-audit-log");
    expect(policyOrScriptProblems(watched)).toEqual([]);
  });

  it("lets a platform admin delete a tenant from its page: confirmed, finished, gone from the list, its key refused", async () => {
    // First in the list of tenants (sorted by id), whatever other files made.
    const doomed = uniqueName("0-doomed");
    const owner = await stack.client(doomed, "owner", ["tenant:admin"]);
    const { key } = await owner.expect<{ key: string }>(201, "POST", "/v1/api-keys", {
      name: "ci",
      scopes: ["sessions:read", "sessions:write"],
    });
    const created = await Promise.all(
      Array.from({ length: DOOMED_SESSIONS }, () =>
        fetch(`${stack.platform.url}/v1/sessions`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: "{}",
        }).then((res) => res.status),
      ),
    );
    expect(created).toEqual(created.map(() => 201));

    const watched = await signIn(
      await mint({ tenantId: uniqueName("ops"), subject: "root-deleter", scopes: ["platform:admin"] }),
      "#/tenants",
    );
    const { page } = watched;
    await page.locator(`[data-tenant="${doomed}"]`).getByRole("link", { name: doomed }).click({ timeout: UI_TIMEOUT_MS });
    await page.getByRole("heading", { level: 1, name: `Tenant ${doomed}` }).waitFor({ timeout: UI_TIMEOUT_MS });

    // Asked first; kept as it is, nothing happens.
    await page.getByRole("button", { name: "Delete tenant…" }).click();
    const dialog = page.getByRole("dialog", { name: `Delete tenant ${doomed}?` });
    await dialog.waitFor({ timeout: UI_TIMEOUT_MS });
    await dialog.getByRole("button", { name: "Keep as it is" }).click();
    await dialog.waitFor({ state: "hidden" });
    expect((await fetch(`${stack.platform.url}/v1/sessions`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);

    // Every text the deletion's status line shows, in order.
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { deletionSeen: string[] }).deletionSeen = seen;
      new MutationObserver(() => {
        for (const status of Array.from(document.querySelectorAll(".page-head .result[role=status]"))) {
          const text = status.textContent ?? "";
          if (seen.at(-1) !== text) seen.push(text);
        }
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    await page.getByRole("button", { name: "Delete tenant…" }).click();
    await dialog.getByRole("button", { name: "Delete for good" }).click();
    await page
      .getByRole("status")
      .filter({ hasText: /^Deleted .+: nothing of the tenant is left\.$/ })
      .waitFor({ timeout: DELETION_TIMEOUT_MS });
    expect(await page.getByRole("button", { name: "Delete tenant…" }).count()).toBe(0);
    // Its progress first (sessions still to erase), then finished.
    const seen = await page.evaluate(() => (window as unknown as { deletionSeen: string[] }).deletionSeen);
    expect(seen[0], seen.join(" | ")).toMatch(/^Deleting since .+: \d+ sessions left\.$/);
    expect(seen.at(-1)).toMatch(/^Deleted .+: nothing of the tenant is left\.$/);
    await screenshot(page, "tenant-deleted");

    // Gone from the list (read afresh), and its key refused.
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Tenants" }).click();
    await page.locator("tr[data-tenant]").first().waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await page.locator(`[data-tenant="${doomed}"]`).count()).toBe(0);
    expect((await fetch(`${stack.platform.url}/v1/sessions`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(401);

    // The platform's log still names who deleted it, reached from the tenant's page.
    await go(page, `#/tenants/${encodeURIComponent(doomed)}`, `Tenant ${doomed}`);
    await page.getByRole("link", { name: "Tenant's audit log" }).click();
    await page.getByRole("heading", { level: 1, name: "Platform audit log" }).waitFor({ timeout: UI_TIMEOUT_MS });
    await page.getByLabel("Action", { exact: true }).selectOption("tenant.deleted");
    await page.getByRole("button", { name: "Filter" }).click();
    expect(await shownActions(page, 1)).toEqual(["tenant.deleted"]);
    expect(await page.locator('tr[data-entry] [data-label="Actor"]').innerText()).toMatch(/^root-deleter\s+via token$/);
    expect(policyOrScriptProblems(watched)).toEqual([]);
  });
});
