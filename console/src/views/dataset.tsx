/** One dataset: its items (input, expected, metadata) in order, as an eval runs them. */
import { useConsole } from "../context";
import { formatJson } from "../format";
import { unconditional, usePoll } from "../hooks";
import type { DatasetWithItems } from "../types";
import { Ago, Empty, Page } from "./common";
import { UnreadPage } from "./evals";

export function DatasetPage(props: { id: string }) {
  const { api } = useConsole();
  const found = usePoll<DatasetWithItems>(
    `dataset|${props.id}`,
    () => unconditional(api.call((client) => client.GET("/v1/datasets/{id}", { params: { path: { id: props.id } } }))),
    null,
  );
  const data = found.data;
  if (!data) return <UnreadPage title="Dataset" what="dataset" id={props.id} read={found} />;
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
