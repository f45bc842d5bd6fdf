/**
 * A real A2A agent for the tests, built with `@a2a-js/sdk`'s server side (its request handler and
 * in-memory task store behind the 0.3 JSON-RPC transport), in Node. Each test uses its own key
 * (`/a2a/<key>/…`): its card, its JSON-RPC endpoint, the requests it received (card reads as
 * method `card`) and a release for held ones. Run directly (`node a2a-server.ts --port 0`) it prints its URL.
 *
 * What the agent does with a message's text:
 *   fail          the task fails ("cannot do that")
 *   ask           the task asks "Which city?" (input-required); the next message on the task
 *                 completes it with a text artifact and a data artifact naming the city
 *   hold …        waits until the test releases the key, then completes ("released: …")
 *   anything else completes with a text artifact "echo: <text>"
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { Role, TaskState, type Artifact, type Message, type Part, type Task } from "@a2a-js/sdk";
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  ServerCallContext,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from "@a2a-js/sdk/server";
import { LegacyJsonRpcTransportHandler } from "@a2a-js/sdk/compat/v0_3/server";

export interface RecordedA2aRequest {
  method: string;
  authorization: string | null;
  body: unknown;
}

interface Agent {
  handler: LegacyJsonRpcTransportHandler;
  requests: RecordedA2aRequest[];
  held: Set<() => void>;
}

const text = (value: string): Part => ({ content: { $case: "text", value }, metadata: undefined, filename: "", mediaType: "text/plain" });
const data = (value: unknown): Part => ({
  content: { $case: "data", value },
  metadata: undefined,
  filename: "",
  mediaType: "application/json",
});

function agentMessage(taskId: string, contextId: string, parts: Part[]): Message {
  return {
    messageId: crypto.randomUUID(),
    taskId,
    contextId,
    role: Role.ROLE_AGENT,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

function artifact(parts: Part[]): Artifact {
  return { artifactId: crypto.randomUUID(), name: "answer", description: "", parts, metadata: undefined, extensions: [] };
}

function messageText(message: Message): string {
  return message.parts.map((part) => (part.content?.$case === "text" ? part.content.value : "")).join("");
}

class ScriptedAgent implements AgentExecutor {
  readonly held: Set<() => void>;

  constructor(held: Set<() => void>) {
    this.held = held;
  }

  async execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const said = messageText(request.userMessage);
    const { taskId, contextId } = request;
    const task = (state: TaskState, statusParts: Part[], artifacts: Artifact[] = []): Task => ({
      id: taskId,
      contextId,
      status: {
        state,
        message: statusParts.length ? agentMessage(taskId, contextId, statusParts) : undefined,
        timestamp: new Date().toISOString(),
      },
      artifacts,
      history: [],
      metadata: undefined,
    });
    let answer: Task;
    if (request.task?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
      answer = task(TaskState.TASK_STATE_COMPLETED, [], [artifact([text(`weather in ${said}: sunny`)]), artifact([data({ city: said })])]);
    } else if (said === "fail") answer = task(TaskState.TASK_STATE_FAILED, [text("cannot do that")]);
    else if (said === "ask") answer = task(TaskState.TASK_STATE_INPUT_REQUIRED, [text("Which city?")]);
    else if (said.startsWith("hold")) {
      // Working first, as a long task reports itself: a send that does not block is answered with it.
      bus.publish(AgentEvent.task(task(TaskState.TASK_STATE_WORKING, [])));
      await new Promise<void>((release) => this.held.add(release));
      answer = task(TaskState.TASK_STATE_COMPLETED, [], [artifact([text(`released: ${said}`)])]);
    } else answer = task(TaskState.TASK_STATE_COMPLETED, [], [artifact([text(`echo: ${said}`)])]);
    bus.publish(AgentEvent.task(answer));
    bus.finished();
  }

  async cancelTask(): Promise<void> {}
}

function card(base: string, key: string) {
  return {
    name: `test agent ${key}`,
    description: "A scripted A2A agent for the tests.",
    supportedInterfaces: [{ url: `${base}/a2a/${key}/rpc`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "0.3" }],
    provider: undefined,
    version: "1.0.0",
    capabilities: { streaming: false, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain", "application/json"],
    skills: [],
    signatures: [],
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

export async function startA2aServer(port = 0): Promise<{ url: string; close: () => Promise<void> }> {
  const agents = new Map<string, Agent>();
  let base = "";
  const agentOf = (key: string): Agent => {
    let agent = agents.get(key);
    if (!agent) {
      const held = new Set<() => void>();
      const handler = new DefaultRequestHandler(card(base, key) as never, new InMemoryTaskStore(), new ScriptedAgent(held));
      agent = { handler: new LegacyJsonRpcTransportHandler(handler), requests: [], held };
      agents.set(key, agent);
    }
    return agent;
  };

  const server = createServer((req, res) => {
    void (async () => {
      const match = /^\/a2a\/([A-Za-z0-9_.-]{1,100})\/(card\.json|legacy-card\.json|rpc|requests|release)$/.exec(req.url ?? "");
      if (!match) return sendJson(res, 404, { error: "not found" });
      const agent = agentOf(match[1]!);
      const route = match[2];
      if (route === "card.json" || route === "legacy-card.json")
        agent.requests.push({ method: "card", authorization: req.headers.authorization ?? null, body: null });
      if (route === "card.json") return sendJson(res, 200, card(base, match[1]!));
      if (route === "legacy-card.json")
        return sendJson(res, 200, { name: "legacy", protocolVersion: "0.3.0", url: `${base}/a2a/${match[1]}/rpc`, capabilities: {} });
      if (route === "requests") return sendJson(res, 200, agent.requests);
      if (route === "release") {
        const waiting = [...agent.held];
        agent.held.clear();
        for (const release of waiting) release();
        return sendJson(res, 200, { released: waiting.length });
      }
      const raw = await readBody(req);
      const body: unknown = JSON.parse(raw);
      agent.requests.push({
        method: String((body as { method?: unknown }).method),
        authorization: req.headers.authorization ?? null,
        body,
      });
      const answer = await agent.handler.handle(raw, new ServerCallContext({}));
      if (Symbol.asyncIterator in answer) return sendJson(res, 400, { error: "streaming is not scripted" });
      sendJson(res, 200, answer);
    })().catch((err: unknown) => sendJson(res, 500, { error: String(err) }));
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  base = `http://127.0.0.1:${address.port}`;
  return { url: base, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

if (process.argv[1]?.endsWith("a2a-server.ts")) {
  const at = process.argv.indexOf("--port");
  const started = await startA2aServer(at > 0 ? Number(process.argv[at + 1]) : 0);
  console.log(started.url);
}
