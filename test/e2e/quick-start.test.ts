/**
 * `npm start` as a newcomer uses it, on a port other than the default: one process brings up the
 * mock model and the platform, prints tokens and `curl` lines, and the printed lines, run by bash
 * as printed, take a session through a tool call, an approval and a client tool to its answer;
 * the shell blocks of the README's quick start and of the capability pages of `docs/` run as
 * written with what it printed (support/doc-blocks.ts says which blocks run), and `npm run demo`
 * finds the platform's port. Editing `.dev.vars` restarts the platform.
 */
import { execFile } from "node:child_process";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NOT_RUN, runBlocks, runnableBlocks } from "./support/doc-blocks";
import { childEnv, freePort, LOOPBACK, makeTempDir, nodeBinary, PROJECT_ROOT, removeDir } from "./support/environment";
import { relocatedConfig } from "./support/platform";
import { type GroupChild, spawnGroup } from "./support/process-group";
import { waitFor } from "./support/wait";

const READY_TIMEOUT_MS = 120_000;
const RUN_STEP_TIMEOUT_MS = 30_000;
/** A page's blocks wait for runs with the events stream or `until`: a page that hangs fails here. */
const PAGE_TIMEOUT_MS = 120_000;
/**
 * The blocks each page runs and those it marks not run: a new marker, or a block that stops
 * running, must be seen here.
 */
