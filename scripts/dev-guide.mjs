/**
 * What `npm start` prints once the platform answers: the tokens and copy-paste `curl` lines of
 * a first run that shows tool calls, an approval and a client tool. Pure: text from values.
 */

/** A webhook tool needs somewhere to call: the mock server answers `/hook/<key>` itself. */
function exampleTools(mockUrl) {
  const confirm = {
    type: "client",
    name: "confirm_with_customer",
    description: "Asks the customer to confirm; your backend posts the answer.",
    input_schema: { type: "object", properties: { question: { type: "string" } }, required: ["question"] },
  };
  if (!mockUrl) return [{ type: "builtin", name: "get_time", requires_approval: true }, confirm];
  return [
    { type: "builtin", name: "get_time" },
    {
      type: "webhook",
      name: "lookup_order",
      description: "Finds an order by its id.",
      input_schema: { type: "object", properties: { order_id: { type: "string", pattern: "^ord_[0-9]{6}$" } }, required: ["order_id"] },
      url: `${mockUrl}/hook/demo`,
      requires_approval: true,
    },
    confirm,
  ];
}

/**
 * The guide. `mockUrl` is set when the mock model stands in for the provider; the example
 * then also has a webhook tool that the mock server answers.
 */
export function quickStartGuide({ baseUrl, token, adminToken, tenantId, ttlHours, mockUrl = null }) {
  const body = JSON.stringify({ input: "What time is it, and where is order ord_123456?", tools: exampleTools(mockUrl) });
  const auth = `-H "Authorization: Bearer $TOKEN"`;
  const pick = (expression) => `| pick '${expression}'`;
  const waiting = (status) =>
    `CALL=$(curl -s $BASE/v1/sessions/$SESSION/tool-calls ${auth} ${pick(`v.data.find((c) => c.status === "${status}").id`)})`;
  return [
    `The platform is ready on ${baseUrl} (API reference: ${baseUrl}/docs; console: ${baseUrl}/console, sign in with TOKEN or ADMIN_TOKEN).`,
    "",
    `In another terminal, first these lines (the platform's address, tokens valid ${ttlHours} h, and \`pick\`, which reads a field`,
    "of a JSON answer with node, so nothing else is needed); the README's and the docs' examples use them too:",
    "",
    `  export BASE=${baseUrl}`,
    `  export TOKEN=${token}`,
    `  export ADMIN_TOKEN=${adminToken}`,
    `  pick() { node -pe "const v = JSON.parse(require('fs').readFileSync(0, 'utf8')); $1"; }`,
    "",
    `TOKEN is a tenant:admin of tenant "${tenantId}", which holds every tenant scope (agents:write and the memory scopes too);`,
    `ADMIN_TOKEN has platform:admin (more: npm run token -- --tenant acme --scope "sessions:read sessions:write").`,
    `\`npm run demo\` shows a run live. A first run, step by step (each step takes a moment):`,
    "",
    `  SESSION=$(curl -s $BASE/v1/sessions ${auth} -H 'Content-Type: application/json' -d '${body}' ${pick("v.id")})`,
    `  curl -s $BASE/v1/sessions/$SESSION ${auth}`,
    `  curl -s $BASE/v1/sessions/$SESSION/tool-calls ${auth}`,
    `  ${waiting("waiting_approval")}`,
    `  curl -s -X POST $BASE/v1/sessions/$SESSION/tool-calls/$CALL/approve ${auth}`,
    `  ${waiting("waiting_tool_output")}`,
    `  curl -s -X POST $BASE/v1/sessions/$SESSION/tool-calls/$CALL/output ${auth} -H 'Content-Type: application/json' -d '{"output": "Yes, Friday is fine."}'`,
    `  curl -s $BASE/v1/sessions/$SESSION/messages ${auth} ${pick("v.data.at(-1).content[0].text")}`,
    `  curl -s $BASE/v1/admin/tenants -H "Authorization: Bearer $ADMIN_TOKEN"`,
    "",
  ].join("\n");
}
