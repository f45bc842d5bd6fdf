/**
 * The interpreter's generic array built-ins loop natively over `length`, and no interrupt check
 * reaches inside them: `Array.prototype.indexOf.call({ length: 2 ** 28 }, 1)` visits 2^28
 * missing elements (about 60 ns each) in one call of 15 s, and a loop of shorter calls goes as
 * long between two checks. Before the code runs, this source (evaluated inside the interpreter)
 * wraps every `Array.prototype` method whose work grows with a length: each call first tells
 * the host how many elements it will visit (`spend`), which counts them against the run's work
 * limit and deadline, and a call that does not fit is not made. The length is read once, as the
 * built-in would read it; a receiver whose length could read differently the second time (a
 * getter, a proxy, an object with `valueOf`) is handed to the built-in as a view with that
 * length fixed, so the built-in never visits more than was paid for.
 */
export const ARRAY_GUARD = `(spend) => {
  "use strict";
  const proto = Array.prototype;
  const apply = Reflect.apply, defineProperty = Object.defineProperty, getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const getPrototypeOf = Object.getPrototypeOf, create = Object.create, toObject = Object, isArray = Array.isArray;
  const { floor, min, log2, ceil } = Math;
  const spreadable = Symbol.isConcatSpreadable;
  const NativeProxy = Proxy, WeakSetOf = WeakSet, has = WeakSet.prototype.has, add = WeakSet.prototype.add;
  const MAX_LENGTH = 9007199254740991;

  // Proxies cannot be told apart from their targets from inside: every one made is noted.
  const proxies = new WeakSetOf();
  const note = (made) => { apply(add, proxies, [made]); return made; };
  const revocable = NativeProxy.revocable;
  const ProxyOf = function Proxy(target, handler) {
    if (new.target === undefined) return new NativeProxy(target, handler);
    return note(new NativeProxy(target, handler));
  };
  defineProperty(ProxyOf, "revocable", { value: function revocable$(target, handler) { const made = revocable(target, handler); note(made.proxy); return made; }, writable: true, configurable: true });
  defineProperty(globalThis, "Proxy", { value: ProxyOf, writable: true, configurable: true, enumerable: false });
  const isProxy = (o) => apply(has, proxies, [o]);

  const toLength = (v) => { const n = +v; if (n !== n || n <= 0) return 0; return n === Infinity ? MAX_LENGTH : min(floor(n), MAX_LENGTH); };
  // The length the built-in will read, without running code, or null when reading it may run code.
  const plainLength = (o) => {
    for (let at = o; at !== null; at = getPrototypeOf(at)) {
      if (isProxy(at)) return null;
      const d = getOwnPropertyDescriptor(at, "length");
      if (d === undefined) continue;
      return "value" in d && typeof d.value === "number" ? toLength(d.value) : null;
    }
    return 0;
  };
  // The receiver the built-in gets, and what it will visit; a view keeps concat's spreading.
  const fixed = (o, spread = false) => {
    const plain = plainLength(o);
    if (plain !== null) return { target: o, length: plain };
    const length = toLength(o.length);
    const view = { length: { value: length, writable: true, configurable: true } };
    if (spread) view[spreadable] = { value: true };
    return { target: create(o, view), length };
  };
  const spreads = (o) => {
    if (o === null || (typeof o !== "object" && typeof o !== "function")) return false;
    const s = o[spreadable];
    return s === undefined ? isArray(o) : !!s;
  };
  const depthOf = (v) => { if (v === undefined) return 1; const n = +v; return n !== n ? 0 : n === Infinity ? MAX_LENGTH : floor(n); };
  const pay = (name, units) => {
    if (spend(units)) throw new RangeError("stopped: Array.prototype." + name + " would visit " + units + " elements, past the code's work limit");
  };

  const sorting = (n) => n * (n < 2 ? 1 : ceil(log2(n)));
  const weights = { sort: sorting, toSorted: sorting };
  const NAMES = ["concat", "copyWithin", "every", "fill", "filter", "find", "findIndex", "findLast", "findLastIndex", "flat", "flatMap", "forEach", "includes", "indexOf",
    "join", "lastIndexOf", "map", "reduce", "reduceRight", "reverse", "shift", "slice", "some", "sort", "splice", "toLocaleString", "toReversed", "toSorted", "toSpliced", "unshift", "with"];

  // Nested arrays flat() will open, to its depth: their lengths are visited too.
  const nestedLength = (o, length, depth) => {
    let units = 0;
    const stack = [[o, length, depth]];
    while (stack.length > 0) {
      const [at, n, d] = stack.pop();
      if (d < 1) continue;
      for (let i = 0; i < n; i++) {
        const item = at[i];
        if (isArray(item)) { const inner = fixed(item).length; units += inner; stack[stack.length] = [item, inner, d - 1]; }
      }
    }
    return units;
  };

  for (const name of NAMES) {
    const original = proto[name];
    if (typeof original !== "function") continue;
    const weigh = weights[name];
    const method = { [name](...args) {
      // null and undefined: the built-in throws the TypeError it always did.
      if (this === null || this === undefined) return apply(original, this, args);
      const self = toObject(this);
      let target = self, length = 0;
      if (name !== "concat") ({ target, length } = fixed(self));
      let units = weigh ? weigh(length) : length;
      if (name === "concat") {
        // concat spreads its receiver and arguments that are arrays or say so: each is visited;
        // one that does not spread is added itself, as one element.
        const all = [self, ...args];
        for (let i = 0; i < all.length; i++) {
          if (!spreads(all[i])) continue;
          const view = fixed(all[i], true);
          if (i === 0) target = view.target;
          else args[i - 1] = view.target;
          units += view.length;
        }
      }
      if (name === "flat") units += nestedLength(target, length, depthOf(args[0]));
      if (name === "flatMap" && typeof args[0] === "function") {
        // The mapper's arrays are flattened natively: each is paid for as it comes.
        const mapper = args[0];
        args[0] = function (...inner) {
          const made = apply(mapper, this, inner);
          if (!isArray(made)) return made;
          const view = fixed(made, true);
          pay(name, view.length);
          return view.target;
        };
      }
      pay(name, units);
      return apply(original, target, args);
    } }[name];
    defineProperty(method, "length", { value: original.length });
    defineProperty(proto, name, { value: method, writable: true, configurable: true, enumerable: false });
  }
}`;