const PAGES: Record<string, { run: number; notRun: number }> = {
  "README.md": { run: 2, notRun: 1 },
  "docs/quick-start.md": { run: 1, notRun: 2 },
  "docs/agents.md": { run: 3, notRun: 0 },
  "docs/memory.md": { run: 3, notRun: 0 },
  "docs/subagents.md": { run: 1, notRun: 0 },
  "docs/chat.md": { run: 4, notRun: 2 },
  "docs/mcp-server.md": { run: 1, notRun: 0 },
  "docs/usage.md": { run: 2, notRun: 0 },
  "docs/forks.md": { run: 1, notRun: 0 },
  "docs/lifecycle.md": { run: 2, notRun: 0 },
  "docs/tenant-scale.md": { run: 1, notRun: 0 },
};
const READY_LINE = /The platform is ready on (http:\/\/\S+) \(/;

const run = promisify(execFile);

describe("npm start", () => {
  let dir: string;
  let dev: GroupChild;
  let guide: string[];
  let baseUrl: string;
  let token: string;
  const vars: Record<string, string> = {};

  beforeAll(async () => {
    dir = await makeTempDir("agent-platform-start");
    // The project's config in a directory of its own, so `.dev.vars` (read beside the config)
    // and the build output stay there; no provider key anywhere, so the mock must start.
    await writeFile(join(dir, "wrangler.json"), await relocatedConfig());
    const port = await freePort();
    let inspectorPort = await freePort();
    while (inspectorPort === port) inspectorPort = await freePort();
    const env = childEnv({
      CI: "true",
      WRANGLER_REGISTRY_PATH: join(dir, "registry"),
      WRANGLER_LOG_PATH: join(dir, "logs"),
    });
    delete env.ANTHROPIC_API_KEY;
    dev = spawnGroup(
      nodeBinary(),
      [
        join(PROJECT_ROOT, "scripts", "dev.mjs"),
        ...["--config", join(dir, "wrangler.json"), "--ip", LOOPBACK, "--port", String(port)],
        ...["--inspector-ip", LOOPBACK, "--inspector-port", String(inspectorPort), "--persist-to", join(dir, "state"), "--mock-port", "0"],
      ],
      { cwd: PROJECT_ROOT, env },
    );
    const output = await dev.waitForOutput((text) => READY_LINE.test(text) && text.includes("export ADMIN_TOKEN="), READY_TIMEOUT_MS);
    baseUrl = READY_LINE.exec(output)![1]!;
    guide = output
      .split("\n")
      .filter((line) => line.startsWith("  "))
      .map((line) => line.trim());
    token = /export TOKEN=(\S+)/.exec(output)![1]!;
  });
  afterAll(async () => {
    await dev?.stop("SIGTERM");
    if (dir) await removeDir(dir);
  });

  /** Runs a printed line with bash, with the variables the earlier lines set. */
  async function step(prefix: string, capture?: "SESSION" | "CALL"): Promise<string> {
    const line = guide.find((l) => l.startsWith(prefix));
    expect(line, `a printed line starting with ${prefix}`).toBeDefined();
    const setup = guide.filter((l) => l.startsWith("export ") || l.startsWith("BASE=") || l.startsWith("pick()"));
    const known = Object.entries(vars).map(([name, value]) => `${name}='${value}'`);
    const script = [...setup, ...known, line!, ...(capture ? [`printf '%s' "$${capture}"`] : [])].join("\n");
    const { stdout } = await run("bash", ["-c", script], { cwd: dir, env: { PATH: process.env.PATH ?? "" } });
    if (capture) {
      expect(stdout, `${capture} from: ${line}`).toMatch(/^[A-Za-z0-9_-]+$/);
      vars[capture] = stdout;
    }
    return stdout;
  }

  async function waitForStatus(status: string): Promise<void> {
    await waitFor(
      async () => {
        const res = await fetch(`${baseUrl}/v1/sessions/${vars.SESSION}`, { headers: { authorization: `Bearer ${token}` } });
        const session = (await res.json()) as { status: string };
        return session.status === status ? session : undefined;
      },
      { timeoutMs: RUN_STEP_TIMEOUT_MS, intervalMs: 200, what: `session status ${status}` },
    );
  }

  it("prints only what a newcomer needs: no engine warnings, no stack traces", () => {
    const output = dev.output();
    expect(output).toContain("the mock model runs on http://127.0.0.1:");
    expect(output).not.toMatch(/EBADENGINE|ENOTFOUND|getaddrinfo|Unable to fetch|at \S+ \(node:/);
  });

  it("runs the printed curl lines: a tool call, an approval, a client tool, the answer", async () => {
    await step("SESSION=", "SESSION");
    await waitForStatus("waiting_approval");
    expect(await step(`curl -s $BASE/v1/sessions/$SESSION/tool-calls -H`)).toContain(
      '"name":"get_time","input":{"timezone":"Europe/Paris"},"status":"done"',
    );
    await step(
      `CALL=$(curl -s $BASE/v1/sessions/$SESSION/tool-calls -H "Authorization: Bearer $TOKEN" | pick 'v.data.find((c) => c.status === "waiting_approval")`,
      "CALL",
    );
    expect(await step("curl -s -X POST $BASE/v1/sessions/$SESSION/tool-calls/$CALL/approve")).toContain('"status":"running"');
    await waitForStatus("waiting_tool_output");
    await step(
      `CALL=$(curl -s $BASE/v1/sessions/$SESSION/tool-calls -H "Authorization: Bearer $TOKEN" | pick 'v.data.find((c) => c.status === "waiting_tool_output")`,
      "CALL",
    );
    await step("curl -s -X POST $BASE/v1/sessions/$SESSION/tool-calls/$CALL/output");
    await waitForStatus("done");

    const answer = await step("curl -s $BASE/v1/sessions/$SESSION/messages");
    expect(answer).toContain("- get_time: ");
    expect(answer).toContain("- lookup_order: webhook ok");
    expect(answer).toContain("- confirm_with_customer: Yes, Friday is fine.");
    expect(await step("curl -s $BASE/v1/admin/tenants")).toContain('"tenant_id":"dev"');
  });

  /** The printed lines a reader pastes first: BASE, the tokens and `pick`. */
  const printedSetup = () => guide.filter((l) => l.startsWith("export ") || l.startsWith("pick()"));
  const runPage = async (page: string, from?: string) => {
    const text = await readFile(join(PROJECT_ROOT, page), "utf8");
    const blocks = runnableBlocks(text, from);
    expect({ run: blocks.length, notRun: text.split(NOT_RUN).length - 1 }, page).toEqual(PAGES[page]);
    return (await runBlocks(blocks, printedSetup(), dir, PAGE_TIMEOUT_MS)).outputs;
  };
  /** The `sh` blocks of `page` (run or not) that contain `text`. */
  const shBlocks = async (page: string, text: string) =>
    [...(await readFile(join(PROJECT_ROOT, page), "utf8")).matchAll(/^```sh\n([\s\S]*?)^```$/gm)]
      .map((match) => match[1]!)
      .filter((block) => block.includes(text));

  it("prints the platform's address on the port it was given, and a curl that answers non-2xx fails a page", async () => {
    expect(baseUrl).not.toContain(":8787");
    expect(guide).toContain(`export BASE=${baseUrl}`);
    await expect(
      runBlocks([`curl -s $BASE/v1/sessions/ses_none -H "Authorization: Bearer $TOKEN"`], printedSetup(), dir, PAGE_TIMEOUT_MS),
    ).rejects.toThrow(/not_found/);
  });

  /**
   * Every runnable block of the quick start and of each capability page, run by bash as written,
   * page after page on the one platform, with nothing but what `npm start` printed.
   */
  it("runs the README's quick start as written", async () => {
    const [byHand, remembers] = await runPage("README.md", "## Quick start");
    expect(byHand).toContain("event: end");
    expect(byHand).toMatch(/"name":"get_time"/);
    expect(remembers).toMatch(/\{"status":"done","memory":\{"namespaces":\[\["users","u_123"\]\]/);
    // What the session saved, read back by the backend
    expect(remembers).toContain('[{"key":"note","value":{"note":"I prefer French."}}]');
  });

  it("runs the quick start's tour as written", async () => {
    const [tour] = await runPage("docs/quick-start.md");
    expect(tour).toContain("- refund: refunded");
    expect(tour).toContain('"status":"cancelled"');
  });

  it("runs the agents page as written", async () => {
    const [define, canary, exported] = await runPage("docs/agents.md");
    expect(define).toMatch(/"agent":\{"id":"agt_[\w-]+","version":1\}/);
    // The version PATCH made
    expect(define).toMatch(/^2$/m);
    expect(exported).toMatch(/^agt_[\w-]+ support-triage-copy$/m);
    // The canary's sessions run version 2 until three of them failed its rule, then it is gone
    expect(canary).toMatch(/^\{"id":"agt_[\w-]+","version":2,.*"canary":true\}$/m);
    expect(canary).toMatch(/^\{\}$/m);
    expect(canary).toMatch(
      /"alias":"production","version":1,"canary_version":2,"reason":"min_score","runs":3,"failures":3,"failure_rate":1,"mean_score":0/,
    );
  });

  it("runs the memory page as written", async () => {
    const [items, , remembers] = await runPage("docs/memory.md");
    expect(items).toContain('[{"key":"preferences","score":');
    // The delete, which prints its own status
    expect(items).toMatch(/204\n$/);
    // One session saves; a later session of the same user finds it
    expect(remembers).toMatch(/^memory_put \{"key":"note","value":\{"note":"I like window seats\."\},"namespace":\["users","u_456"\]\}$/m);
    expect(remembers).toMatch(/^memory_search \{"query":"Which seats do I like","namespace":\["users","u_456"\]\}$/m);
    expect(remembers).toMatch(/^From memory: I like window seats\.$/m);
  });

  it("runs the sub-agents page as written", async () => {
    const [tree] = await runPage("docs/subagents.md");
    expect(tree).toMatch(/"type":"subagent".*"status":"done"/);
    expect(tree).toMatch(/\{"status":"done","usage":\{.*"subagents":\{"steps":[1-9]/);
  });

  it("runs the chat page as written", async () => {
    const [, firstTurn, isolation, approved] = await runPage("docs/chat.md");
    expect(firstTurn).toContain('"type":"tool-approval-request"');
    expect(isolation).toBe("404\n0\n");
    expect(approved).toContain("dynamic-tool output-available");
  });

  it("runs the MCP server page as written", async () => {
    const [mcp] = await runPage("docs/mcp-server.md");
    expect(mcp).toMatch(/^triage( |$)/m);
    expect(mcp).toMatch(/"isError":false,"text":"I called 1 tool .*- get_time: /);
  });

  it("runs the usage page as written", async () => {
    const [usage, budget] = await runPage("docs/usage.md");
    expect(usage).toContain('"group_by":["day","model"]');
    expect(budget).toBe('waiting_budget {"budget":"session_tokens","resumes_at":null}\nrunning\ndone\n');
  });

  it("runs the forks page as written", async () => {
    const [forks] = await runPage("docs/forks.md");
    expect(forks).toMatch(/^\{"id":"ses_[\w-]+","forked_from":\{"session_id":"ses_[\w-]+"/m);
    expect(forks).toMatch(/^\{"id":"ses_[\w-]+","status":"(queued|running|done)"\}$/m);
  });

  it("runs the lifecycle page as written", async () => {
    const [settings, deletion] = await runPage("docs/lifecycle.md");
    expect(settings).toContain('"session_retention_days":90');
    expect(deletion).toContain('"status":"deleted"');
    expect(deletion).toContain("tenant_index 0 rows");
  });

  it("runs the one-large-tenant page as written", async () => {
    const [shards] = await runPage("docs/tenant-scale.md");
    expect(shards).toContain('{"generation":1,"shards":8}{"generation":2,"shards":4}4 shards\n');
    expect(shards).toContain(
      'tenant.shards_set {"shards":4,"generation":2,"previous_shards":8}\ntenant.shards_set {"shards":8,"generation":1,"previous_shards":1}',
    );
  });

  it("no shell block of the README or docs/ names a port or needs jq, and every shell block is an sh fence (the only ones run)", async () => {
    for (const page of [
      "README.md",
      ...(await readdir(join(PROJECT_ROOT, "docs"))).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`),
    ]) {
      const text = await readFile(join(PROJECT_ROOT, page), "utf8");
      for (const [, block] of text.matchAll(/^```(?:sh|bash)\n([\s\S]*?)^```$/gm)) {
        expect(block, page).not.toMatch(/:8787|\bjq\b/);
      }
      expect(text.match(/^```(?:bash|shell|zsh|console)$/gm), page).toBeNull();
    }
  });

  it("npm run demo finds the platform on its port, or says that none is running", async () => {
    const elsewhere = await makeTempDir("agent-platform-no-start");
    const none = await run(nodeBinary(), ["scripts/demo.mjs", "--config", join(elsewhere, "wrangler.json")], {
      cwd: PROJECT_ROOT,
      timeout: RUN_STEP_TIMEOUT_MS,
    }).catch((error: { code?: number; stdout?: string; stderr?: string }) => error);
    await removeDir(elsewhere);
    expect(none).toMatchObject({
      code: 1,
      stderr: "No platform is running: start one with `npm start` in another terminal (or pass --url).\n",
    });
  });

  it("npm run demo shows a session live from its events stream, through a tool call to its answer", async () => {
    // No --url: the demo reads where the running `npm start` (of this config) serves.
    const { stdout } = await run(nodeBinary(), ["scripts/demo.mjs", "--config", join(dir, "wrangler.json")], {
      cwd: PROJECT_ROOT,
      timeout: RUN_STEP_TIMEOUT_MS,
    });
    expect(stdout).toContain(`platform ${baseUrl}`);
    const lines = stdout.split("\n");
    const at = (text: string) => lines.findIndex((line) => line.includes(text));
    expect(at("[running]")).toBeGreaterThan(at("> What time is it"));
    expect(at("tool call get_time")).toBeGreaterThan(at("[running]"));
    expect(at("tool result get_time: ")).toBeGreaterThan(at("tool call get_time"));
    expect(at("the customer answers")).toBeGreaterThan(at("[waiting_tool_output]"));
    expect(at("[done: end_turn]")).toBeGreaterThan(at("the customer answers"));
    // The streamed text, printed as it came, is the saved answer.
    const answer = /^answer: ([\s\S]*?)\ndone \(end_turn\)/m.exec(stdout)?.[1];
    expect(answer).toContain("- get_time: ");
    expect(lines.slice(0, at("answer: ")).join("\n")).toContain(answer!);
    expect(stdout).toMatch(/done \(end_turn\) in 3 model calls/);
  });

  it("mints tokens for any tenant and scope with npm run token; a tenant exists from its first use", async () => {
    const mintWith = async (flags: string[]) =>
      (
        await run(nodeBinary(), ["scripts/token.mjs", "--config", join(dir, "wrangler.json"), ...flags], { cwd: PROJECT_ROOT })
      ).stdout.trim();
    const mint = (tenant: string, scope: string) => mintWith(["--tenant", tenant, "--scope", scope]);
    // The quick start's `npm run token` lines, with their flags as shown
    const [shown] = await shBlocks("docs/quick-start.md", "npm run token");
    const flagSets = [...shown!.matchAll(/npm run (?:-s )?token -- (.+?)\)?$/gm)].map((line) =>
      [...line[1]!.matchAll(/"([^"]*)"|(\S+)/g)].map((arg) => arg[1] ?? arg[2]!),
    );
    expect(flagSets).toHaveLength(4);
    for (const flags of flagSets) expect(await mintWith(flags), flags.join(" ")).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    const get = (path: string, credential: string) => fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${credential}` } });

    const acme = await mint("acme", "sessions:read sessions:write");
    const tenant = await get("/v1/tenant", acme);
    expect(tenant.status).toBe(200);
    expect(((await tenant.json()) as { tenant_id: string }).tenant_id).toBe("acme");

    const readOnly = await mint("acme", "sessions:read");
    const refused = await fetch(`${baseUrl}/v1/sessions`, {
      method: "POST",
      headers: { authorization: `Bearer ${readOnly}`, "content-type": "application/json" },
      body: "{}",
    });
    expect(refused.status).toBe(403);

    const admin = await mint("ops", "platform:admin");
    const tenants = (await (await get("/v1/admin/tenants", admin)).json()) as { data: { tenant_id: string }[] };
    expect(tenants.data.map((t) => t.tenant_id)).toEqual(expect.arrayContaining(["acme", "dev"]));
  });

  it("restarts the platform when .dev.vars changes, and keeps the sessions: the chat page's CORS_ORIGINS, as written", async () => {
    const before = dev.output().length;
    const [allow] = await shBlocks("docs/chat.md", "CORS_ORIGINS=");
    const [preflight] = await shBlocks("docs/chat.md", "-X OPTIONS");
    await runBlocks([allow!], printedSetup(), dir, PAGE_TIMEOUT_MS);
    await dev.waitForOutput((text) => text.slice(before).includes("The platform is ready again"), READY_TIMEOUT_MS);
    expect(dev.output().slice(before)).toContain(".dev.vars changed: restarting the platform");
    const { outputs } = await runBlocks([preflight!], printedSetup(), dir, PAGE_TIMEOUT_MS);
    expect(outputs[0]).toMatch(/^access-control-allow-origin: http:\/\/localhost:3000\r?$/im);
    const res = await fetch(`${baseUrl}/v1/sessions/${vars.SESSION}`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await res.json()) as { status: string }).status).toBe("done");
  });
});
