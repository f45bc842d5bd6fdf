/**
 * `GET /console`: the page, its Content-Security-Policy, and its bundle served from the
 * Worker's static assets (built by scripts/console-assets.mjs before the tests run).
 */
import { describe, expect, it } from "vitest";
import { CONSOLE_CONTENT_SECURITY_POLICY } from "../../src/api/system/console";
import { call, readProblem } from "../support/api";

function directives(policy: string): Map<string, string[]> {
  return new Map(
    policy.split(";").map((part) => {
      const [name = "", ...values] = part.trim().split(/\s+/);
      return [name, values] as const;
    }),
  );
}

describe("GET /console", () => {
  it("serves an HTML page without credentials, never cached without revalidation", async () => {
    const res = await call("/console");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^text\/html/);
    expect(res.headers.get("Cache-Control")).toBe("no-cache");
    expect(await res.text()).toContain('<div id="app">');
  });

  it("runs only its own script, styles only from its own sheet, and talks only to its own origin", async () => {
    const res = await call("/console");
    const policy = directives(res.headers.get("Content-Security-Policy") ?? "");
    expect(res.headers.get("Content-Security-Policy")).toBe(CONSOLE_CONTENT_SECURITY_POLICY);
    expect(policy.get("default-src")).toEqual(["'none'"]);
    expect(policy.get("script-src")).toEqual(["'self'"]);
    expect(policy.get("style-src")).toEqual(["'self'"]);
    expect(policy.get("connect-src")).toEqual(["'self'"]);
    expect(policy.get("frame-ancestors")).toEqual(["'none'"]);
    expect(policy.get("base-uri")).toEqual(["'none'"]);
    expect(policy.get("form-action")).toEqual(["'none'"]);
    expect(policy.get("require-trusted-types-for")).toEqual(["'script'"]);
    expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(res.headers.get("Referrer-Policy")).toBe("no-referrer");
    expect(res.headers.get("Cross-Origin-Opener-Policy")).toBe("same-origin");

    const html = await res.text();
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts).toHaveLength(1);
    for (const [, attributes = "", body = ""] of scripts) {
      expect(attributes).toMatch(/\bsrc="\/console\/assets\/[^"]+"/);
      expect(body.trim()).toBe("");
    }
    expect(html).not.toMatch(/\sstyle=|<style/);
    expect(html).not.toMatch(/(https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}/i);
  });

  it("serves the bundle and the stylesheet the page names from the Worker's assets", async () => {
    const html = await (await call("/console")).text();
    const script = /<script type="module" src="([^"]+)"/.exec(html)?.[1];
    const style = /<link rel="stylesheet" href="([^"]+)"/.exec(html)?.[1];
    expect(script).toBe("/console/assets/console.js");
    expect(style).toBe("/console/assets/console.css");

    const js = await call(script!);
    expect(js.status).toBe(200);
    expect(js.headers.get("Content-Type")).toMatch(/javascript/);
    expect(js.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(js.headers.get("X-Request-Id")).toBeTruthy();
    expect(await js.text()).toContain("/v1/sessions");

    const css = await call(style!);
    expect(css.status).toBe(200);
    expect(css.headers.get("Content-Type")).toMatch(/text\/css/);
    await css.body?.cancel();
  });

  it("sends /console/ to /console, and answers an unknown asset with a 404 problem", async () => {
    const slash = await call("/console/", { redirect: "manual" });
    expect(slash.status).toBe(308);
    expect(slash.headers.get("Location")).toBe("/console");
    const missing = await call("/console/assets/nothing.js");
    expect(missing.status).toBe(404);
    expect((await readProblem(missing)).code).toBe("not_found");
  });
});
