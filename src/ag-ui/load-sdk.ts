/** Loads the AG-UI packages' heavy parts (sdk.ts) on first use, once per isolate. */
export type AgUiSdk = typeof import("./sdk");

let loading: Promise<AgUiSdk> | null = null;

export function loadAgUiSdk(): Promise<AgUiSdk> {
  loading ??= import("./sdk");
  return loading;
}
