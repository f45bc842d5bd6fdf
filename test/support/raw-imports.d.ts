/** Recorded provider streams, imported as text (Vite's `?raw`). */
declare module "*.sse?raw" {
  const body: string;
  export default body;
}
