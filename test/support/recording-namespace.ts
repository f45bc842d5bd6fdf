/**
 * A Durable Object namespace whose stubs record, by name, every method a caller invokes on them:
 * for tests that pin how many round trips an operation makes to an object.
 */
export function recordingNamespace<N>(namespace: N, calls: string[]): N {
  const plain = namespace as unknown as DurableObjectNamespace;
  const recorded = (stub: DurableObjectStub) =>
    new Proxy(stub, {
      get(target, method) {
        const value = Reflect.get(target, method);
        if (typeof value !== "function" || typeof method !== "string") return value;
        return (...args: unknown[]) => {
          calls.push(method);
          // Reflect.apply: on an RPC method, `.apply` would itself be read as a remote method.
          return Reflect.apply(value, target, args);
        };
      },
    });
  // Only what src/objects.ts uses of a namespace; the runtime's methods need their own `this`.
  const wrapped = {
    idFromName: (name: string) => plain.idFromName(name),
    get: (id: DurableObjectId) => recorded(plain.get(id) as unknown as DurableObjectStub),
    jurisdiction: (jurisdiction: DurableObjectJurisdiction) => recordingNamespace(plain.jurisdiction(jurisdiction), calls),
  };
  return wrapped as unknown as N;
}
