/**
 * `npm run demo`: starts a session on the running platform (`npm start` in another terminal)
 * and shows it live from its events stream, through the SDK: status changes, tool calls and
 * their results, the model's text as it is written; it answers the session's client tool
 * itself, then prints the answer and the usage.
 *
 *   npm run demo                       # against http://127.0.0.1:8787, tenant "demo"
 *   npm run demo -- --url http://127.0.0.1:9000 --input "What time is it in Lima?"
 */
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { createPlatformClient, expectData, followEvents } from "../sdk/src/index.ts";
import { ensureDevVars, mintDevToken, WRANGLER_JSON } from "./dev-vars.mjs";

const DEFAULT_INPUT = "What time is it in Tokyo? Check with the customer before you answer.";

/** The demo's tools: one the platform runs, one the demo itself answers as the "customer". */
export const DEMO_TOOLS = [
  { type: "builtin", name: "get_time" },
  {
    type: "client",
    name: "ask_customer",
    description: "Asks the customer a question and returns their answer.",
    input_schema: { type: "object", properties: { question: { type: "string" } }, required: ["question"] },
  },
];

const { values } = parseArgs({
  options: {
    url: { type: "string", default: "http://127.0.0.1:8787" },
    input: { type: "string", default: DEFAULT_INPUT },
    tenant: { type: "string", default: "demo" },
    // Another wrangler config: its issuer, and the .dev.vars beside it, sign the demo's token.
    config: { type: "string" },
  },
});

const configPath = values.config ? resolve(values.config) : WRANGLER_JSON;
const { key } = await ensureDevVars({ path: join(dirname(configPath), ".dev.vars") });
const token = await mintDevToken(key, { tenantId: values.tenant, subject: "demo", scopes: ["sessions:read", "sessions:write"], ttlSeconds: 3600, configPath });
const client = createPlatformClient({ baseUrl: values.url, credential: token });

// The session is created idle and its run started once the stream is open, so the stream shows
// the whole run from its first event.
const session = await expectData(client.POST("/v1/sessions", { body: { tools: DEMO_TOOLS } }));
console.log(`session ${session.id} (model ${session.model})`);
let started = false;

let writing = false;
/** Client-tool calls seen waiting; the demo answers them once the session says it waits. */
const waiting = [];
const endLine = () => {
  if (writing) process.stdout.write("\n");
  writing = false;
};

for await (const frame of followEvents(session.id, { baseUrl: values.url, credential: token })) {
  switch (frame.type) {
    case "snapshot":
    case "status":
      endLine();
      console.log(`[${frame.data.status}${frame.data.stop_reason ? `: ${frame.data.stop_reason}` : ""}]`);
      if (frame.data.status === "waiting_tool_output") await answerWaiting();
      if (!started) {
        started = true;
        console.log(`> ${values.input}`);
        await expectData(client.POST("/v1/sessions/{id}/messages", { params: { path: { id: session.id } }, body: { input: values.input } }));
      }
      break;
    case "delta":
      writing = true;
      process.stdout.write(frame.data.text);
      break;
    case "tool_call":
      endLine();
      if (frame.data.status === "pending" || frame.data.status === "waiting_tool_output" || frame.data.status === "waiting_approval") {
        console.log(`tool call ${frame.data.name} ${JSON.stringify(frame.data.input)} (${frame.data.status})`);
      }
      if (frame.data.status === "waiting_tool_output") waiting.push(frame.data.id);
      break;
    case "tool_result":
      endLine();
      console.log(`tool result ${frame.data.name}${frame.data.is_error ? " (error)" : ""}: ${frame.data.output}`);
      break;
    case "end":
      endLine();
      break;
    default:
      break;
  }
}

async function answerWaiting() {
  for (const callId of waiting.splice(0)) {
    console.log(`  the customer answers: yes, please`);
    await expectData(
      client.POST("/v1/sessions/{id}/tool-calls/{call_id}/output", {
        params: { path: { id: session.id, call_id: callId } },
        body: { output: "yes, please" },
      }),
    );
  }
}

const finished = await expectData(client.GET("/v1/sessions/{id}", { params: { path: { id: session.id } } }));
const history = await expectData(client.GET("/v1/sessions/{id}/messages", { params: { path: { id: session.id }, query: { limit: 200 } } }));
const last = history.data.at(-1);
const answer = last?.role === "assistant" ? last.content.filter((b) => b.type === "text").map((b) => b.text).join("") : "";
console.log(`\nanswer: ${answer || "(none)"}`);
const usage = finished.usage;
console.log(`${finished.status} (${finished.stop_reason}) in ${usage.steps} model calls: ${usage.input_tokens} input and ${usage.output_tokens} output tokens`);
process.exit(finished.status === "done" ? 0 : 1);
