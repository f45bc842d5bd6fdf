/**
 * Load of the event streams against a real `wrangler dev`: 100 watchers on one session during a
 * streamed run, then 1,000 idle WebSockets across 200 sessions, then for comparison 200 idle
 * Server-Sent Events streams on 200 sessions. Reports the memory (RSS) and
 * CPU time of the wrangler and workerd processes, and checks that every watcher saw the same
 * events. Self-contained on top of the end-to-end support (test/e2e/support).
 *
 *   npx node bench/events-load.run.mjs            (or: node bench/events-load.run.mjs)
 *   BENCH_ONLY=idle BENCH_IDLE_SESSIONS=10 BENCH_SOCKETS_PER_SESSION=100 npx node bench/events-load.run.mjs
 *
 * Numbers depend on the machine; run it on a quiet one.
 */
import { readFileSync } from "node:fs";
import { request } from "node:http";
import type { Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { type Watch, watchSocket, watchSse } from "../test/support/event-client";
import { mapLimit } from "../test/e2e/support/pool";
import { groupMembers } from "../test/e2e/support/process-group";
import { startStack, uniqueName, type Stack } from "../test/e2e/support/stack";
import { tokenMinter } from "../test/e2e/support/tokens";

const WATCHERS_ON_ONE_SESSION = 100;
/** BENCH_IDLE_SESSIONS and BENCH_SOCKETS_PER_SESSION change the idle scenario's shape. */
const IDLE_SESSIONS = Number(process.env.BENCH_IDLE_SESSIONS ?? 200);
const SOCKETS_PER_IDLE_SESSION = Number(process.env.BENCH_SOCKETS_PER_SESSION ?? 5);
/** BENCH_ONLY=idle runs the idle WebSockets alone. */
const ONLY = process.env.BENCH_ONLY;
/**
 * Node's WebSocket offers permessage-deflate, as browsers do, and the runtime accepts it, which
 * costs zlib state per socket. BENCH_WS_COMPRESSION=off opens the idle sockets with a bare
 * handshake that offers no extension, to see the socket's own cost.
 */
const COMPRESSION = process.env.BENCH_WS_COMPRESSION !== "off";
/** Longer than workerd's 10 s eviction of an inactive object. */
const IDLE_MS = 30_000;
const SAMPLE_MS = 250;
/** Clock ticks per second of /proc/<pid>/stat (USER_HZ; 100 on Linux). */
const CLOCK_TICKS = 100;
const OPEN_CONCURRENCY = 50;
const IDLE_SSE_STREAMS = 200;

interface ProcessSample {
  pid: number;
  name: string;
  rssMiB: number;
  cpuSeconds: number;
}

function sampleGroup(pgid: number): ProcessSample[] {
  return groupMembers(pgid).flatMap((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const cpuSeconds = (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
      const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
      const name = readFileSync(`/proc/${pid}/comm`, "utf8").trim();
      return [{ pid, name, rssMiB: rssKb / 1024, cpuSeconds }];
    } catch {
      return [];
    }
  });
}

/** RSS and CPU per process name (wrangler's node, workerd), summed over processes of that name. */
function byName(samples: ProcessSample[]): Record<string, { rssMiB: number; cpuSeconds: number }> {
  const out: Record<string, { rssMiB: number; cpuSeconds: number }> = {};
  for (const s of samples) {
    const entry = (out[s.name] ??= { rssMiB: 0, cpuSeconds: 0 });
    entry.rssMiB += s.rssMiB;
    entry.cpuSeconds += s.cpuSeconds;
  }
  return out;
}

/** Samples the group while `work` runs: peak RSS per process name, and CPU used. */
async function measure<T>(
  pgid: number,
  work: () => Promise<T>,
): Promise<{ value: T; seconds: number; peakRssMiB: Record<string, number>; cpuSeconds: Record<string, number> }> {
  const start = byName(sampleGroup(pgid));
  const peak: Record<string, number> = {};
  const note = () => {
    for (const [name, s] of Object.entries(byName(sampleGroup(pgid)))) peak[name] = Math.max(peak[name] ?? 0, s.rssMiB);
  };
  note();
  const timer = setInterval(note, SAMPLE_MS);
  const began = Date.now();
  try {
    const value = await work();
    note();
    const end = byName(sampleGroup(pgid));
    const cpu: Record<string, number> = {};
    for (const name of Object.keys(end)) cpu[name] = round((end[name]!.cpuSeconds ?? 0) - (start[name]?.cpuSeconds ?? 0));
    return { value, seconds: round((Date.now() - began) / 1000), peakRssMiB: mapValues(peak, round), cpuSeconds: cpu };
  } finally {
    clearInterval(timer);
  }
}

const round = (n: number) => Math.round(n * 10) / 10;
const mapValues = <V, W>(o: Record<string, V>, f: (v: V) => W) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, f(v)]));

