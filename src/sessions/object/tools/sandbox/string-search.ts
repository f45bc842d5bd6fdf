/**
 * The interpreter's string searches compare naively, in time (haystack × needle), inside one
 * built-in call that its interrupt checks cannot stop: `indexOf` of a 30,000-character needle in
 * 300,000 characters ran 18 s and held the isolate, other tenants' requests with it. Before the
 * code runs, this source (evaluated inside the interpreter) replaces `indexOf`, `lastIndexOf`,
 * `includes`, `split`, `replace` and `replaceAll` of strings: a search whose worst case fits
 * `nativeWork` comparisons runs natively as before; a larger one runs a linear-time search
 * (Knuth–Morris–Pratt) written in JavaScript, which the work limit counts and stops; the native
 * ones are counted too, through the host (`spend`). (It reads
 * characters with `charCodeAt`: code that replaces that method changes only its own answers.)
 *
 * Regular expressions are left to the native methods: the regex engine checks for interrupts.
 */
export const STRING_SEARCH_GUARD = `(nativeWork, spend, comparisonsPerUnit) => {
  "use strict";
  const proto = String.prototype;
  const apply = Reflect.apply;
  const defineProperty = Object.defineProperty;
  const toText = String;
  const { floor, min, max: most, ceil } = Math;
  const Table = Int32Array, Codes = Uint16Array;
  const join = Array.prototype.join;
  const slice = proto.slice;
  const matchSymbol = Symbol.match, splitSymbol = Symbol.split, replaceSymbol = Symbol.replace;
  const native = { indexOf: proto.indexOf, lastIndexOf: proto.lastIndexOf, includes: proto.includes, split: proto.split, replace: proto.replace, replaceAll: proto.replaceAll };
  const isObject = (v) => v !== null && (typeof v === "object" || typeof v === "function");
  // A native search fits nativeWork, and is paid for with the host first (array-guard.ts says why):
  // many small ones in a loop went as long between two interrupt checks as one large one.
  const cheap = (s, t) => {
    const pairs = s.length * t.length;
    if (pairs > nativeWork) return false;
    if (spend(ceil(pairs / comparisonsPerUnit))) throw new RangeError("stopped: a string search past the code's work limit");
    return true;
  };
  const integer = (v) => { const n = +v; return n !== n ? 0 : n === Infinity || n === -Infinity ? n : n < 0 ? -floor(-n) : floor(n); };
  const clamp = (n, high) => min(most(n, 0), high);

  // The search compares character codes in typed arrays: reading s[i] makes a string per read,
  // several times slower. The haystack is read in blocks, so a large one costs no extra heap.
  const BLOCK = 65536;
  const block = new Codes(BLOCK);
  const codesOf = (t, backwards) => {
    const m = t.length, codes = new Codes(m);
    for (let i = 0; i < m; i++) codes[i] = t.charCodeAt(backwards ? m - 1 - i : i);
    return codes;
  };
  const failures = (codes) => {
    const m = codes.length, f = new Table(m);
    for (let i = 1, k = 0; i < m; i++) {
      while (k > 0 && codes[i] !== codes[k]) k = f[k - 1];
      if (codes[i] === codes[k]) k++;
      f[i] = k;
    }
    return f;
  };
  const forwards = (t) => { const codes = codesOf(t, false); return { codes, f: failures(codes) }; };
  // First index >= from where the needle starts in s, or -1.
  const findFrom = (s, needle, from) => {
    const { codes, f } = needle, n = s.length, m = codes.length;
    let k = 0;
    for (let base = from; base < n; base += BLOCK) {
      const end = min(base + BLOCK, n);
      for (let j = base; j < end; j++) block[j - base] = s.charCodeAt(j);
      for (let i = base; i < end; i++) {
        const c = block[i - base];
        while (k > 0 && c !== codes[k]) k = f[k - 1];
        if (c === codes[k]) k++;
        if (k === m) return i - m + 1;
      }
    }
    return -1;
  };
  // Last index <= start where t starts in s, or -1: the same search, both read from the end.
  const findBack = (s, t, start) => {
    const codes = codesOf(t, true), f = failures(codes), m = t.length;
    let k = 0;
    for (let top = min(start, s.length - m) + m - 1; top >= 0; top -= BLOCK) {
      const low = most(top - BLOCK + 1, 0);
      for (let j = low; j <= top; j++) block[j - low] = s.charCodeAt(j);
      for (let i = top; i >= low; i--) {
        const c = block[i - low];
        while (k > 0 && c !== codes[k]) k = f[k - 1];
        if (c === codes[k]) k++;
        if (k === m) return i;
      }
    }
    return -1;
  };
  // Start of every match, left to right, not overlapping, at most max of them.
  const findAll = (s, t, max) => {
    const needle = forwards(t), found = [];
    for (let at = findFrom(s, needle, 0); at !== -1 && found.length < max; at = findFrom(s, needle, at + t.length)) found[found.length] = at;
    return found;
  };
  // GetSubstitution for a string pattern: $$, $&, $\` and $' (no captures exist).
  const substitute = (s, matched, at, replacement) => {
    if (apply(native.indexOf, replacement, ["$"]) === -1) return replacement;
    let out = "";
    for (let i = 0; i < replacement.length; i++) {
      const c = replacement[i], d = replacement[i + 1];
      if (c !== "$" || d === undefined) out += c;
      else if (d === "$") { out += "$"; i++; }
      else if (d === "&") { out += matched; i++; }
      else if (d === "\`") { out += apply(slice, s, [0, at]); i++; }
      else if (d === "'") { out += apply(slice, s, [at + matched.length]); i++; }
      else out += c;
    }
    return out;
  };
  const replaceAt = (s, t, found, replacement) => {
    const parts = [];
    let last = 0;
    for (let i = 0; i < found.length; i++) {
      const at = found[i];
      parts[parts.length] = apply(slice, s, [last, at]);
      parts[parts.length] = typeof replacement === "function" ? toText(replacement(t, at, s)) : substitute(s, t, at, replacement);
      last = at + t.length;
    }
    parts[parts.length] = apply(slice, s, [last]);
    return apply(join, parts, [""]);
  };

  const own = {
    indexOf(s, search, position) {
      const t = toText(search);
      if (cheap(s, t) || t.length === 0) return apply(native.indexOf, s, [t, position]);
      const from = clamp(integer(position), s.length);
      return findFrom(s, forwards(t), from);
    },
    lastIndexOf(s, search, position) {
      const t = toText(search);
      if (cheap(s, t) || t.length === 0) return apply(native.lastIndexOf, s, [t, position]);
      const n = +position;
      const start = n !== n ? s.length : clamp(integer(n), s.length);
      return findBack(s, t, start);
    },
    includes(s, search, position) {
      if (isObject(search) && search[matchSymbol]) return apply(native.includes, s, [search, position]);
      const t = toText(search);
      if (cheap(s, t) || t.length === 0) return apply(native.includes, s, [t, position]);
      const from = clamp(integer(position), s.length);
      return findFrom(s, forwards(t), from) !== -1;
    },
    split(s, separator, limit) {
      if (separator === undefined || separator === null || (isObject(separator) && separator[splitSymbol] != null)) return apply(native.split, s, [separator, limit]);
      const max = limit === undefined ? 4294967295 : limit >>> 0;
      const t = toText(separator);
      if (cheap(s, t) || t.length === 0 || max === 0) return apply(native.split, s, [t, max]);
      const found = findAll(s, t, max), parts = [];
      let last = 0;
      for (let i = 0; i < found.length && parts.length < max; i++) {
        parts[parts.length] = apply(slice, s, [last, found[i]]);
        last = found[i] + t.length;
      }
      if (parts.length < max) parts[parts.length] = apply(slice, s, [last]);
      return parts;
    },
    replace(s, pattern, replacement) {
      if (isObject(pattern) && pattern[replaceSymbol] != null) return apply(native.replace, s, [pattern, replacement]);
      const t = toText(pattern);
      const r = typeof replacement === "function" ? replacement : toText(replacement);
      if (cheap(s, t) || t.length === 0) return apply(native.replace, s, [t, r]);
      return replaceAt(s, t, findAll(s, t, 1), r);
    },
    replaceAll(s, pattern, replacement) {
      if (isObject(pattern) && pattern[replaceSymbol] != null) return apply(native.replaceAll, s, [pattern, replacement]);
      const t = toText(pattern);
      const r = typeof replacement === "function" ? replacement : toText(replacement);
      if (cheap(s, t) || t.length === 0) return apply(native.replaceAll, s, [t, r]);
      return replaceAt(s, t, findAll(s, t, Infinity), r);
    },
  };

  for (const name of Object.keys(native)) {
    const original = native[name], search = own[name];
    const method = { [name](...args) {
      // null and undefined have no methods: the native call throws the TypeError it always did.
      if (this === null || this === undefined) return apply(original, this, args);
      return search(toText(this), args[0], args[1]);
    } }[name];
    defineProperty(method, "length", { value: original.length });
    defineProperty(proto, name, { value: method, writable: true, configurable: true, enumerable: false });
  }
}`;
