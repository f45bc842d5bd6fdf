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
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
  },
};
