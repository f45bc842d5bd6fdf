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
        "alone (and its own types), and keeps what else it needs as that version had it. A list split in parts " +
        "(`migrations-1-to-12.ts`) imports its frozen parts, nothing else.",
      from: { path: ["^src/.+/migrations\\.ts$", "^src/.+/migrations-[a-z0-9-]+\\.ts$"], pathNot: "^src/storage/migrations\\.ts$" },
      to: { pathNot: ["^src/storage/migrations\\.ts$", "^src/.+/migrations-[a-z0-9-]+\\.ts$"], dependencyTypesNot: ["type-only"] },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
  },
};
