/**
 * The bare loops' Worker: starts runs and reports their state, with no authentication and no
 * index in front (`POST /runs` with `{ model, input, stream }`, `GET /runs/{id}`, `POST
 * /runs/status` for many at once, and `POST /runs/{id}/revive` for a run the benchmark found
 * stalled). A run that streams its model answers (`stream: true`) is a `StreamingBareLoop`, its id
 * marked `s-`. Both classes are metered as the platform's are (`GET /__bench/cost`).
 */
import { countWorkerRequest, meterClass, meterResponse } from "../direct/cost-meter";
import { BareLoop as Loop, type BaselineEnv, type RunStatus, StreamingBareLoop as StreamingLoop } from "./bare-loop";

/** The loops' own steps, which they call on themselves. */
const INTERNAL = ["callModel", "postMessages"];
export const BareLoop = meterClass(Loop, "BareLoop", INTERNAL);
export const StreamingBareLoop = meterClass(StreamingLoop, "StreamingBareLoop", INTERNAL);

const STREAMING_PREFIX = "s-";

/** Ids per status request; the bench asks in batches well below it. */
const MAX_STATUS_IDS = 1000;

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === "/health") return new Response("ok");
    if (url.pathname === "/__bench/cost") return meterResponse();
    countWorkerRequest();
    if (request.method === "POST" && url.pathname === "/runs") {
      const body = (await request.json()) as { model: string; input: string; stream?: boolean };
      const id = `${body.stream ? STREAMING_PREFIX : ""}${crypto.randomUUID()}`;
      await loop(env, id).start(body.model, body.input);
      return Response.json({ id }, { status: 201 });
    }
    if (request.method === "POST" && url.pathname === "/runs/status") {
      const { ids } = (await request.json()) as { ids: string[] };
      if (ids.length > MAX_STATUS_IDS) return new Response("too many ids", { status: 400 });
      const states = await Promise.all(ids.map((id) => loop(env, id).status()));
      const statuses: Record<string, RunStatus | null> = {};
      ids.forEach((id, i) => (statuses[id] = states[i]?.status ?? null));
      return Response.json(statuses);
    }
    const revive = /^\/runs\/([\w-]+)\/revive$/.exec(url.pathname);
    if (request.method === "POST" && revive?.[1]) return Response.json(await loop(env, revive[1]).revive());
    const match = /^\/runs\/([\w-]+)$/.exec(url.pathname);
    if (request.method === "GET" && match?.[1]) return Response.json(await loop(env, match[1]).status());
    return new Response("not found", { status: 404 });
  },
} satisfies ExportedHandler<BaselineEnv>;

function loop(env: BaselineEnv, id: string): DurableObjectStub<Loop> {
  const namespace = id.startsWith(STREAMING_PREFIX) ? env.STREAMING_LOOP : env.LOOP;
  return namespace.get(namespace.idFromName(id)) as DurableObjectStub<Loop>;
}
