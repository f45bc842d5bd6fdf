/**
 * Import rules for src/, checked by `npm run lint:deps`. Type-only imports count too: a cycle
 * through types still ties the modules' designs together.
 */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "Modules must not import each other, directly or through others (type imports included).",
      from: {},
      to: { circular: true },
    },
    {
      name: "frozen-migrations",
      severity: "error",
      comment:
        "A storage migration never calls live code, which may change after it: it imports the migration runner " +
        "alone (and its own types), and keeps what else it needs as that version had it.",
      from: { path: "^src/.+/migrations\\.ts$", pathNot: "^src/storage/migrations\\.ts$" },
      to: { pathNot: "^src/storage/migrations\\.ts$", dependencyTypesNot: ["type-only"] },
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
