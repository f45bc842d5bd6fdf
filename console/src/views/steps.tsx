/** Per-step timings (`GET …/steps`): each unit's kind, wait, duration against the longest, tokens and outcome. */
import { formatDuration, formatNumber } from "../format";
import type { Step } from "../types";
import { Empty, Loading } from "./common";

/** The newest steps shown; the rest are summed. */
const SHOWN_STEPS = 50;

export function Steps(props: { steps: Step[] | null }) {
  const { steps } = props;
  return (
    <section class="steps" aria-labelledby="steps-title">
      <h2 id="steps-title">Steps</h2>
      {steps === null ? (
        <Loading what="steps" />
      ) : steps.length === 0 ? (
        <Empty>
          <p>No steps yet.</p>
        </Empty>
      ) : (
        <StepTable steps={steps} />
      )}
    </section>
  );
}

function StepTable(props: { steps: Step[] }) {
  const shown = props.steps.slice(-SHOWN_STEPS);
  const longest = Math.max(1, ...shown.map((step) => step.duration_ms));
  const total = props.steps.reduce((sum, step) => sum + step.duration_ms, 0);
  return (
    <>
      <p class="muted">
        {props.steps.length} {props.steps.length === 1 ? "step" : "steps"}, {formatDuration(total)} of work
        {props.steps.length > shown.length && ` (the newest ${shown.length} shown)`}
      </p>
      <table class="step-table responsive">
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">Kind</th>
            <th scope="col" class="num">
              Waited
            </th>
            <th scope="col">Took</th>
            <th scope="col" class="num">
              Tokens in / out
            </th>
            <th scope="col">Outcome</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((step) => (
            <tr key={step.seq} class={`outcome-${step.outcome}`}>
              <th scope="row" data-label="#">
                {step.seq}
              </th>
              <td data-label="Kind">{step.kind}</td>
              <td data-label="Waited" class="num">
                {formatDuration(step.queued_ms)}
              </td>
              <td data-label="Took">
                <meter min={0} max={longest} value={step.duration_ms} aria-hidden="true" /> {formatDuration(step.duration_ms)}
              </td>
              <td data-label="Tokens" class="num">
                {step.input_tokens === null ? "—" : `${formatNumber(step.input_tokens)} / ${formatNumber(step.output_tokens)}`}
              </td>
              <td data-label="Outcome">{step.outcome}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