async function openSse(url: string, token: string): Promise<Watch> {
  const res = await fetch(url, { headers: { Authorization: `Bearer ${token}`, Accept: "text/event-stream" } });
  if (res.status !== 200) throw new Error(`SSE answered ${res.status}`);
  return watchSse(res);
}

/** A stream token asked for with `token`: the only token a WebSocket URL takes. */
async function streamToken(platformUrl: string, token: string): Promise<string> {
  const res = await fetch(`${platformUrl}/v1/auth/stream-token`, { method: "POST", headers: { Authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`stream-token answered ${res.status}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** The bench's tenants watch far more than the default stream caps allow. */
async function liftStreamCaps(stack: Stack, tenantId: string): Promise<void> {
  const ops = await stack.client("platform", "bench-ops", ["platform:admin"]);
  await ops.expect(200, "PUT", `/v1/admin/tenants/${tenantId}/limits`, {
    max_streams_per_session: 10_000,
    max_streams_per_tenant: 100_000,
  });
}

async function openSocket(url: string, token: string): Promise<Watch> {
  const ws = new WebSocket(`${url.replace(/^http/, "ws")}?access_token=${encodeURIComponent(token)}`);
  const watch = watchSocket(ws);
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener("open", () => resolve(), { once: true });
    ws.addEventListener("close", () => reject(new Error("closed before open")), { once: true });
  });
  return watch;
}

/** An idle socket opened by hand without extensions: it reads whatever comes and stays open. */
interface IdleSocket {
  closed: boolean;
  stop(): void;
}

function openBareSocket(url: string, token: string): Promise<IdleSocket> {
  const target = new URL(`${url}?access_token=${encodeURIComponent(token)}`);
  const key = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
  return new Promise((resolve, reject) => {
    const req = request(target, {
      headers: { Connection: "Upgrade", Upgrade: "websocket", "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": key },
    });
    req.on("upgrade", (_res, socket: Socket) => {
      const idle: IdleSocket = { closed: false, stop: () => socket.destroy() };
      socket.on("data", () => undefined);
      socket.on("close", () => {
        idle.closed = true;
      });
      resolve(idle);
    });
    req.on("response", (res) => reject(new Error(`no upgrade: ${res.statusCode}`)));
    req.on("error", reject);
    req.end();
  });
}

async function openIdle(url: string, token: string): Promise<IdleSocket> {
  if (!COMPRESSION) return openBareSocket(url, token);
  const watch = await openSocket(url, token);
  await watch.untilType("snapshot", 60_000);
  return {
    get closed() {
      return watch.closed;
    },
    stop: () => watch.stop(),
  };
}

async function watchersOnOneSession(
  stack: Stack,
  mint: (i: { tenantId: string; subject: string; scopes: ("sessions:read" | "sessions:write")[] }) => Promise<string>,
) {
  const tenantId = uniqueName("bench");
  const client = await stack.client(tenantId);
  await liftStreamCaps(stack, tenantId);
  const token = await mint({ tenantId, subject: "e2e-user", scopes: ["sessions:read"] });
  const socketToken = await streamToken(stack.platform.url, token);
  const model = stack.mock.model(uniqueName("bench-model"));
  const session = await client.createSession({ model: model.key, tools: [{ type: "builtin", name: "get_time" }] });
  const url = `${stack.platform.url}/v1/sessions/${session.id}/events`;
  const half = WATCHERS_ON_ONE_SESSION / 2;
  const watches = await mapLimit(
    Array.from({ length: WATCHERS_ON_ONE_SESSION }, (_, n) => n),
    OPEN_CONCURRENCY,
    (n) => (n < half ? openSse(url, token) : openSocket(url, socketToken)),
  );
  await Promise.all(watches.map((w) => w.untilType("snapshot", 60_000)));
  const text = "The quick brown fox jumps over the lazy dog. ".repeat(40);
  await model.script(
    {
      reply: {
        content: [
          { type: "text", text: "Checking the time." },
          { type: "tool_use", id: "toolu_bench", name: "get_time", input: {} },
        ],
      },
    },
    { reply: { content: [{ type: "text", text }] }, stream: { chunk_chars: 8, event_delay_ms: 2 } },
  );
  const result = await measure(stack.platform.processGroup, async () => {
    await client.expect(202, "POST", `/v1/sessions/${session.id}/messages`, { input: "go" });
    await Promise.all(watches.map((w) => w.untilClosed(120_000)));
  });
  const reference = JSON.stringify(watches[0]!.stored());
  const identical = watches.every((w) => JSON.stringify(w.stored()) === reference);
  const frames = watches.reduce((sum, w) => sum + w.frames.length, 0);
  return {
    watchers: WATCHERS_ON_ONE_SESSION,
    sse: half,
    websockets: WATCHERS_ON_ONE_SESSION - half,
    identicalStoredEvents: identical,
    framesPerWatcher: watches[0]!.frames.length,
    framesDelivered: frames,
    runSeconds: result.seconds,
    peakRssMiB: result.peakRssMiB,
    cpuSeconds: result.cpuSeconds,
  };
}

async function idleSockets(
  stack: Stack,
  mint: (i: { tenantId: string; subject: string; scopes: ("sessions:read" | "sessions:write")[] }) => Promise<string>,
) {
  const tenantId = uniqueName("bench-idle");
  const client = await stack.client(tenantId);
  await liftStreamCaps(stack, tenantId);
  const token = await streamToken(stack.platform.url, await mint({ tenantId, subject: "e2e-user", scopes: ["sessions:read"] }));
  const sessions = await mapLimit(
    Array.from({ length: IDLE_SESSIONS }, (_, n) => n),
    20,
    () => client.createSession({}),
  );
  const pgid = stack.platform.processGroup;
  const before = byName(sampleGroup(pgid));
  const opening = await measure(pgid, () =>
    mapLimit(
      sessions.flatMap((s) => Array.from({ length: SOCKETS_PER_IDLE_SESSION }, () => s.id)),
      OPEN_CONCURRENCY,
      (id) => openIdle(`${stack.platform.url}/v1/sessions/${id}/events`, token),
    ),
  );
  const watches = opening.value;
  const open = byName(sampleGroup(pgid));
  const idle = await measure(pgid, () => sleep(IDLE_MS));
  const after = byName(sampleGroup(pgid));
  const stillOpen = watches.filter((w) => !w.closed).length;
  for (const w of watches) w.stop();
  await sleep(IDLE_MS / 2);
  const closed = byName(sampleGroup(pgid));
  return {
    sockets: watches.length,
    sessions: IDLE_SESSIONS,
    compression: COMPRESSION,
    openingSeconds: opening.seconds,
    openingCpuSeconds: opening.cpuSeconds,
    rssBeforeMiB: mapValues(before, (s) => round(s.rssMiB)),
    rssJustOpenedMiB: mapValues(open, (s) => round(s.rssMiB)),
    idleSeconds: idle.seconds,
    idleCpuSeconds: idle.cpuSeconds,
    rssAfterIdleMiB: mapValues(after, (s) => round(s.rssMiB)),
    stillOpenAfterIdle: stillOpen,
    rssAfterClosingMiB: mapValues(closed, (s) => round(s.rssMiB)),
  };
}

/** For comparison: idle Server-Sent Events streams, which keep their objects in memory. */
async function idleSse(
  stack: Stack,
  mint: (i: { tenantId: string; subject: string; scopes: ("sessions:read" | "sessions:write")[] }) => Promise<string>,
) {
  const tenantId = uniqueName("bench-sse");
  const client = await stack.client(tenantId);
  const token = await mint({ tenantId, subject: "e2e-user", scopes: ["sessions:read"] });
  const sessions = await mapLimit(
    Array.from({ length: IDLE_SSE_STREAMS }, (_, n) => n),
    20,
    () => client.createSession({}),
  );
  const pgid = stack.platform.processGroup;
  const before = byName(sampleGroup(pgid));
  const watches = await mapLimit(sessions, OPEN_CONCURRENCY, (s) => openSse(`${stack.platform.url}/v1/sessions/${s.id}/events`, token));
  await Promise.all(watches.map((w) => w.untilType("snapshot", 60_000)));
  const idle = await measure(pgid, () => sleep(IDLE_MS));
  const after = byName(sampleGroup(pgid));
  const heartbeats = watches.reduce((sum, w) => sum + w.comments, 0);
  for (const w of watches) w.stop();
  return {
    streams: watches.length,
    rssBeforeMiB: mapValues(before, (s) => round(s.rssMiB)),
    idleSeconds: idle.seconds,
    idleCpuSeconds: idle.cpuSeconds,
    rssAfterIdleMiB: mapValues(after, (s) => round(s.rssMiB)),
    heartbeatsReceived: heartbeats,
  };
}

export default async function main(): Promise<void> {
  const stack = await startStack();
  try {
    const mint = await tokenMinter(stack.platform.signingKey);
    await sleep(3_000);
    const baseline = byName(sampleGroup(stack.platform.processGroup));
    const oneSession = ONLY === "idle" ? null : await watchersOnOneSession(stack, mint);
    const idle = await idleSockets(stack, mint);
    const sse = ONLY === "idle" ? null : await idleSse(stack, mint);
    const report = { baselineRssMiB: mapValues(baseline, (s) => round(s.rssMiB)), oneSession, idle, sse };
    console.log(JSON.stringify(report, null, 2));
  } finally {
    await stack.dispose();
  }
}
