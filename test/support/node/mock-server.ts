import { createServer } from "node:http";
export async function startMockServer(port = 0) {
  const server = createServer((req, res) => { res.end(JSON.stringify({ hello: req.url })); });
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", () => r()));
  const addr = server.address();
  const url = `http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}`;
  return { url, close: () => new Promise<void>((r) => server.close(() => r())) };
}
