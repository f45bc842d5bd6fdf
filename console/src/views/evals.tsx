/**
 * The tenant's evals (each with its agent version, progress and per-scorer means) and datasets,
 * and a form that opens the comparison of two evals.
 */
import { useState } from "preact/hooks";
import { isNotFound } from "../api";
import { useConsole } from "../context";
import { type Polled, usePaged } from "../hooks";
import { routeHref } from "../route";
import type { Dataset, EvalSummary } from "../types";
import { Ago, Empty, ErrorNote, Field, Loading, MoreButton, Page } from "./common";

const PAGE_SIZE = 50;

export function EvalsPage() {
  const { api } = useConsole();
  const evals = usePaged<EvalSummary, string>("evals", async (cursor) => {
    const page = await api.call((client) =>
      client.GET("/v1/evals", { params: { query: { limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) } } }),
    );
    return { rows: page.data, next: page.next_cursor };
  });
  const datasets = usePaged<Dataset, string>("datasets", async (cursor) => {
    const page = await api.call((client) =>
      client.GET("/v1/datasets", { params: { query: { limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) } } }),
    );
    return { rows: page.data, next: page.next_cursor };
  });
  const [a, setA] = useState("");
  const [b, setB] = useState("");
  return (
    <Page title="Evals" subtitle="Agent versions run over datasets, scored per item.">
      {evals.rows.length === 0 && evals.error ? (
        <ErrorNote message={evals.error} retry={evals.reload} />
      ) : evals.rows.length === 0 && evals.loading ? (
        <Loading what="evals" />
      ) : evals.rows.length === 0 ? (
        <Empty>
          <p>No evals yet. A backend runs one with POST /v1/evals, or the SDK's evals.run.</p>
        </Empty>
      ) : (
        <table class="evals responsive">
          <caption class="visually-hidden">Evals, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Eval</th>
              <th scope="col">Agent</th>
              <th scope="col">Status</th>
              <th scope="col">Progress</th>
              <th scope="col">Scores</th>
              <th scope="col">Cost</th>
              <th scope="col">Started</th>
            </tr>
          </thead>
          <tbody>
            {evals.rows.map((row) => (
              <tr key={row.id} data-eval={row.id}>
                <th scope="row" data-label="Eval">
                  <a href={routeHref({ view: "eval", id: row.id })}>
                    <code class="id">{row.id}</code>
                  </a>
                </th>
                <td data-label="Agent">
                  <a href={routeHref({ view: "agent", id: row.agent.agent_id, from: null, to: null })}>
                    <code>{row.agent.agent_id}</code>
                  </a>{" "}
                  v{row.agent.version}
                </td>
                <td data-label="Status">{row.status}</td>
                <td data-label="Progress">
                  {row.progress.finished}/{row.progress.total}
                </td>
                <td data-label="Scores">
                  <ScoreList scores={row.scores} />
                </td>
                <td data-label="Cost">${row.cost_usd.toFixed(4)}</td>
                <td data-label="Started">
                  <Ago iso={row.created_at} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <MoreButton list={evals} label="More evals" />

      <h2>Compare two evals</h2>
      <form
        class="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          location.hash = routeHref({ view: "eval_compare", a: a.trim(), b: b.trim() });
        }}
      >
        <Field id="compare-a" label="Baseline (a)">
          <input id="compare-a" value={a} onInput={(e) => setA(e.currentTarget.value)} placeholder="evl_…" required />
        </Field>
        <Field id="compare-b" label="Candidate (b)">
          <input id="compare-b" value={b} onInput={(e) => setB(e.currentTarget.value)} placeholder="evl_…" required />
        </Field>
        <button type="submit">Compare</button>
      </form>

      <h2>Datasets</h2>
      {datasets.rows.length === 0 && datasets.error ? (
        <ErrorNote message={datasets.error} retry={datasets.reload} />
      ) : datasets.rows.length === 0 && datasets.loading ? (
        <Loading what="datasets" />
      ) : datasets.rows.length === 0 ? (
        <Empty>
          <p>No datasets yet. POST /v1/datasets makes one; POST /v1/datasets/&#123;id&#125;/import adds items from JSONL.</p>
        </Empty>
      ) : (
        <table class="datasets responsive">
          <caption class="visually-hidden">Datasets, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Dataset</th>
              <th scope="col">Items</th>
              <th scope="col">Version</th>
              <th scope="col">Changed</th>
            </tr>
          </thead>
          <tbody>
            {datasets.rows.map((row) => (
              <tr key={row.id} data-dataset={row.id}>
                <th scope="row" data-label="Dataset">
                  <a href={routeHref({ view: "dataset", id: row.id })}>{row.name}</a> <code class="id">{row.id}</code>
                </th>
                <td data-label="Items">{row.item_count}</td>
                <td data-label="Version">{row.version}</td>
                <td data-label="Changed">
                  <Ago iso={row.updated_at} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <MoreButton list={datasets} label="More datasets" />
    </Page>
  );
}

/** Each scorer's mean, as `key 0.83`; a mean no item has yet is a dash. */
export function ScoreList(props: { scores: Record<string, number | null> }) {
  const entries = Object.entries(props.scores);
  if (entries.length === 0) return <span>—</span>;
  return (
    <span class="scores">
      {entries.map(([key, value], i) => (
        <span key={key}>
          {i > 0 && " · "}
          {key} <strong>{value === null ? "—" : value.toFixed(2)}</strong>
        </span>
      ))}
    </span>
  );
}

/** A dataset's or an eval's page before its first read answers: loading, not found, or the failure with a retry. */
export function UnreadPage(props: { title: string; what: string; id: string; read: Polled<unknown> }) {
  const { read } = props;
  return (
    <Page title={props.title}>
      {read.loading ? (
        <Loading what={`the ${props.what}`} />
      ) : isNotFound(read.failure) ? (
        <ErrorNote message={`No ${props.what} ${props.id}.`} />
      ) : (
        <ErrorNote message={read.error ?? `The ${props.what} could not be read.`} retry={read.refresh} />
      )}
      <p>
        <a href={routeHref({ view: "evals" })}>Back to the evals</a>
      </p>
    </Page>
  );
}
