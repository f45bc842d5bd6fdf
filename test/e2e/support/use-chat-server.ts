/**
 * Serves the `useChat` page (use-chat-page.ts, bundled with esbuild on start) and passes `/v1/…`
 * through to the platform, streaming, so the page and the API share an origin (the shared
 * platform allows no CORS origin).
 */
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { Readable } from "node:stream";
import { build } from "esbuild";

export interface UseChatServer {
  url: string;
  close(): Promise<void>;
}

export async function serveUseChatPage(platformUrl: string): Promise<UseChatServer> {
  const bundled = await build({
    entryPoints: [join(import.meta.dirname, "use-chat-page.ts")],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    define: { "process.env.NODE_ENV": '"production"' },
    logLevel: "silent",
  });
  const script = bundled.outputFiles[0]!.text;
  const server: Server = createServer(async (req, res) => {
    if (req.url?.startsWith("/v1/")) {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([name]) => !["host", "connection", "content-length"].includes(name)),
      ) as Record<string, string>;
      const upstream = await fetch(`${platformUrl}${req.url}`, {
        method: req.method,
        headers,
        body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
      });
      const answer: Record<string, string> = {};
      // fetch has already decoded the body: its encoding and length no longer describe what is sent on.
      upstream.headers.forEach(
        (value, name) => void (["content-encoding", "content-length"].includes(name) ? undefined : (answer[name] = value)),
      );
      res.writeHead(upstream.status, answer);
      if (upstream.body) Readable.fromWeb(upstream.body as never).pipe(res);
      else res.end();
      return;
    }
    if (req.url === "/app.js") {
      res.writeHead(200, { "content-type": "text/javascript" });
      res.end(script);
      return;
    }
    res.writeHead(200, { "content-type": "text/html" });
    res.end('<!doctype html><html><body><div id="root"></div><script type="module" src="/app.js"></script></body></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
