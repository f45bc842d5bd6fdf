/** Recorded provider streams, imported as text (Vite's `?raw`). */
declare module "*.sse?raw" {
  const body: string;
  export default body;
}

/** Protocol Buffers definitions, imported as text (Vite's `?raw`). */
declare module "*.proto?raw" {
  const text: string;
  export default text;
}

/** Recorded whole answers (JSON bodies), imported as text (Vite's `?raw`). */
declare module "*.json?raw" {
  const body: string;
  export default body;
}
