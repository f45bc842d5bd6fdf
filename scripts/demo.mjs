/**
 * `npm run demo`: runs a session on the running platform (`npm start` in another terminal) with
 * the SDK's `runSession`, and shows it live from its events stream: status changes, tool calls
 * and their results, the model's text as it is written. It answers the session's client tool
 * itself (the "customer"), then prints the answer and the usage.
 *
 *   npm run demo                       # against the platform `npm start` runs, on its port
 *   npm run demo -- --url http://127.0.0.1:9000 --input "What time is it in Lima?"
 */
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { createPlatformClient, runSession } from "../sdk/src/index.ts";
import { answers, findDevServer } from "./dev-server.mjs";
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
    // Default: where the running `npm start` (with this config) says its platform answers.
    url: { type: "string" },
    input: { type: "string", default: DEFAULT_INPUT },
    tenant: { type: "string", default: "demo" },
    // Another wrangler config: its issuer, and the .dev.vars beside it, sign the demo's token.
    config: { type: "string" },
  },
});

const configPath = values.config ? resolve(values.config) : WRANGLER_JSON;
let baseUrl = values.url;
if (baseUrl === undefined) {
  const found = await findDevServer(configPath);
  if (!found.url) {
    console.error(found.problem);
    process.exit(1);
  }
  baseUrl = found.url;
} else if (!(await answers(baseUrl))) {
  console.error(`No platform answers on ${baseUrl}: is \`npm start\` running, and on that port?`);
  process.exit(1);
}
console.log(`platform ${baseUrl}`);

const { key } = await ensureDevVars({ path: join(dirname(configPath), ".dev.vars") });
const token = await mintDevToken(key, {
  tenantId: values.tenant,
  subject: "demo",
  scopes: ["sessions:read", "sessions:write"],
  ttlSeconds: 3600,
  configPath,
});
const client = createPlatformClient({ baseUrl, credential: token });

let writing = false;
const endLine = () => {
  if (writing) process.stdout.write("\n");
  writing = false;
};

console.log(`> ${values.input}`);
const run = await runSession(
  client,
  { input: values.input, tools: DEMO_TOOLS },
  {
    tools: {
      ask_customer: () => {
        console.log("  the customer answers: yes, please");
        return "yes, please";
      },
    },
    onEvent: (frame) => {
      switch (frame.type) {
        case "status":
          endLine();
          console.log(`[${frame.data.status}${frame.data.stop_reason ? `: ${frame.data.stop_reason}` : ""}]`);
          break;
        case "delta":
          if (frame.data.kind === "reasoning") break;
          writing = true;
          process.stdout.write(frame.data.text);
          break;
        case "tool_call":
          endLine();
          if (frame.data.status === "pending" || frame.data.status === "waiting_tool_output" || frame.data.status === "waiting_approval") {
            console.log(`tool call ${frame.data.name} ${JSON.stringify(frame.data.input)} (${frame.data.status})`);
          }
          break;
        case "tool_result":
          endLine();
          console.log(`tool result ${frame.data.name}${frame.data.is_error ? " (error)" : ""}: ${frame.data.output}`);
          break;
        default:
          break;
      }
    },
  },
).catch((error) => {
  endLine();
  console.error(`The demo's session failed: ${error?.message ?? error}`);
  process.exit(1);
});
endLine();

const { session, answer, usage } = run;
console.log(`session ${session.id} (model ${session.model})`);
console.log(`\nanswer: ${answer || "(none)"}`);
console.log(
  `${session.status} (${session.stop_reason}) in ${usage.steps} model calls: ${usage.input_tokens} input and ${usage.output_tokens} output tokens`,
);
process.exit(session.status === "done" ? 0 : 1);
