/**
 * Facts the guides state that the code or the manifests decide: the scopes table lists every
 * scope, the AI SDK versions the chat page names are the ones the project tests with, and no two
 * pages create an agent of the same name (names are unique in a tenant, and pages share one).
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ALL_SCOPES } from "../../src/auth/principal";

const root = join(import.meta.dirname, "..", "..");
const read = (path: string) => readFile(join(root, path), "utf8");

describe("the guides", () => {
  it("list every scope in the authentication page's table, and only those", async () => {
    const page = await read("docs/authentication.md");
    const table = page.slice(page.indexOf("| scope | what it allows |"));
    const rows = [...table.matchAll(/^\| `([a-z_]+:[a-z_]+)` \|/gm)].map((row) => row[1]);
    expect(rows).toEqual([...ALL_SCOPES]);
  });

  it("name the AI SDK pair the project tests with", async () => {
    const manifest = JSON.parse(await read("package.json")) as {
      devDependencies?: Record<string, string>;
      dependencies?: Record<string, string>;
    };
    const versions = { ...manifest.dependencies, ...manifest.devDependencies };
    const chat = await read("docs/chat.md");
    expect(chat).toContain(`\`ai\` ${versions.ai}`);
    expect(chat).toContain(`\`@ai-sdk/react\` ${versions["@ai-sdk/react"]}`);
    expect(chat).toContain(`npm install ai@${versions.ai} @ai-sdk/react@${versions["@ai-sdk/react"]}`);
  });

  it("create each agent name on one page only", async () => {
    const pages = ["README.md", ...(await readdir(join(root, "docs"))).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
    const seen = new Map<string, string>();
    for (const page of pages) {
      const text = await read(page);
      for (const [, block] of text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)) {
        // A create is a POST to /v1/agents whose body names the agent.
        for (const create of block!.matchAll(/\$BASE\/v1\/agents -H[\s\S]*?"name": "([^"]+)"/g)) {
          const name = create[1]!;
          expect(seen.get(name) ?? page, `agent ${name}`).toBe(page);
          seen.set(name, page);
        }
      }
    }
    expect(seen.size).toBeGreaterThan(5);
  });
});
