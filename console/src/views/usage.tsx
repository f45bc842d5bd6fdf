/**
 * Usage: a session's against its limits (`UsageMeters`), and the tenant's page (`UsagePage`): tokens and
 * cost per UTC day stacked by model, drawn as inline SVG (no chart library: the console has a size
 * budget), and the same range broken down by model, user, API key and agent.
 */
import { useConsole } from "../context";
import { formatNumber, totalTokens } from "../format";
import { unconditional, usePoll } from "../hooks";
import { routeHref } from "../route";
import type { Conditional } from "../api";
import type { Limits, Usage, UsageReport as Report, UsageRow as Row } from "../types";
import { Empty, ErrorNote, Loading, Page } from "./common";

const USAGE_POLL_MS = 60_000;
const RANGES = [7, 30, 90, 400];
/** The chart's drawing box, in SVG units; it scales to the page's width. */
const W = 640;
const H = 160;
const BREAKDOWNS = [
  ["model", "model", "Model"],
  ["created_by", "created_by", "User"],
  ["api_key", "api_key_id", "API key"],
  ["agent", "agent_id", "Agent"],
] as const;

const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const usd = (value: number | null | undefined) =>
  value === null || value === undefined ? "no price" : `$${value.toFixed(value < 1 ? 4 : 2)}`;
/** A colour per model, the same on every chart. */
const colour = (i: number) => `hsl(${(i * 67) % 360} 60% 48%)`;

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

export function UsagePage(props: { days: number }) {
  const { api, me } = useConsole();
  const to = Date.now();
  const range = { from: dayOf(to - (props.days - 1) * DAY_MS), to: dayOf(to) };
  const load = (group_by: string) => () =>
    unconditional(api.call((client) => client.GET("/v1/tenant/usage", { params: { query: { ...range, group_by } } })));
  const daily = usePoll<Report>(`usage|${props.days}|day,model`, load("day,model"), USAGE_POLL_MS);
  const title = "Usage";
  if (!me.powers.tenantAdmin)
    return (
      <Page title={title}>
        <ErrorNote message="Only tenant admins (scope tenant:admin) see the tenant's usage." />
      </Page>
    );
  const report = daily.data;
  return (
    <Page
      title={title}
      subtitle={
        report && (
          <>
            {formatNumber(totalTokens(report.totals))} tokens · {usd(report.totals.cost_usd)} · {formatNumber(report.totals.runs)} runs, UTC
            days {range.from} to {range.to}
          </>
        )
      }
      actions={
        <nav aria-label="Range" class="ranges">
          {RANGES.map((days) => (
            <a href={routeHref({ view: "usage", days })} aria-current={days === props.days ? "page" : undefined}>
              {days} days
            </a>
          ))}
        </nav>
      }
    >
      {!report ? (
        daily.error ? (
          <ErrorNote message={daily.error} retry={daily.refresh} />
        ) : (
          <Loading what="the usage" />
        )
      ) : report.data.length === 0 ? (
        <Empty>No usage in these days.</Empty>
      ) : (
        <>
          <Chart rows={report.data} days={props.days} to={to} label="Tokens per day" value={totalTokens} format={formatNumber} />
          <Chart rows={report.data} days={props.days} to={to} label="Cost per day (USD)" value={(row) => row.cost_usd ?? 0} format={usd} />
          <div class="usage-tables">
            {BREAKDOWNS.map(([by, key, name]) => (
              <Breakdown by={by} column={key} name={name} load={load(by)} days={props.days} />
            ))}
          </div>
        </>
      )}
    </Page>
  );
}

/** Stacked bars, one per day, a segment per model; each bar's title tells its figures. */
function Chart(props: {
  rows: Row[];
  days: number;
  to: number;
  label: string;
  value: (row: Row) => number;
  format: (n: number) => string;
}) {
  const models = [...new Set(props.rows.map((row) => row.model ?? "unknown"))];
  const days = Array.from({ length: props.days }, (_, i) => dayOf(props.to - (props.days - 1 - i) * DAY_MS));
  const byDay = new Map<string, Row[]>();
  for (const row of props.rows) byDay.set(row.day ?? "", [...(byDay.get(row.day ?? "") ?? []), row]);
  const totals = days.map((day) => (byDay.get(day) ?? []).reduce((sum, row) => sum + props.value(row), 0));
  const most = Math.max(...totals);
  const top = most || 1;
  const step = W / days.length;
  return (
    <figure class="usage-chart">
      <figcaption>
        {props.label}, {most ? `at most ${props.format(most)} a day` : "none"}
      </figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`${props.label}, stacked by model`} preserveAspectRatio="none">
        {days.map((day, i) => {
          let y = H;
          return (
            <g>
              <title>
                {day}: {props.format(totals[i] ?? 0)}
              </title>
              {(byDay.get(day) ?? []).map((row) => {
                const h = (props.value(row) / top) * H;
                y -= h;
                return (
                  <rect
                    x={i * step + step * 0.1}
                    y={y}
                    width={step * 0.8}
                    height={h}
                    fill={colour(models.indexOf(row.model ?? "unknown"))}
                  />
                );
              })}
            </g>
          );
        })}
      </svg>
      <ul class="legend">
        {models.map((model, i) => (
          <li>
            <span style={{ background: colour(i) }} /> {model}
          </li>
        ))}
      </ul>
    </figure>
  );
}

/** "Model" → "model", "API key" stays. */
const lower = (name: string) => name.replace(/^[A-Z][a-z]/, (first) => first.toLowerCase());

function Breakdown(props: {
  by: string;
  column: "model" | "created_by" | "api_key_id" | "agent_id";
  name: string;
  load: () => Promise<Conditional<Report>>;
  days: number;
}) {
  const report = usePoll<Report>(`usage|${props.days}|${props.by}`, props.load, USAGE_POLL_MS);
  return (
    <section aria-label={`By ${lower(props.name)}`}>
      <table>
        <caption>By {lower(props.name)}</caption>
        <thead>
          <tr>
            <th scope="col">{props.name}</th>
            <th scope="col">Runs</th>
            <th scope="col">Tokens</th>
            <th scope="col">Cost</th>
          </tr>
        </thead>
        <tbody>
          {(report.data?.data ?? []).map((row) => (
            <tr>
              <th scope="row">{row[props.column] ?? "none"}</th>
              <td>{formatNumber(row.runs)}</td>
              <td>{formatNumber(totalTokens(row))}</td>
              <td>{usd(row.cost_usd)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
