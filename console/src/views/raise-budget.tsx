/**
 * The button that lets a run waiting in `waiting_budget` go on: a tenant admin raises the session's
 * token budget (PATCH /v1/sessions/{id}), and its cost budget too when it has one, by the factor chosen.
 */
import { useState } from "preact/hooks";
import { useConsole } from "../context";
import { useAction } from "../hooks";
import type { Limits, Session } from "../types";

type BudgetWait = NonNullable<Session["budget_wait"]>;

/** The factor offered first: twice the budget lets a run that stopped once go about as far again. */
const DEFAULT_FACTOR = 2;

/** What each budget a run may wait on is called on the page. */
const BUDGET_LABELS: Record<BudgetWait["budget"], string> = {
  session_tokens: "this session's token budget",
  session_cost: "this session's cost budget",
  tenant_tokens: "the tenant's daily token budget",
  tenant_cost: "the tenant's daily cost budget",
  subject_tokens: "its creator's daily token budget",
  key_tokens: "its API key's daily token budget",
};

export function RaiseBudget(props: { id: string; limits: Limits; wait: BudgetWait | null; onChanged(): void }) {
  const { api } = useConsole();
  const action = useAction();
  const [tokens, setTokens] = useState(String(props.limits.max_tokens_per_session * DEFAULT_FACTOR));
  const cost = props.limits.max_cost_usd_per_session ?? null;

  const raise = () =>
    action.run(async () => {
      const asked = Number(tokens);
      const limits = {
        max_tokens_per_session: asked,
        ...(cost === null ? {} : { max_cost_usd_per_session: (cost * asked) / props.limits.max_tokens_per_session }),
      };
      await api.call((client) => client.PATCH("/v1/sessions/{id}", { params: { path: { id: props.id } }, body: { limits } }));
      props.onChanged();
    });

  return (
    <form
      class="controls raise-budget"
      onSubmit={(event) => {
        event.preventDefault();
        void raise();
      }}
    >
      {props.wait && (
        <p class="hint">
          Waits on {BUDGET_LABELS[props.wait.budget]}
          {props.wait.resumes_at && <> until {new Date(props.wait.resumes_at).toLocaleString()}</>}.
        </p>
      )}
      <label>
        Token budget{" "}
        <input type="number" min={1} step={1} value={tokens} onInput={(event) => setTokens(event.currentTarget.value)} required />
      </label>
      <button type="submit" class="primary" disabled={action.pending}>
        Raise budget
      </button>
      {action.error && (
        <p class="form-error" role="alert">
          {action.error}
        </p>
      )}
    </form>
  );
}
