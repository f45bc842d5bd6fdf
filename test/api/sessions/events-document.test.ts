/**
 * An events answer as the served document declares it: the body, a stream of text, is what the
 * 200's `text/event-stream` schema accepts (so a validating proxy lets it through), and each
 * event's `data` is what that schema's `contentSchema`, `EventFrame`, accepts.
 */
import { Validator } from "@cfworker/json-schema";
import { describe, expect, it } from "vitest";
import { call } from "../../support/api";
import { mockModel, uniqueKey } from "../../support/mock-client";
import { caller, createSession, text, waitForStatus } from "./helpers";

type MediaType = { schema: { $ref?: string } };
type Document = {
  paths: Record<string, { get: { responses: Record<string, { content: Record<string, MediaType> }> } }>;
  components: { schemas: Record<string, { contentSchema?: { $ref: string } }> };
};

function accepts(document: Document, ref: string, value: unknown): boolean {
  return new Validator({ ...document, $ref: ref } as never, "2020-12", false).validate(value).valid;
}

describe("GET /v1/sessions/{id}/events against the served document", () => {
  it("answers a body the 200's schema accepts, each event's data accepted by its item schema", async () => {
    const document = (await (await call("/openapi.json")).json()) as Document;
    const media = document.paths["/v1/sessions/{id}/events"]!.get.responses["200"]!.content["text/event-stream"]!;
    const stream = document.components.schemas[media.schema.$ref!.split("/").pop()!]!;
    expect(stream.contentSchema?.$ref).toBe("#/components/schemas/EventFrame");

    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    await model.script({ reply: { content: [text("done")] } });
    const session = await createSession(who, { input: "hi", model: model.key });
    await waitForStatus(who, session.id, ["done"]);
    // From the first event: every stored event, then `end`, and the stream closes.
    const res = await call(`/v1/sessions/${session.id}/events?after=0`, { headers: { ...who.headers, Accept: "text/event-stream" } });
    expect(res.status).toBe(200);
    const body = await res.text();

    expect(accepts(document, media.schema.$ref!, body)).toBe(true);
    const frames = body.split("\n\n").flatMap((event) =>
      event
        .split("\n")
        .filter((line) => line.startsWith("data: "))
        .map((line) => JSON.parse(line.slice(6)) as { type: string }),
    );
    expect(frames.map((frame) => frame.type)).toContain("end");
    for (const frame of frames) expect(accepts(document, stream.contentSchema!.$ref, frame), frame.type).toBe(true);
  });
});
