/**
 * The tenant's redaction setting: which detectors run and on which content. Pure; the shape the
 * tenant index stores, the gateway checks and a session's run carries.
 */

export const REDACTION_DETECTORS = ["email", "phone", "credit_card", "iban", "secret"] as const;
export type RedactionDetector = (typeof REDACTION_DETECTORS)[number];

export const REDACTION_TARGETS = ["user_input", "tool_output", "model_output"] as const;
export type RedactionTarget = (typeof REDACTION_TARGETS)[number];

export interface RedactionSettings {
  detectors: RedactionDetector[];
  apply_to: RedactionTarget[];
}

/** The detectors to run on content of kind `target`, or none (an empty list) when the setting leaves it alone. */
export function detectorsFor(settings: RedactionSettings | null | undefined, target: RedactionTarget): readonly RedactionDetector[] {
  if (!settings || !settings.apply_to.includes(target)) return [];
  return settings.detectors;
}

/**
 * The check of an RPC boundary (the gateway's schema checked the request already): null, or both
 * lists of known names, repeats dropped, in the order of the lists above so equal settings compare equal.
 */
export function parseRedaction(value: unknown): RedactionSettings | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== "object" || Array.isArray(value)) throw new TypeError("redaction must be null or an object");
  const { detectors, apply_to: applyTo } = value as Record<string, unknown>;
  return {
    detectors: knownNames("redaction.detectors", detectors, REDACTION_DETECTORS),
    apply_to: knownNames("redaction.apply_to", applyTo, REDACTION_TARGETS),
  };
}

function knownNames<T extends string>(field: string, value: unknown, names: readonly T[]): T[] {
  if (!Array.isArray(value) || value.length === 0) throw new TypeError(`${field} must be a non-empty list`);
  for (const name of value) {
    if (!names.includes(name as T)) throw new TypeError(`${field}: ${String(name)} is not one of ${names.join(", ")}`);
  }
  return names.filter((name) => value.includes(name));
}
