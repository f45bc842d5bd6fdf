/**
 * A session as one JSON document: the session, then every message, tool call and step, read page
 * by page from its object while the body streams, so a session of any length is exported with
 * one page in memory, and a page is bounded in size as well as in items (`EXPORT_PAGE_CHARS`):
 * neither the object nor the gateway ever holds more than about one page of a large session. A
 * page that fails after the first bytes left errors the stream: the caller gets a cut-off body,
 * never a document that looks whole and is not.
 */
import type { SessionClient } from "./client";
import type { Page, Session } from "../session-config/types";
import { MAX_PAGE_CHARS_BOUND } from "./object/control/pages";

export const EXPORT_FORMAT = "agent-platform.session-export/v1";
/** Items per page read from the session object: the lists' largest page. */
const EXPORT_PAGE = 200;
/**
 * Characters of messages' content (tool calls' inputs and outputs) per page, on top of a page's
 * first item: one 4 MB session read as one answer held the isolate every tenant shares for as
 * long as its copy and its JSON took; pages of this size let other requests in between.
 */
export const EXPORT_PAGE_CHARS = MAX_PAGE_CHARS_BOUND;

type PageReader<T> = (cursor: string | null) => Promise<Page<T>>;

/** The document's text, in pieces: the head, then each list's items as its pages arrive. */
export async function* exportChunks(
  session: Session,
  client: Pick<SessionClient, "listMessages" | "listToolCalls" | "listSteps">,
  exportedAt: string,
): AsyncGenerator<string> {
  yield `{"format":${JSON.stringify(EXPORT_FORMAT)},"exported_at":${JSON.stringify(exportedAt)},"session":${JSON.stringify(session)}`;
  yield* list("messages", (cursor) => client.listMessages(cursor === null ? 0 : Number(cursor), EXPORT_PAGE, EXPORT_PAGE_CHARS));
  yield* list("tool_calls", (cursor) => client.listToolCalls(cursor, EXPORT_PAGE, EXPORT_PAGE_CHARS));
  yield* list("steps", (cursor) => client.listSteps(cursor === null ? 0 : Number(cursor), EXPORT_PAGE));
  yield "}";
}

async function* list<T>(name: string, read: PageReader<T>): AsyncGenerator<string> {
  yield `,${JSON.stringify(name)}:[`;
  let cursor: string | null = null;
  let first = true;
  for (;;) {
    const page: Page<T> = await read(cursor);
    if (page.data.length > 0) {
      yield (first ? "" : ",") + page.data.map((item) => JSON.stringify(item)).join(",");
      first = false;
    }
    if (page.next_cursor === null || page.next_cursor === cursor) break;
    cursor = page.next_cursor;
  }
  yield "]";
}

/** The chunks as a byte stream, pulled: the next page is read only when the reader wants more. */
export function toByteStream(chunks: AsyncGenerator<string>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      } catch (error) {
        controller.error(error);
      }
    },
    async cancel() {
      await chunks.return(undefined);
    },
  });
}
