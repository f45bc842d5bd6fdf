/**
 * Memory namespaces: 1–4 segments of `[A-Za-z0-9_@:-]{1,64}`, joined by `.` in query strings and
 * in storage. A segment cannot hold `.`, so the joined form is unambiguous and "within a prefix"
 * is a comparison of parsed segments, never of text (`users.u_1` is not within `users.u`). Pure.
 */

export const MAX_NAMESPACE_SEGMENTS = 4;
/** The namespaces a session may be granted (for reading, and for writing). */
export const MAX_GRANT_NAMESPACES = 8;
export const MAX_SEGMENT_CHARS = 64;
export const SEGMENT_PATTERN = /^[A-Za-z0-9_@:-]{1,64}$/;
/** The longest joined namespace: four segments and three dots. */
export const MAX_NAMESPACE_CHARS = MAX_NAMESPACE_SEGMENTS * MAX_SEGMENT_CHARS + MAX_NAMESPACE_SEGMENTS - 1;
/** A grant's segment filled from the session's metadata at creation: `{metadata.user_id}`. */
export const TEMPLATE_PATTERN = /^\{metadata\.([A-Za-z0-9_-]{1,64})\}$/;
/** A namespace as a query string spells it: 1-4 segments joined by `.`. */
export const JOINED_NAMESPACE_PATTERN = new RegExp(
  `^${SEGMENT_PATTERN.source.slice(1, -1)}(?:\\.${SEGMENT_PATTERN.source.slice(1, -1)}){0,${MAX_NAMESPACE_SEGMENTS - 1}}$`,
);
/** A grant's segment: a namespace segment, or a template. */
export const GRANT_SEGMENT_PATTERN = new RegExp(`^(?:${SEGMENT_PATTERN.source.slice(1, -1)}|${TEMPLATE_PATTERN.source.slice(1, -1)})$`);

export type Namespace = readonly string[];

/** Why a namespace is not one, or null. `minSegments` 0 allows the empty prefix (all of the tenant's). */
export function namespaceProblem(value: unknown, minSegments = 1): string | null {
  if (!Array.isArray(value)) return "Must be a list of segments.";
  if (value.length < minSegments || value.length > MAX_NAMESPACE_SEGMENTS)
    return `Must have ${minSegments}-${MAX_NAMESPACE_SEGMENTS} segments.`;
  for (const segment of value) {
    if (typeof segment !== "string" || !SEGMENT_PATTERN.test(segment))
      return `Each segment must be 1-${MAX_SEGMENT_CHARS} letters, digits, \`_\`, \`@\`, \`:\` or \`-\`.`;
  }
  return null;
}

export function joinNamespace(namespace: Namespace): string {
  return namespace.join(".");
}

/** A namespace as a query string gives it (`users.u_123`), or null when it is not one. */
export function parseNamespace(text: string): string[] | null {
  if (text.length > MAX_NAMESPACE_CHARS) return null;
  const segments = text.split(".");
  return namespaceProblem(segments) === null ? segments : null;
}

/** Whether `namespace` is `prefix` or below it, segment by segment. */
export function isWithin(namespace: Namespace, prefix: Namespace): boolean {
  if (prefix.length > namespace.length) return false;
  return prefix.every((segment, i) => namespace[i] === segment);
}

/** A session's access to memory: the namespaces it reads, and the ones it writes (each within a read one). */
export interface MemoryGrant {
  namespaces: string[][];
  write: string[][];
}

export type GrantResolution = { ok: true; grant: MemoryGrant } | { ok: false; errors: { path: string; message: string }[] };

/**
 * A grant as given (segments may be `{metadata.<field>}`) filled from the session's metadata; with
 * `"keep"` (an agent's definition, whose sessions bring the metadata) its templates stay as they
 * are. A field the metadata lacks is an error at `body.metadata`, one whose value is not a segment
 * an error at the field; a write namespace that no read namespace contains is one at its place.
 */
export function resolveGrant(
  grant: { namespaces: string[][]; write?: string[][] },
  metadata: Record<string, string> | null | "keep",
  path = "body.memory",
): GrantResolution {
  const errors: { path: string; message: string }[] = [];
  const fill = (list: string[][], field: "namespaces" | "write") =>
    list.map((namespace, i) =>
      namespace.map((segment, j) => {
        const template = TEMPLATE_PATTERN.exec(segment);
        if (!template || metadata === "keep") return segment;
        const name = template[1]!;
        const value = metadata === null || !Object.hasOwn(metadata, name) ? undefined : metadata[name];
        if (value === undefined)
          errors.push({
            path: "body.metadata",
            message: `Needs "${name}": the memory grant fills ${path.replace(/^body\./, "")}.${field}.${i}.${j} with it.`,
          });
        else if (!SEGMENT_PATTERN.test(value))
          errors.push({
            path: `body.metadata.${name}`,
            message: `Not a namespace segment (1-${MAX_SEGMENT_CHARS} letters, digits, \`_\`, \`@\`, \`:\` or \`-\`), which the memory grant needs.`,
          });
        return value ?? segment;
      }),
    );
  const namespaces = fill(grant.namespaces, "namespaces");
  const write = fill(grant.write ?? [], "write");
  write.forEach((namespace, i) => {
    if (!namespaces.some((read) => isWithin(namespace, read)))
      errors.push({ path: `${path}.write.${i}`, message: "Must be within one of the namespaces." });
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, grant: { namespaces, write } };
}

/** The metadata fields a grant's templates name. */
export function templateFields(grant: { namespaces: string[][]; write?: string[][] }): Set<string> {
  const fields = new Set<string>();
  for (const namespace of [...grant.namespaces, ...(grant.write ?? [])]) {
    for (const segment of namespace) {
      const template = TEMPLATE_PATTERN.exec(segment);
      if (template) fields.add(template[1]!);
    }
  }
  return fields;
}

/** Whether a session granted `grant` may read (`"read"`) or write `namespace`: structurally within one of its namespaces. */
export function grantAllows(grant: MemoryGrant, namespace: Namespace, access: "read" | "write"): boolean {
  return (access === "read" ? grant.namespaces : grant.write).some((allowed) => isWithin(namespace, allowed));
}
