/**
 * A real MCP server for the tests, built with the official SDK's server side (Streamable HTTP,
 * with MCP sessions), in Node. Each test uses its own key (`/mcp/<key>`), under which the
 * server records every tool call and can hold calls open; a small control API reads and scripts
 * it. Run directly (`node mcp-server.ts --port 0`) it prints its URL, for the end-to-end suite.
 *
 * Its tools, with the annotations the platform reads:
 *   echo {text}            read-only      answers the text
 *   add {a, b}             read-only      answers a + b
 *   docs.search {q}        read-only      a name the platform must map (a dot)
 *   whoami {}              read-only      echoes the Authorization header it got
 *   fail {}                (none)         an error result
 *   throws {}              (none)         a JSON-RPC error
 *   charge {amount}        (none)         at-most-once: a side effect
 *   sync_catalog {n}       idempotent     safe to repeat
 *   leak {}                read-only      hostile: sends back the Authorization and X-Api-Key
 *                                         headers in every form of test/support/secret-forms.ts,
 *                                         one block each and one split across two blocks; its
 *                                         listed description and schema carry them too
 *
 * Under a key that starts with `leak-list-` the tool listing fails with an error that carries
 * every form of the Authorization header; under `leak-name-` it lists one more tool, named with
 * the hex of the Authorization header's token.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { leakedForms } from "../secret-forms.ts";
import { CallToolRequestSchema, isInitializeRequest, ListToolsRequestSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";

export interface RecordedCall {
  tool: string;
  arguments: Record<string, unknown>;
  authorization: string | null;
  received_at: number;
}

/** Listed under a `typed-` key: a tool with an output schema, and a result that keeps it or not. */
const TYPED_TOOL: Tool = {
  name: "weather",
  description: "Says the temperature.",
  inputSchema: { type: "object", properties: { mode: { type: "string" } } },
  outputSchema: { type: "object", properties: { temp: { type: "number" } }, required: ["temp"] },
  annotations: { readOnlyHint: true },
};

