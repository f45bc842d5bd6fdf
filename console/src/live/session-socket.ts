/**
 * Watches one session over the events WebSocket (`?access_token=`, since a browser cannot set
 * headers on a WebSocket), and keeps watching: after a drop it reconnects with `?after=` the
 * last event it saw, so nothing is missed or seen twice. Each connection gets a stream token of
 * its own (`POST /v1/auth/stream-token`, good for the events route only, so the token in the
 * socket's URL can do nothing else); when it expires (4401) the next connection gets a fresh one,
 * and the sign-in form shows once no stream token can be had. It stops for good when the session
 * ends (`end`, 1000), when the tenant is suspended (4403), when the session is gone, or when the
 * view closes it.
 */
import { SignInNeeded } from "../auth/auth";
import type { EventFrame } from "../types";

export type Connection =
  | { state: "connecting" }
  | { state: "live" }
  | { state: "reconnecting"; inMs: number }
  | { state: "ended" }
  | { state: "stopped"; why: "suspended" | "not_found" | "signed_out" };

export interface WatchOptions {
  sessionId: string;
  /** A fresh stream token; throws `SignInNeeded` when the console's credential is gone. */
  streamToken(): Promise<string>;
  /** The page's origin: the API and the socket are same-origin. */
  baseUrl: string;
  /** The newest stored event id the view holds, to resume after; null for a fresh snapshot. */
  lastEventId(): number | null;
  onFrame(frame: EventFrame): void;
  onConnection(connection: Connection): void;
  /** Asked after a socket that failed to open: whether the session still exists and has not ended. */
  stillWatchable(): Promise<"yes" | "ended" | "not_found">;
}

/** A socket close code: the session ended or was erased. */
const CLOSE_ENDED = 1000;
const CLOSE_CREDENTIALS = 4401;
const CLOSE_SUSPENDED = 4403;
const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 15_000;
/** Proxies close idle sockets; the platform answers `ping` without waking the session. */
const PING_INTERVAL_MS = 30_000;

/** Pure: the wait before reconnect `attempt` (from 0), doubling, with up to 20 % jitter. */
export function retryDelay(attempt: number, random: number): number {
  const base = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** attempt);
  return Math.round(base * (1 + 0.2 * random));
}

/** Pure: the socket's URL. */
export function eventsUrl(baseUrl: string, sessionId: string, token: string, after: number | null): string {
  const url = new URL(`/v1/sessions/${encodeURIComponent(sessionId)}/events`, baseUrl);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  url.searchParams.set("access_token", token);
  if (after !== null) url.searchParams.set("after", String(after));
  return url.toString();
}

/** Starts watching; the returned function stops. */
export function watchSession(options: WatchOptions): () => void {
  let stopped = false;
  let attempt = 0;
  let socket: WebSocket | null = null;
  let retry: ReturnType<typeof setTimeout> | null = null;
  let ping: ReturnType<typeof setInterval> | null = null;

  const stop = (connection?: Connection) => {
    stopped = true;
    if (retry !== null) clearTimeout(retry);
    if (ping !== null) clearInterval(ping);
    socket?.close(1000);
    if (connection) options.onConnection(connection);
  };

  const reconnect = () => {
    const inMs = retryDelay(attempt++, Math.random());
    options.onConnection({ state: "reconnecting", inMs });
    retry = setTimeout(() => void connect(), inMs);
  };

  const connect = async () => {
    if (stopped) return;
    options.onConnection(attempt === 0 ? { state: "connecting" } : { state: "reconnecting", inMs: 0 });
    let token: string;
    try {
      token = await options.streamToken();
    } catch (error) {
      if (error instanceof SignInNeeded) return stop({ state: "stopped", why: "signed_out" });
      return reconnect();
    }
    if (stopped) return;
    let opened = false;
    let ended = false;
    const ws = new WebSocket(eventsUrl(options.baseUrl, options.sessionId, token, options.lastEventId()));
    socket = ws;
    ws.addEventListener("open", () => {
      opened = true;
      attempt = 0;
      options.onConnection({ state: "live" });
      ping = setInterval(() => ws.readyState === WebSocket.OPEN && ws.send("ping"), PING_INTERVAL_MS);
    });
    ws.addEventListener("message", (event) => {
      if (typeof event.data !== "string" || event.data === "pong") return;
      let frame: EventFrame;
      try {
        frame = JSON.parse(event.data) as EventFrame;
      } catch {
        return;
      }
      if (frame.type === "end") ended = true;
      options.onFrame(frame);
    });
    ws.addEventListener("close", (event) => {
      if (ping !== null) clearInterval(ping);
      ping = null;
      if (stopped || socket !== ws) return;
      if (ended || event.code === CLOSE_ENDED) return stop({ state: "ended" });
      if (event.code === CLOSE_SUSPENDED) return stop({ state: "stopped", why: "suspended" });
      // The stream token expired, or the credential behind it: the next connection asks for a
      // fresh one, which renews an exchanged key's token or ends in the sign-in form.
      if (event.code === CLOSE_CREDENTIALS) return void connect();
      if (opened) return reconnect();
      // Refused before it opened: a 204 (ended, nothing newer), a 404, or the platform away.
      options.stillWatchable().then(
        (answer) => {
          if (stopped) return;
          if (answer === "ended") return stop({ state: "ended" });
          if (answer === "not_found") return stop({ state: "stopped", why: "not_found" });
          reconnect();
        },
        () => reconnect(),
      );
    });
  };

  void connect();
  return () => stop();
}
