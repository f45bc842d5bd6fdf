/**
 * `/docs` in a real headless Chromium, clicked through as a reader would: every group of the
 * sidebar, an operation, its request client (sending a request), the search. Every request the page makes to
 * another origin is blocked and recorded, and so is every Content-Security-Policy violation; the
 * test fails on any of them, and on any control or link that offers another origin (Scalar's
 * "Ask AI", MCP, deploy or share features, its proxy, its dashboard).
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, openPage, screenshot, type WatchedPage } from "./support/browser";
import { type SharedStack, sharedStack } from "./support/stack";

const UI_TIMEOUT_MS = 20_000;
/** The first render parses a 4 MiB bundle and lays out the whole document: slow on a loaded machine. */
const FIRST_RENDER_TIMEOUT_MS = 90_000;

describe("/docs in Chromium", () => {
  let stack: SharedStack;
  let browser: Browser;
  let watched: WatchedPage;
  let page: Page;
  /** Every request to another origin, blocked before it leaves. */
  const outside: string[] = [];

  beforeAll(async () => {
    stack = await sharedStack();
    browser = await launchChromium();
    watched = await openPage(browser);
    page = watched.page;
    const origin = new URL(stack.platform.url).origin;
    await watched.context.route(
      (url) => url.origin !== origin && url.protocol !== "data:" && url.protocol !== "blob:",
      async (route) => {
        outside.push(`${route.request().method()} ${route.request().url()}`);
        await route.abort("blockedbyclient");
      },
    );
    await page.goto(`${stack.platform.url}/docs`);
    await page.getByRole("link", { name: "Introduction" }).first().waitFor({ timeout: FIRST_RENDER_TIMEOUT_MS });
  });
  afterAll(async () => {
    await watched?.close();
    await browser?.close();
    await stack?.dispose();
  });

  /**
   * What the page shows that names another origin: links, and controls of Scalar's hosted
   * features. Two plain links, which call nothing and carry nothing of the document, are
   * allowed: the "Powered by Scalar" credit (in the page and in the request client), and the
   * request client's link from a response's status to MDN's page on that status code.
   */
  async function offers(): Promise<string[]> {
    return page.evaluate((origin) => {
      const found: string[] = [];
      for (const link of Array.from(document.querySelectorAll<HTMLAnchorElement>("a[href]"))) {
        const url = new URL(link.href, location.href);
        if (url.href === "https://www.scalar.com/" && /^powered by scalar/i.test(link.textContent?.trim() ?? "")) continue;
        if (/^https:\/\/developer\.mozilla\.org\/en-US\/docs\/Web\/HTTP\/Status\/\d{3}$/.test(url.href) && url.search === "") continue;
        if ((url.protocol === "http:" || url.protocol === "https:") && url.origin !== origin)
          found.push(`link ${link.textContent?.trim()} -> ${url.href}`);
      }
      for (const control of Array.from(document.querySelectorAll<HTMLElement>("button, [role=button], a"))) {
        // By their own labels: the API's operations (say, "Register a status-webhook endpoint") are not offers.
        const label = `${control.textContent ?? ""} ${control.getAttribute("aria-label") ?? ""}`.trim();
        if (/^(ask ai|generate mcp|connect mcp|deploy|share|developer tools|scalar (cloud|registry|dashboard))\b/i.test(label))
          found.push(`control ${label}`);
      }
      return found;
    }, new URL(stack.platform.url).origin);
  }

  it("renders the reference from this origin alone", async () => {
    expect(await offers()).toEqual([]);
    await screenshot(page, "docs-reference");
    expect(outside).toEqual([]);
  });

  it("opens every group of the sidebar, an operation, its request client (and sends), and the search, calling no other origin", async () => {
    // Each click turns one "Open Group" into "Close Group": the first closed one, until none is left.
    const closed = page.locator("button", { hasText: /^Open Group - / });
    for (let opened = 0; opened < 40 && (await closed.count()) > 0; opened++) await closed.first().click();
    expect(await closed.count()).toBe(0);
    await page.locator("a", { hasText: "Create a session" }).first().click({ timeout: UI_TIMEOUT_MS });

    // The in-page request client, which sends to this origin.
    await page.locator("button", { hasText: "Test Request" }).first().click({ timeout: UI_TIMEOUT_MS });
    await page.getByRole("button", { name: /send/i }).first().click({ timeout: UI_TIMEOUT_MS });
    expect(outside).toEqual([]);
    expect(await offers()).toEqual([]);
    await screenshot(page, "docs-client");
    await page.keyboard.press("Escape");

    // The search, from the keyboard.
    await page.keyboard.press("Control+k");
    await page.keyboard.type("tool output");
    await page
      .getByText(/Submit a client tool's output/i)
      .first()
      .waitFor({ timeout: UI_TIMEOUT_MS });
    await page.keyboard.press("Escape");

    expect(await offers()).toEqual([]);
    expect(outside).toEqual([]);
  });

  it("reports no Content-Security-Policy violation and no script error", () => {
    // One report is expected and harmless: the bundle's zod tries `Function("")` once to see
    // whether it may compile validators, is refused by the policy (no 'unsafe-eval'), catches
    // that and validates without compiling. Any other report fails.
    const ZOD_JIT_PROBE = "console: CSP violation: script-src eval";
    const problems = watched.problems.filter((line) => /content.security.policy|csp violation|page error/i.test(line));
    expect(problems.filter((line) => line !== ZOD_JIT_PROBE)).toEqual([]);
    expect(problems.filter((line) => line === ZOD_JIT_PROBE).length).toBeLessThanOrEqual(1);
  });
});