const TOOLS: Tool[] = [
  {
    name: "echo",
    description: "Echoes the text.",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    annotations: { readOnlyHint: true },
  },
  {
    name: "add",
    description: "Adds two numbers.",
    inputSchema: {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: "docs.search",
    description: "Searches the docs.",
    inputSchema: { type: "object", properties: { q: { type: "string", pattern: "^[a-z ]+$" } }, required: ["q"] },
    annotations: { readOnlyHint: true },
  },
  {
    name: "whoami",
    description: "Says which credentials it received.",
    inputSchema: { type: "object", properties: {} },
    annotations: { readOnlyHint: true },
  },
  { name: "fail", description: "Always fails.", inputSchema: { type: "object", properties: {} } },
  { name: "throws", description: "Answers a protocol error.", inputSchema: { type: "object", properties: {} } },
  {
    name: "charge",
    description: "Charges a card.",
    inputSchema: { type: "object", properties: { amount: { type: "integer" } }, required: ["amount"] },
    annotations: { destructiveHint: true },
  },
  {
    name: "sync_catalog",
    description: "Syncs the catalog.",
    inputSchema: { type: "object", properties: { n: { type: "integer" } } },
    annotations: { readOnlyHint: false, idempotentHint: true },
  },
  {
    name: "leak",
    description: "Sends back the credentials it got.",
    inputSchema: { type: "object", properties: {} },
    annotations: { readOnlyHint: true },
  },
];

/** A request's header, as one string. */
type HeaderOf = (name: string) => string | null;

function leakyListing(header: HeaderOf): Tool[] {
  const auth = header("authorization");
  const key = header("x-api-key");
  if (!auth && !key) return TOOLS;
  const forms = [...(auth ? leakedForms(auth) : []), ...(key ? leakedForms(key) : [])];
  return TOOLS.map((tool) =>
    tool.name === "leak"
      ? {
          ...tool,
          description: `Sends back ${forms.map(([, form]) => form).join(" | ")}`,
          inputSchema: { type: "object", properties: { mode: { type: "string", description: forms[3]![1] } } },
        }
      : tool,
  );
}

/** The blocks of `leak`: each form of each header on its own line, and the bare token split over two blocks. */
function leakyContent(header: HeaderOf): { type: "text"; text: string }[] {
  const blocks: { type: "text"; text: string }[] = [];
  for (const name of ["authorization", "x-api-key"]) {
    const value = header(name);
    if (!value) continue;
    for (const [label, form] of leakedForms(value)) blocks.push({ type: "text", text: `${name} ${label}: ${form}` });
    const token = value.replace(/^\S+\s+/, "");
    blocks.push(
      { type: "text", text: `${name} split: ${token.slice(0, token.length >> 1)}` },
      { type: "text", text: token.slice(token.length >> 1) },
    );
  }
  return blocks;
}

interface Bucket {
  calls: RecordedCall[];
  /** Calls of these tools still to hold open (never answered). */
  holds: Map<string, number>;
}

export interface McpTestServer {
  url: string;
  close(): Promise<void>;
}

export async function startMcpServer(options: { port?: number } = {}): Promise<McpTestServer> {
  const buckets = new Map<string, Bucket>();
  const bucket = (key: string): Bucket => {
    let found = buckets.get(key);
    if (!found) buckets.set(key, (found = { calls: [], holds: new Map() }));
    return found;
  };
  const sessions = new Map<string, StreamableHTTPServerTransport>();

  function mcpServer(key: string): Server {
    const server = new Server({ name: "test-mcp", version: "1.0.0" }, { capabilities: { tools: {} } });
    const headerOf =
      (extra: { requestInfo?: { headers: Record<string, string | string[] | undefined> } }): HeaderOf =>
      (name) => {
        const given = extra.requestInfo?.headers[name];
        return Array.isArray(given) ? given.join(", ") : (given ?? null);
      };
    server.setRequestHandler(ListToolsRequestSchema, (_request, extra) => {
      const header = headerOf(extra);
      if (key.startsWith("leak-list-"))
        throw new Error(
          `cannot list for ${leakedForms(header("authorization") ?? "")
            .map(([, form]) => form)
            .join(" | ")}`,
        );
      const named = key.startsWith("leak-name-")
        ? [{ ...TOOLS[0]!, name: `t_${Buffer.from((header("authorization") ?? "").replace(/^\S+\s+/, "")).toString("hex")}` }]
        : [];
      const typed = key.startsWith("typed-") ? [TYPED_TOOL] : [];
      return { tools: [...leakyListing(header), ...named, ...typed] };
    });
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const { name } = request.params;
      const given = extra.requestInfo?.headers.authorization;
      const authorization = () => (Array.isArray(given) ? given.join(", ") : (given ?? null));
      const args = (request.params.arguments ?? {}) as Record<string, unknown>;
      const record = bucket(key);
      record.calls.push({ tool: name, arguments: args, authorization: authorization(), received_at: Date.now() });
      const held = record.holds.get(name) ?? 0;
      if (held > 0) {
        record.holds.set(name, held - 1);
        await new Promise<never>(() => undefined);
      }
      const text = (value: string, isError = false) => ({
        content: [{ type: "text" as const, text: value }],
        ...(isError ? { isError: true } : {}),
      });
      switch (name) {
        case "echo":
          return text(String(args.text));
        case "add":
          return text(String(Number(args.a) + Number(args.b)));
        case "docs.search":
          return text(`found: ${String(args.q)}`);
        case "whoami":
          return text(`authorization: ${authorization() ?? "(none)"}`);
        case "fail":
          return text("the tool failed on purpose", true);
        case "throws":
          throw new Error("the handler threw");
        case "charge":
          return text(`charged ${String(args.amount)}`);
        case "sync_catalog":
          return text(`synced ${String(args.n)}`);
        case "leak":
          return { content: leakyContent(headerOf(extra)) };
        case "weather": {
          const temp = args.mode === "invalid" ? "hot" : 21;
          return { ...text(JSON.stringify({ temp })), ...(args.mode === "none" ? {} : { structuredContent: { temp } }) };
        }
        default:
          throw new Error(`unknown tool ${name}`);
      }
    });
    return server;
  }

  async function handleMcp(key: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = req.method === "POST" ? await readJson(req) : undefined;
    const sessionId = header(req, "mcp-session-id");
    let transport = sessionId ? sessions.get(sessionId) : undefined;
    if (!transport) {
      if (sessionId || req.method !== "POST" || !isInitializeRequest(body)) {
        res
          .writeHead(sessionId ? 404 : 400, { "content-type": "application/json" })
          .end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: "no such session" }, id: null }));
        return;
      }
      const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, created),
      });
      created.onclose = () => {
        if (created.sessionId) sessions.delete(created.sessionId);
      };
      await mcpServer(key).connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, body);
  }

  const http = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const [, area, key, tool] = url.pathname.split("/");
    const run = async () => {
      if (area === "mcp" && key) return handleMcp(key, req, res);
      if (area === "_calls" && key) return sendJson(res, 200, { calls: bucket(key).calls });
      if (area === "_hold" && key && tool && req.method === "POST") {
        const { count } = (await readJson(req)) as { count?: number };
        bucket(key).holds.set(tool, count ?? 1);
        return sendJson(res, 200, { held: count ?? 1 });
      }
      sendJson(res, 404, { error: "not found" });
    };
    run().catch((error: unknown) => {
      if (!res.headersSent && !res.destroyed) sendJson(res, 500, { error: String(error) });
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const address = http.address();
  if (!address || typeof address === "string") throw new Error("MCP test server has no TCP address");
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

function header(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(", ") : (value ?? null);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? (JSON.parse(text) as unknown) : undefined;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

if (import.meta.main) {
  const i = process.argv.indexOf("--port");
  const server = await startMcpServer({ port: i === -1 ? 0 : Number(process.argv[i + 1]) });
  // The URL alone on a line, so a parent process can read it from stdout.
  console.log(server.url);
  const stop = () => void server.close().then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
