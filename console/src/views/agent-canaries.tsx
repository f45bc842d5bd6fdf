/**
 * An agent's canaries: each alias's canary with its share, rule and live numbers (the agent page
 * polls, so they move as runs end), and, for callers who may change the agent, a promote and a
 * remove that ask first. A canary the platform rolled back simply disappears from here.
 */
import { useConsole } from "../context";
import type { Agent } from "../types";
import { ConfirmedButton } from "./common";

type Canary = Agent["canaries"][string];

const share = (value: number | null) => (value === null ? "–" : `${Math.round(value * 1000) / 10}%`);
const score = (value: number | null) => (value === null ? "–" : value.toFixed(2));

function ruleText(canary: Canary): string {
  const rule = canary.rollback;
  if (!rule) return "No rollback rule: only promote or remove end it.";
  const limits = [
    rule.min_score !== null ? `mean score below ${rule.min_score}` : null,
    rule.max_failure_rate !== null ? `failure rate above ${share(rule.max_failure_rate)}` : null,
  ].filter(Boolean);
  const scorers = rule.scorers.map((scorer) => scorer.name ?? scorer.type).join(", ") || "no scorers";
  return `Rolled back on ${limits.join(" or ")} after ${rule.min_runs} runs (scorers: ${scorers}).`;
}

export function AgentCanaries(props: { agent: Agent; canChange: boolean; onChanged(): void }) {
  const { agent } = props;
  const names = Object.keys(agent.canaries).sort();
  if (names.length === 0) return null;
  return (
    <section class="panel agent-canaries" aria-labelledby="canaries-title">
      <h2 id="canaries-title">Canaries</h2>
      {names.map((alias) => {
        const canary = agent.canaries[alias]!;
        return (
          <div key={alias} class="canary" data-canary={alias}>
            <p>
              <code>{alias}</code>: version {canary.version} takes {canary.percent}% of new sessions; the rest run version{" "}
              {agent.aliases[alias]}.
            </p>
            <dl class="canary-numbers">
              <dt>Runs</dt>
              <dd>{canary.runs}</dd>
              <dt>Failures</dt>
              <dd>
                {canary.failures} ({share(canary.failure_rate)})
              </dd>
              <dt>Mean score</dt>
              <dd>{score(canary.mean_score)}</dd>
            </dl>
            <p class="hint">{ruleText(canary)}</p>
            {props.canChange && (
              <div class="actions">
                <Promote agent={agent} alias={alias} canary={canary} onDone={props.onChanged} />
                <Remove agent={agent} alias={alias} onDone={props.onChanged} />
              </div>
            )}
          </div>
        );
      })}
    </section>
  );
}

function Promote(props: { agent: Agent; alias: string; canary: Canary; onDone(): void }) {
  const { api } = useConsole();
  return (
    <ConfirmedButton
      label="Promote…"
      ariaLabel={`Promote the canary of ${props.alias}…`}
      title={`Promote version ${props.canary.version} to ${props.alias}?`}
      confirmLabel="Promote"
      run={() =>
        api.call((client) =>
          client.POST("/v1/agents/{agent_id}/aliases/{alias}/promote", {
            // The version shown: a canary replaced since the page read it is a 409, never promoted unseen.
            params: { path: { agent_id: props.agent.id, alias: props.alias }, query: { expected_version: props.canary.version } },
          }),
        )
      }
      onDone={props.onDone}
    >
      <p>
        Every new session of <code>{props.alias}</code> runs version {props.canary.version}, and the canary ends. Sessions already created
        keep their version.
      </p>
    </ConfirmedButton>
  );
}

function Remove(props: { agent: Agent; alias: string; onDone(): void }) {
  const { api } = useConsole();
  const version = props.agent.aliases[props.alias]!;
  return (
    <ConfirmedButton
      label="Remove…"
      ariaLabel={`Remove the canary of ${props.alias}…`}
      title={`Remove the canary of ${props.alias}?`}
      confirmLabel="Remove the canary"
      run={() =>
        api.call((client) =>
          client.PUT("/v1/agents/{agent_id}/aliases/{alias}", {
            params: { path: { agent_id: props.agent.id, alias: props.alias } },
            body: { version },
          }),
        )
      }
      onDone={props.onDone}
    >
      <p>
        Every new session of <code>{props.alias}</code> runs version {version} again, and the canary's counts are dropped.
      </p>
    </ConfirmedButton>
  );
}
