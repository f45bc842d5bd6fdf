/**
 * Which blocks of a page the docs test runs (```sh fences only, in order, less those marked not
 * run), and how a page fails: a non-2xx curl, a pick of nothing, an unset variable, a timeout.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { NOT_RUN, runBlocks, runnableBlocks } from "../e2e/support/doc-blocks";

const page = [
  "# Page",
  "```sh\necho one\n```",
  "```json\n{}\n```",
  NOT_RUN,
  "```sh\nnpm start\n```",
  "## Section",
  "```sh\n# a comment, not a heading\necho two\n```",
  "```ts\nconst x = 1;\n```",
  "### Deeper",
  "```sh\necho three\n```",
  "## Next",
  "```sh\necho four\n```",
].join("\n");

describe("runnableBlocks", () => {
  it("takes every sh fence in order, and leaves out other fences and those marked not run", () => {
    expect(runnableBlocks(page)).toEqual(["echo one\n", "# a comment, not a heading\necho two\n", "echo three\n", "echo four\n"]);
  });

  it("cuts a section at the next heading of its level or higher, keeping deeper ones", () => {
    expect(runnableBlocks(page, "## Section")).toEqual(["# a comment, not a heading\necho two\n", "echo three\n"]);
    expect(runnableBlocks(page, "### Deeper")).toEqual(["echo three\n"]);
    expect(() => runnableBlocks(page, "## Missing")).toThrow(/no heading/);
  });
});

/** The harness's failures, against a local server: 200 with a body at /ok, 404 elsewhere, a stream at /stream that never ends. */
describe("runBlocks", () => {
  let server: Server;
  let setup: string[];
  const streams = new Set<IncomingMessage>();

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === "/stream") {
        streams.add(req);
        req.on("close", () => streams.delete(req));
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(": open\n\n");
        return;
      }
      res.writeHead(req.url === "/ok" ? 200 : 404, { "content-type": "application/json" });
      res.end(req.url === "/ok" ? '{"status":"done"}' : '{"code":"not_found"}');
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    // As `npm start` prints them (scripts/dev-guide.mjs).
    setup = [
      `export BASE=http://127.0.0.1:${port}`,
      `pick() { node -pe "const v = JSON.parse(require('fs').readFileSync(0, 'utf8')); $1"; }`,
    ];
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const runs = (block: string, timeoutMs = 20_000) => runBlocks([block], setup, tmpdir(), timeoutMs);

  it("runs a page and splits its output by block", async () => {
    const { outputs } = await runBlocks(["curl -s $BASE/ok | pick v.status", "echo two"], setup, tmpdir(), 20_000);
    expect(outputs).toEqual(["done\n", "two\n"]);
  });

  it("fails the page on a non-2xx curl, even inside a wait's condition", async () => {
    await expect(runs('[ "$(curl -s $BASE/missing | pick v.status)" = done ] && echo done; echo continued')).rejects.toThrow(
      /curl -s http:\S+\/missing failed/,
    );
    await expect(runs("curl -s $BASE/missing -d ' -w '")).rejects.toThrow(/failed/);
  });

  it("lets a curl that prints its own status with -w answer non-2xx", async () => {
    expect((await runs("curl -s $BASE/missing -o /dev/null -w '%{http_code}\\n'")).outputs).toEqual(["404\n"]);
  });

  it("fails the page when pick prints undefined, or a variable is unset", async () => {
    await expect(runs("curl -s $BASE/ok | pick v.id")).rejects.toThrow(/pick v.id printed undefined/);
    await expect(runs("ID=$(curl -s $BASE/ok | pick v.id)\necho $ID")).rejects.toThrow(/printed undefined/);
    await expect(runs("echo $NOT_SET")).rejects.toThrow(/NOT_SET: unbound variable/);
  });

  it("fails a page that does not end in time, and ends what it started", async () => {
    await expect(runs("curl -sN $BASE/stream", 1_500)).rejects.toThrow(/did not end within 1500 ms/);
    await vi.waitFor(() => expect(streams.size).toBe(0), { timeout: 5_000 });
  });
});
