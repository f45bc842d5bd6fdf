/** One dataset: its items (input, expected, metadata) in order, as an eval runs them. */
import { isNotFound } from "../api";
import { useConsole } from "../context";
import { formatJson } from "../format";
import { unconditional, usePoll } from "../hooks";
import { routeHref } from "../route";
import type { DatasetWithItems } from "../types";
import { Ago, Empty, ErrorNote, Loading, Page } from "./common";

export function DatasetPage(props: { id: string }) {
  const { api } = useConsole();
  const found = usePoll<DatasetWithItems>(
    `dataset|${props.id}`,
    () => unconditional(api.call((client) => client.GET("/v1/datasets/{id}", { params: { path: { id: props.id } } }))),
    null,
  );
  const data = found.data;
  if (!data)
    return (
      <Page title="Dataset">
        {found.loading ? (
          <Loading what="the dataset" />
        ) : isNotFound(found.failure) ? (
          <ErrorNote message={`No dataset ${props.id}.`} />
        ) : (
          <ErrorNote message={found.error ?? "The dataset could not be read."} retry={found.refresh} />
        )}
        <p>
          <a href={routeHref({ view: "evals" })}>Back to the evals</a>
        </p>
      </Page>
    );
  return (
    <Page
      title={`Dataset ${data.name}`}
      subtitle={
        <>
          <code>{data.id}</code> · {data.item_count} items · version {data.version} · changed <Ago iso={data.updated_at} />
        </>
      }
    >
      {data.items.length === 0 ? (
        <Empty>
          <p>No items yet.</p>
        </Empty>
      ) : (
        <table class="dataset-items responsive">
          <caption class="visually-hidden">Items, in order</caption>
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Input</th>
              <th scope="col">Expected</th>
              <th scope="col">Metadata</th>
            </tr>
          </thead>
          <tbody>
            {data.items.map((item, index) => (
              <tr key={index}>
                <th scope="row" data-label="#">
                  {index}
                </th>
                <td data-label="Input">{typeof item.input === "string" ? item.input : <pre>{formatJson(item.input)}</pre>}</td>
                <td data-label="Expected">
                  {item.expected === undefined ? (
                    "—"
                  ) : typeof item.expected === "string" ? (
                    item.expected
                  ) : (
                    <pre>{formatJson(item.expected)}</pre>
                  )}
                </td>
                <td data-label="Metadata">{item.metadata ? <pre>{formatJson(item.metadata)}</pre> : "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Page>
  );
}
