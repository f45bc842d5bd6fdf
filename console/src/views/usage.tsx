/** A session's usage against its limits: tokens against the session's budget, steps against the per-run cap. */
import { formatNumber, totalTokens } from "../format";
import type { Limits, Usage } from "../types";

export function UsageMeters(props: { usage: Usage; limits: Limits }) {
  const tokens = totalTokens(props.usage);
  const budget = props.limits.max_tokens_per_session;
  return (
    <section class="usage" aria-labelledby="usage-title">
      <h2 id="usage-title">Usage</h2>
      <div class="meter-row">
        <label for="usage-tokens">Tokens</label>
        <meter id="usage-tokens" min={0} max={budget} low={budget * 0.7} high={budget * 0.9} optimum={0} value={tokens} />
        <span>
          {formatNumber(tokens)} of {formatNumber(budget)}
        </span>
      </div>
      <dl class="facts">
        <dt>Model steps</dt>
        <dd>
          {formatNumber(props.usage.steps)} (at most {formatNumber(props.limits.max_steps_per_run)} per run)
        </dd>
        <dt>Input / output</dt>
        <dd>
          {formatNumber(props.usage.input_tokens)} / {formatNumber(props.usage.output_tokens)}
        </dd>
        <dt>Cache read / written</dt>
        <dd>
          {formatNumber(props.usage.cache_read_tokens)} / {formatNumber(props.usage.cache_write_tokens)}
        </dd>
        <dt>Per model call</dt>
        <dd>at most {formatNumber(props.limits.max_tokens_per_call)} tokens</dd>
      </dl>
    </section>
  );
}
