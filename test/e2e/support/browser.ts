/**
 * A real headless Chromium (Debian's `chromium` package) driven by playwright-core, for the
 * console's end-to-end tests. Each page records what the browser refused or failed at (console
 * errors, uncaught exceptions, Content-Security-Policy violations), so a test can prove the
 * strict policy never got in the console's way. Screenshots go to a git-ignored folder.
 */
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { CHROMIUM_INSTALL, chromiumPath } from "../../../scripts/prerequisites.mjs";
import { PROJECT_ROOT } from "./environment";

/** Debian's package; `CHROMIUM_PATH` points elsewhere. `npm test` checks it first; `.ci/run` installs it. */
export const CHROMIUM_PATH = chromiumPath();
/** Written by every run, never committed (.gitignore). */
export const SCREENSHOT_DIR = join(PROJECT_ROOT, "test-results", "console");

/**
 * As root in a container (CI) the sandbox cannot start; the network is closed, so every
 * background service Chromium would call is switched off rather than left failing.
 */
const LAUNCH_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-extensions",
];

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`no Chromium at ${CHROMIUM_PATH}: ${CHROMIUM_INSTALL}`);
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: LAUNCH_ARGS });
}

export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  /** Console errors, page errors and CSP reports, in order. */
  problems: string[];
  /** `METHOD path status` of every API response the page received. */
  responses: string[];
  close(): Promise<void>;
}

/** A fresh context (its own storage) and page, recording problems and API answers. */
export async function openPage(browser: Browser, viewport = DESKTOP): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const problems: string[] = [];
  const responses: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("response", (response) => {
    const url = new URL(response.url());
    if (url.pathname.startsWith("/v1/")) responses.push(`${response.request().method()} ${url.pathname}${url.search} ${response.status()}`);
  });
  // Violations also reach the page as events; report them as problems, whatever the console says.
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`);
    });
  });
  return { page, context, problems, responses, close: () => context.close() };
}

export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: false });
  return path;
}
