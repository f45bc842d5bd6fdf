/**
 * `npm run lint:spectral`: every string, array, integer and map a caller sends is bounded in
 * openapi/openapi.json. Two checks over the request side of the document (request bodies and
 * parameters, and every component they reach): a walk of its schemas, fast and without
 * dependencies, and Spectral with the OWASP size-limit rules of `.spectral.yaml`. Spectral lints
 * the whole document; what it says of responses only is counted, not failed: a response's bound
 * is the server's own output, stated where known.
 */
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DOCUMENT = fileURLToPath(new URL("../openapi/openapi.json", import.meta.url));
const SPECTRAL = fileURLToPath(new URL("../node_modules/@stoplight/spectral-cli/dist/index.js", import.meta.url));
const SCHEMA_REF = "#/components/schemas/";

export async function readDocument() {
  return JSON.parse(await readFile(DOCUMENT, "utf8"));
}

/** The names of the components a request body or parameter reaches, through any number of references. */
export function requestComponents(document) {
  const reached = new Set();
  const visit = (node) => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== "object") return;
    if (typeof node.$ref === "string" && node.$ref.startsWith(SCHEMA_REF)) {
      const name = node.$ref.slice(SCHEMA_REF.length);
      if (!reached.has(name)) {
        reached.add(name);
        visit(document.components.schemas[name]);
      }
    }
    for (const [key, value] of Object.entries(node)) if (key !== "example" && key !== "examples") visit(value);
  };
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item)) {
      if (!operation || typeof operation !== "object") continue;
      visit(operation.parameters);
      visit(operation.requestBody);
    }
  }
  return reached;
}

/** Each request-side location, as a JSON pointer's parts, with its value. */
function requestRoots(document) {
  const roots = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      if (!operation || typeof operation !== "object") continue;
      if (operation.parameters) roots.push([["paths", path, method, "parameters"], operation.parameters]);
      if (operation.requestBody) roots.push([["paths", path, method, "requestBody"], operation.requestBody]);
    }
  }
  for (const name of requestComponents(document)) roots.push([["components", "schemas", name], document.components.schemas[name]]);
  return roots;
}

const has = (schema, ...keys) => keys.some((key) => schema[key] !== undefined);

/** What one schema node lacks; a node is a schema when it has a `type` (as Spectral's rules read it). */
function problemsOf(schema) {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const problems = [];
  if (types.includes("string") && !has(schema, "maxLength", "enum", "const")) problems.push("a string without maxLength, enum or const");
  if (types.includes("array") && !has(schema, "maxItems")) problems.push("an array without maxItems");
  if (types.includes("integer") && !(has(schema, "minimum", "exclusiveMinimum") && has(schema, "maximum", "exclusiveMaximum"))) {
    problems.push("an integer without minimum and maximum");
  }
  if (types.includes("integer") && !has(schema, "format")) problems.push("an integer without format");
  // A map of caller entries (string labels, headers); a free-form JSON value (a schema) is bounded by its length.
  const entries = schema.additionalProperties;
  if (types.includes("object") && entries && typeof entries === "object" && entries.type !== undefined && !has(schema, "maxProperties")) {
    problems.push("a map without maxProperties");
  }
  return problems;
}

/** Every request-side schema that lacks a bound: `<JSON pointer>: <what it lacks>`. */
export function requestSchemaProblems(document) {
  const found = [];
  const visit = (node, pointer) => {
    if (Array.isArray(node)) return node.forEach((item, i) => visit(item, [...pointer, String(i)]));
    if (!node || typeof node !== "object") return;
    if (typeof node.type === "string" || Array.isArray(node.type)) {
      for (const problem of problemsOf(node)) found.push(`${pointer.join("/")}: ${problem}`);
    }
    for (const [key, value] of Object.entries(node)) if (key !== "example" && key !== "examples") visit(value, [...pointer, key]);
  };
  for (const [pointer, node] of requestRoots(document)) visit(node, pointer);
  return found;
}

/** Whether a Spectral finding's path is on the request side. */
function isRequestPath(path, components) {
  if (path[0] === "paths") return path[3] === "parameters" || path[3] === "requestBody";
  return path[0] === "components" && path[1] === "schemas" && components.has(path[2]);
}

/** Spectral's findings with `.spectral.yaml`, split into the request side (`request`) and the rest (`responses`, and their count). */
export async function spectralFindings(document) {
  const run = promisify(execFile)(
    process.execPath,
    [SPECTRAL, "lint", DOCUMENT, "--ruleset", ".spectral.yaml", "--format", "json", "--quiet"],
    {
      cwd: ROOT,
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  // Spectral exits non-zero when it finds anything; its JSON is on stdout either way.
  const { stdout } = await run.catch((error) => {
    if (typeof error.stdout === "string" && error.stdout.trim().startsWith("[")) return error;
    throw new Error(`spectral failed: ${error.stderr ?? error.message}`);
  });
  const findings = JSON.parse(stdout);
  const components = requestComponents(document);
  const named = (finding) => `${finding.code} ${finding.path.join("/")}`;
  const request = findings.filter((finding) => isRequestPath(finding.path, components)).map(named);
  const responses = findings.filter((finding) => !isRequestPath(finding.path, components)).map(named);
  return { request, responses, others: responses.length };
}

if (import.meta.url === new URL(process.argv[1] ?? "", "file:").href) {
  const document = await readDocument();
  const walked = requestSchemaProblems(document);
  const spectral = await spectralFindings(document);
  for (const line of [...walked, ...spectral.request]) console.error(line);
  console.log(
    `request schemas: ${walked.length} unbounded, ${spectral.request.length} Spectral findings; responses: ${spectral.others} Spectral findings (not failed).`,
  );
  if (walked.length > 0 || spectral.request.length > 0) process.exit(1);
}
