/** The redaction setting as the settings page edits it: the choices, their labels, and the body a save sends. Pure. */
import type { TenantSettings } from "./types";

export type Redaction = NonNullable<TenantSettings["redaction"]>;
export type Detector = Redaction["detectors"][number];
export type Target = Redaction["apply_to"][number];

export const DETECTORS: readonly { value: Detector; label: string }[] = [
  { value: "email", label: "Email addresses" },
  { value: "phone", label: "Phone numbers" },
  { value: "credit_card", label: "Card numbers (Luhn-checked)" },
  { value: "iban", label: "IBANs (checksum-checked)" },
  { value: "secret", label: "Secrets (API keys, tokens, private keys)" },
];

export const TARGETS: readonly { value: Target; label: string }[] = [
  { value: "user_input", label: "User input" },
  { value: "tool_output", label: "Tool output" },
  { value: "model_output", label: "Model output" },
];

/** What a save sends: null when nothing is ticked, the setting when both lists have a tick, else what is missing. */
export function redactionChoice(
  detectors: readonly Detector[],
  applyTo: readonly Target[],
): { ok: true; redaction: Redaction | null } | { ok: false; error: string } {
  if (detectors.length === 0 && applyTo.length === 0) return { ok: true, redaction: null };
  if (detectors.length === 0) return { ok: false, error: "Choose what to find, or clear every box to redact nothing." };
  if (applyTo.length === 0) return { ok: false, error: "Choose where to redact, or clear every box to redact nothing." };
  // In the lists' order, as the platform stores them, so an unchanged form compares equal.
  return {
    ok: true,
    redaction: {
      detectors: DETECTORS.map((d) => d.value).filter((d) => detectors.includes(d)),
      apply_to: TARGETS.map((t) => t.value).filter((t) => applyTo.includes(t)),
    },
  };
}
