/**
 * The tenant's redaction setting on the settings page: what to find and where, saved with every
 * other setting as it was read (the route replaces the settings as a whole).
 */
import { useState } from "preact/hooks";
import { useConsole } from "../context";
import { useAction } from "../hooks";
import { DETECTORS, redactionChoice, TARGETS, type Detector, type Target } from "../redaction";
import type { TenantSettings } from "../types";

/** `saved` is kept by the page: the form is made afresh from the settings read again after a save. */
export function RedactionForm(props: { settings: TenantSettings; saved: boolean; onEdited(): void; onSaved(): void }) {
  const { api } = useConsole();
  const action = useAction();
  const [detectors, setDetectors] = useState<Detector[]>(props.settings.redaction?.detectors ?? []);
  const [applyTo, setApplyTo] = useState<Target[]>(props.settings.redaction?.apply_to ?? []);
  const [problem, setProblem] = useState<string | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    props.onEdited();
    const choice = redactionChoice(detectors, applyTo);
    setProblem(choice.ok ? null : choice.error);
    if (!choice.ok) return;
    const body = { ...props.settings, redaction: choice.redaction };
    if (await action.run(() => api.call((client) => client.PUT("/v1/tenant/settings", { body })))) props.onSaved();
  };
  const toggle = <T,>(list: T[], set: (next: T[]) => void, value: T, on: boolean) => {
    props.onEdited();
    set(on ? [...list, value] : list.filter((v) => v !== value));
  };
  const error = problem ?? action.error;
  return (
    <form class="panel" onSubmit={submit} aria-labelledby="redaction-title">
      <h2 id="redaction-title">Redaction</h2>
      <p class="muted">
        Matches are replaced by <code>[redacted:&lt;detector&gt;]</code> before they are stored or sent to a model; the original is never
        kept. Runs started after a save use the new setting.
      </p>
      <fieldset class="field">
        <legend>Find</legend>
        {DETECTORS.map(({ value, label }) => (
          <label key={value} class="check">
            <input
              type="checkbox"
              name="redaction-detector"
              value={value}
              checked={detectors.includes(value)}
              onChange={(e) => toggle(detectors, setDetectors, value, (e.target as HTMLInputElement).checked)}
            />{" "}
            {label}
          </label>
        ))}
      </fieldset>
      <fieldset class="field">
        <legend>In</legend>
        {TARGETS.map(({ value, label }) => (
          <label key={value} class="check">
            <input
              type="checkbox"
              name="redaction-target"
              value={value}
              checked={applyTo.includes(value)}
              onChange={(e) => toggle(applyTo, setApplyTo, value, (e.target as HTMLInputElement).checked)}
            />{" "}
            {label}
          </label>
        ))}
      </fieldset>
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      {props.saved && (
        <p class="result" role="status">
          Saved.
        </p>
      )}
      <div class="actions">
        <button type="submit" class="primary" disabled={action.pending}>
          {action.pending ? "Saving…" : "Save redaction"}
        </button>
      </div>
    </form>
  );
}
