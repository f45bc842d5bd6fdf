/**
 * Replaying recorded provider streams through the loop (see test/sessions/provider-corpus.test.ts):
 * the mock model sends each body byte for byte, cut at awkward places, and a watcher records what
 * was streamed.
 */
import type { ContentBlock, SessionInit, StopReason, Usage } from "../../src/session-config/types";
import { expect } from "vitest";
import { getSession, messages, newTestSession, sessionInit, type TestSession, unwrap, waitForStatus } from "./agent-session";
import { openSse } from "./agent-stream";
import type { Frame } from "./event-client";

export type Json = Record<string, unknown>;

export interface CorpusCase {
  name: string;
  /** The start of the mock model's name, where the model family decides what the platform sends (default `model`). */
  modelPrefix?: string;
  provider: "anthropic" | "openai";
  /** The streams the model calls get, in order. */
  calls: string[];
  session?: Partial<Omit<SessionInit, "limits">>;
  input?: string;
  /** Outputs given for client tool calls, by call id, when the run waits for them. */
  outputs?: Record<string, string>;
  /** Cut every this many bytes (default 11); a long recording is cut more sparsely so it streams within the model timeout. */
  splitEvery?: number;
  /** A second run started with this message once the first ended. */
  followUp?: string;
  expected: {
    status: "done" | "failed";
    stop_reason: StopReason;
    error?: RegExp;
    /** The saved assistant messages, in order. */
    answers: ContentBlock[][];
    /**
     * What a watcher saw streamed before each saved answer: text per block, keyed by its index
     * (`"1"`), or `"0:reasoning"` for reasoning.
     */
    deltas: Record<string, string>[];
    usage: Partial<Usage>;
    requests: number;
    /** How the first run ended, for a case with a follow-up (the expected status is the last run's). */
    firstRun?: { status: "done" | "failed"; stop_reason: StopReason };
    /** Checks on the body of the request that followed the first answer. */
    next?: (body: Json) => void;
  };
}

/**
 * Where a recorded body is cut: every `every` bytes, one byte into every character of more than one
 * byte, and one byte before every blank line that ends an event.
 */
export function awkwardSplits(body: string, every = 11): number[] {
  const bytes = new TextEncoder().encode(body);
  const cuts = new Set<number>();
  for (let at = every; at < bytes.length; at += every) cuts.add(at);
  for (let at = 0; at < bytes.length; at++) {
    if (bytes[at]! >= 0xc0) cuts.add(at + 1);
    if (bytes[at] === 0x0a && bytes[at + 1] === 0x0a) cuts.add(at);
  }
  return [...cuts].filter((at) => at > 0 && at < bytes.length).sort((a, b) => a - b);
}

/** The streamed text before each saved answer: per block key, joined by offset. */
export function deltasPerAnswer(frames: Frame[]): Record<string, string>[] {
  const answers: Record<string, string>[] = [];
  let current: Record<string, string> = {};
  for (const frame of frames) {
    if (frame.type === "message" && (frame.data as { role: string }).role === "assistant") {
      answers.push(current);
      current = {};
    }
    // A failed call's draft is dropped: what follows is the retry's.
    if (frame.type === "delta_reset") {
      const { indices } = frame.data as { indices: number[] };
      for (const key of Object.keys(current)) if (indices.includes(Number.parseInt(key, 10))) delete current[key];
      continue;
    }
    if (frame.type !== "delta") continue;
    const { index, text: piece, offset, kind } = frame.data as { index: number; text: string; offset: number; kind?: string };
    const key = kind ? `${index}:${kind}` : String(index);
    current[key] = (current[key] ?? "").slice(0, offset) + piece;
  }
  return answers;
}

export async function replay(t: TestSession, testCase: CorpusCase) {
  // A follow-up's call waits a moment, so its watcher (opened once the run started) sees all of it.
  const last = testCase.calls.length - 1;
  await t.model.script(
    ...testCase.calls.map((body, n) => ({
      raw: { body, split_at: awkwardSplits(body, testCase.splitEvery), piece_delay_ms: 1 },
      ...(testCase.followUp && n === last ? { delay_ms: 300 } : {}),
    })),
  );
  const model = testCase.provider === "openai" ? `openai:${t.model.key}` : t.model.key;
  unwrap(await t.stub.create(sessionInit(t, { ...testCase.session, model }), null));
  const watch = await openSse(t);
  await watch.untilType("snapshot");
  unwrap(await t.stub.start(testCase.input ?? "What time is it in Tokyo?"));
  if (testCase.outputs) {
    await waitForStatus(t, ["waiting_tool_output"]);
    for (const [id, output] of Object.entries(testCase.outputs)) unwrap(await t.stub.submitToolOutput(id, output, false));
  }
  await watch.untilClosed();
  if (!testCase.followUp) return { watch, first: null };
  const first = await getSession(t);
  // A stream on a finished session ends at once: this one opens on the new run.
  unwrap(await t.stub.start(testCase.followUp));
  const again = await openSse(t);
  await again.untilClosed();
  return { watch: { frames: [...watch.frames, ...again.frames] }, first };
}

/** Replays the case on a session of its own and checks every expectation it states. */
export async function checkCorpusCase(testCase: CorpusCase): Promise<void> {
  const t = newTestSession(testCase.modelPrefix);
  const { watch, first } = await replay(t, testCase);
  const { expected } = testCase;
  if (expected.firstRun) expect(first).toMatchObject(expected.firstRun);
  const session = await waitForStatus(t, ["done", "failed"]);
  expect(session).toMatchObject({ status: expected.status, stop_reason: expected.stop_reason });
  if (expected.error) expect(session.error).toMatch(expected.error);
  else expect(session.error).toBeNull();
  const saved = (await messages(t)).filter((m) => m.role === "assistant").map((m) => m.content);
  expect(saved).toEqual(expected.answers);
  expect(deltasPerAnswer(watch.frames)).toEqual(expected.deltas);
  expect((await getSession(t)).usage).toMatchObject(expected.usage);
  const requests = await t.model.requests();
  expect(requests).toHaveLength(expected.requests);
  if (expected.next) expected.next(requests[1]!.body as Json);
}
