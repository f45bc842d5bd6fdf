/**
 * The command line `npm run dev` and `npm start` (scripts/dev.mjs) give `wrangler dev`: pure, so a
 * test can read what the local platform runs with. wrangler.json holds the deployed values; the
 * local ones are laid over them here, above all `RUN_CODE_ISOLATE=interpreter`, since a local
 * runtime enforces no CPU limit on a Dynamic Worker (src/local-runtime.ts refuses it too).
 */
import { join } from "node:path";
import { MOCK_PROVIDER_KEY } from "../src/models/mock.ts";

/** Variables every local run overrides, whatever the provider. */
export const LOCAL_VARS = { RUN_CODE_ISOLATE: "interpreter" };
export const PROVIDER_KEY = "ANTHROPIC_API_KEY";
/**
 * The mock ignores the key, but the platform refuses to call a provider without one; this one
 * also tells the platform its model is the mock, whose runs cost nothing (src/models/prices.ts).
 */
export { MOCK_PROVIDER_KEY };

/** The value of `--name v` or `--name=v` in `args`, or undefined. */
export function argValue(args, name) {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === name) return args[i + 1];
    if (args[i].startsWith(`${name}=`)) return args[i].slice(name.length + 1);
  }
  return undefined;
}

/** `args` without `--name v` / `--name=v`. */
export function withoutArg(args, name) {
  const out = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === name) i++;
    else if (!args[i].startsWith(`${name}=`)) out.push(args[i]);
  }
  return out;
}

/**
 * `wrangler dev`'s arguments for one start. `mode` is where the provider key comes from: the mock
 * (`mockUrl`), `.dev.vars`, or the environment (`envFile`, a private file holding the key, which
 * then needs `.dev.vars` named too, since an explicit env file replaces it).
 */
export function wranglerDevArgs({ root, mode, mockUrl, envFile, devVarsPath, userArgs = [] }) {
  const args = ["dev", "--show-interactive-dev-session=false"];
  if (argValue(userArgs, "--persist-to") === undefined) args.push("--persist-to", join(root, ".wrangler", "state"));
  for (const [name, value] of Object.entries(LOCAL_VARS)) args.push("--var", `${name}:${value}`);
  if (mode === "mock") {
    args.push("--var", `LLM_BASE_URL:${mockUrl}`, "--var", `${PROVIDER_KEY}:${MOCK_PROVIDER_KEY}`, "--var", "ALLOW_PRIVATE_URLS:true");
  } else if (mode === "environment") {
    args.push("--env-file", devVarsPath, "--env-file", envFile);
  }
  return [...args, ...userArgs];
}

/** The variables a start sees: wrangler.json's `vars` with every `--var name:value` of `args` laid over them. */
export function effectiveVars(configVars, args) {
  const vars = { ...configVars };
  for (let i = 0; i < args.length; i++) {
    if (args[i] !== "--var") continue;
    const pair = args[i + 1];
    const colon = pair.indexOf(":");
    vars[pair.slice(0, colon)] = pair.slice(colon + 1);
  }
  return vars;
}
