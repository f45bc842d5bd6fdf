/**
 * Import rules for src/, checked by `npm run lint:deps`. Type-only imports count too: a cycle
 * through types still ties the modules' designs together.
 */

/**
 * The top-level folders (and files) of src/, top to bottom, in layers: a folder imports only what
 * is listed after it, so no two folders can form a cycle. docs/layout.md explains each layer.
 */
const LAYERS = [
  // the edges: the Worker's entry, routes and protocol adapters
  ["index.ts", "api", "mcp-server", "a2a", "ag-ui", "chat"],
  // operations and their objects
  ["schedules", "lifecycle", "sessions"],
  // the per-tenant stores and the cross-cutting records
  ["agents", "evals", "memory", "vault", "traces", "tenants", "notifications", "audit", "usage", "policy"],
  // shared rules the layers above use; the parsed configuration sits above the model catalog and session settings it parses
  ["auth", "config.ts", "session-config", "models", "egress"],
  // the base: bindings, names, logs, storage helpers, problems, pure helpers, limits
  ["env.ts", "objects.ts", "log.ts", "local-runtime.ts", "storage", "problems.ts", "shared", "limits.ts"],
];
const ORDER = LAYERS.flat();

const escape = (name) => name.replace(/[.]/g, "\\.");
/** `src/<name>` as a folder or as a file. */
const pathOf = (names) => `^src/(${names.map(escape).join("|")})($|/)`;

/** One rule per listed folder: nothing above it. */
const layerRules = ORDER.slice(1).map((name, i) => ({
  name: `layer:${name}`,
  severity: "error",
  comment:
    `src/${name} imports only what is listed after it in .dependency-cruiser.cjs's LAYERS (${ORDER.slice(i + 2).join(", ")}); ` +
    `an upward call is an interface declared here and injected from above.`,
  from: { path: pathOf([name]) },
  to: { path: pathOf(ORDER.slice(0, i + 1)) },
}));

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "Modules must not import each other, directly or through others (type imports included).",
      from: {},
      to: { circular: true },
    },
    ...layerRules,
    {
      name: "layer:unlisted",
      severity: "error",
      comment: "Every top-level folder and file of src/ has its place in LAYERS (.dependency-cruiser.cjs).",
      from: { path: "^src/", pathNot: pathOf(ORDER) },
      to: {},
    },
    {
      name: "frozen-migrations",
      severity: "error",
      comment:
        "A storage migration never calls live code, which may change after it: it imports the migration runner " +
        "alone (and its own types), and keeps what else it needs as that version had it. A list split in parts " +
        "(`migrations-1-to-12.ts`) imports its frozen parts, nothing else.",
      from: { path: ["^src/.+/migrations\\.ts$", "^src/.+/migrations-[a-z0-9-]+\\.ts$"], pathNot: "^src/storage/migrations\\.ts$" },
      to: { pathNot: ["^src/storage/migrations\\.ts$", "^src/.+/migrations-[a-z0-9-]+\\.ts$"], dependencyTypesNot: ["type-only"] },
    },
    {
      name: "only-wake-runs-units",
      severity: "error",
      comment:
        "Units run from the alarm's wake alone (control/wake.ts), after its stages checked the session exists and " +
        "took its slot: a unit run from anywhere else would skip them.",
      from: { pathNot: "^src/sessions/object/control/wake\\.ts$" },
      to: { path: "^src/sessions/object/loop/units\\.ts$" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
  },
};
