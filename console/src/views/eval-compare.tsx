/** Two evals compared item by item: each scorer's change, the regressed items first, each with both sessions. */
import { useConsole } from "../context";
import { unconditional, usePoll } from "../hooks";
import { routeHref } from "../route";
import type { EvalComparison } from "../types";
import { ErrorNote, Loading, Page } from "./common";

export function EvalComparePage(props: { a: string; b: string }) {
  const { api } = useConsole();
  const found = usePoll<EvalComparison>(
    `eval-compare|${props.a}|${props.b}`,
    () => unconditional(api.call((client) => client.GET("/v1/evals/compare", { params: { query: { a: props.a, b: props.b } } }))),
    null,
  );
  const data = found.data;
  if (!data)
    return (
      <Page title="Eval comparison">
        {found.loading ? (
          <Loading what="the comparison" />
        ) : (
          <ErrorNote message={found.error ?? "The evals could not be compared."} retry={found.refresh} />
        )}
      </Page>
    );
  const regressed = new Set(data.regressions);
  const items = [...data.items].sort((x, y) => Number(regressed.has(y.index)) - Number(regressed.has(x.index)) || x.index - y.index);
  return (
    <Page
      title="Eval comparison"
      subtitle={
        <>
          <a href={routeHref({ view: "eval", id: data.a.id })}>{data.a.id}</a> (v{data.a.agent.version}) →{" "}
          <a href={routeHref({ view: "eval", id: data.b.id })}>{data.b.id}</a> (v{data.b.agent.version}) · {data.regressions.length}{" "}
          regressed, {data.improvements.length} improved
        </>
      }
    >
      <p>
        {data.scorers.map((key) => {
          const delta = data.score_deltas[key];
          return (
            <span key={key} class="score-delta">
              {key}: {data.a.scores[key]?.toFixed(2) ?? "—"} → {data.b.scores[key]?.toFixed(2) ?? "—"}
              {delta !== null && delta !== undefined && ` (${delta >= 0 ? "+" : ""}${delta.toFixed(2)})`}{" "}
            </span>
          );
        })}
      </p>
      <table class="eval-compare responsive">
        <caption class="visually-hidden">Items, regressions first</caption>
        <thead>
          <tr>
            <th scope="col">Item</th>
            {data.scorers.map((key) => (
              <th scope="col" key={key}>
                {key} (a → b)
              </th>
            ))}
            <th scope="col">Sessions</th>
          </tr>
        </thead>
        <tbody>
          {items.map((item) => (
            <tr
              key={item.index}
              data-item={item.index}
              class={regressed.has(item.index) ? "regressed" : item.improved ? "improved" : undefined}
            >
              <th scope="row" data-label="Item">
                #{item.index} {regressed.has(item.index) && <strong>regressed</strong>}
              </th>
              {data.scorers.map((key) => (
                <td key={key} data-label={key}>
                  {item.a.scores[key] ?? "—"} → {item.b.scores[key] ?? "—"}
                </td>
              ))}
              <td data-label="Sessions">
                {item.a.session_id && <a href={routeHref({ view: "session", id: item.a.session_id })}>a</a>}{" "}
                {item.b.session_id && <a href={routeHref({ view: "session", id: item.b.session_id })}>b</a>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Page>
  );
}
