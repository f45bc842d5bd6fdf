/** One eval's results: its progress and means, and a table of its items, per scorer, each with the session behind it. */
import { useConsole } from "../context";
import { unconditional, usePoll } from "../hooks";
import { routeHref } from "../route";
import type { Eval } from "../types";
import { Ago, ErrorNote, Page } from "./common";
import { ScoreList, UnreadPage } from "./evals";

/** A running eval moves once a second; the page follows it at this pace. */
const EVAL_POLL_MS = 2_000;

export function EvalPage(props: { id: string }) {
  const { api } = useConsole();
  const found = usePoll<Eval>(
    `eval|${props.id}`,
    () => unconditional(api.call((client) => client.GET("/v1/evals/{id}", { params: { path: { id: props.id } } }))),
    EVAL_POLL_MS,
  );
  const data = found.data;
  if (!data) return <UnreadPage title="Eval" what="eval" id={props.id} read={found} />;
  return (
    <Page
      title={`Eval ${data.id}`}
      subtitle={
        <>
          {data.status} · {data.progress.finished}/{data.progress.total} items · agent{" "}
          <a href={routeHref({ view: "agent", id: data.agent.agent_id, from: null, to: null })}>
            <code>{data.agent.agent_id}</code>
          </a>{" "}
          v{data.agent.version} · dataset <a href={routeHref({ view: "dataset", id: data.dataset_id })}>{data.dataset_id}</a> (version{" "}
          {data.dataset_version}) · started <Ago iso={data.created_at} />
        </>
      }
    >
      <p>
        Means: <ScoreList scores={data.scores} /> · cost ${data.cost_usd.toFixed(4)}
        {data.judge_cost_usd > 0 && ` (judges $${data.judge_cost_usd.toFixed(4)})`}
        {data.duration_ms !== null && ` · ${Math.round(data.duration_ms / 100) / 10} s`}
      </p>
      {data.error && <ErrorNote message={data.error} />}
      <table class="eval-items responsive">
        <caption class="visually-hidden">Items, in dataset order</caption>
        <thead>
          <tr>
            <th scope="col">Item</th>
            <th scope="col">Status</th>
            {data.scorer_keys.map((key) => (
              <th scope="col" key={key}>
                {key}
              </th>
            ))}
            <th scope="col">Steps</th>
            <th scope="col">Cost</th>
          </tr>
        </thead>
        <tbody>
          {data.items.map((item) => (
            <tr key={item.index} data-item={item.index}>
              <th scope="row" data-label="Item">
                {item.session_id && item.status !== "pending" ? (
                  <a href={routeHref({ view: "session", id: item.session_id })}>#{item.index}</a>
                ) : (
                  `#${item.index}`
                )}
              </th>
              <td data-label="Status">
                {item.status}
                {item.error && <span class="muted"> — {item.error}</span>}
              </td>
              {data.scorer_keys.map((key) => {
                const score = item.scores[key];
                return (
                  <td key={key} data-label={key} title={score?.reason}>
                    {score === undefined ? "—" : score.score === null ? <em>null</em> : score.score.toFixed(2)}
                  </td>
                );
              })}
              <td data-label="Steps">{item.steps ?? "—"}</td>
              <td data-label="Cost">{item.cost_usd === null ? "—" : `$${item.cost_usd.toFixed(4)}`}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Page>
  );
}
