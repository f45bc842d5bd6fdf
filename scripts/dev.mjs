/**
 * `npm start`: makes sure `.dev.vars` has a development signing key, prints a token to try the
 * API with, then runs `wrangler dev` with its state kept in `.wrangler/state` across restarts.
 * Extra arguments go to wrangler (`npm start -- --port 9000`).
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { ensureDevVars, mintDevToken, DEV_TOKEN_TTL_SECONDS } from "./dev-vars.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const wrangler = fileURLToPath(new URL("../node_modules/.bin/wrangler", import.meta.url));

const { key, created } = await ensureDevVars();
if (created) console.log("Created .dev.vars with a fresh development signing key.");
const token = await mintDevToken(key);
console.log(`\nA token for tenant "dev" (tenant:admin, valid ${DEV_TOKEN_TTL_SECONDS / 3600} h):\n\n  export TOKEN=${token}\n`);
const portAt = process.argv.indexOf("--port");
const port = portAt > 0 ? process.argv[portAt + 1] : "8787";
console.log(`  curl -H "Authorization: Bearer $TOKEN" http://127.0.0.1:${port}/v1/tenant\n`);

const child = spawn(wrangler, ["dev", "--persist-to", ".wrangler/state", ...process.argv.slice(2)], {
  cwd: root,
  stdio: "inherit",
  env: { WRANGLER_SEND_METRICS: "false", ...process.env },
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
