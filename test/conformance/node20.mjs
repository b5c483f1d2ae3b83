// Preload for the official conformance suite on Node 20 (`node --import ./test/conformance/node20.mjs
// node_modules/conformance-*/dist/index.js …`). Two things, both inside this process:
//
// 1. The published CLI imports `globSync` from `fs`, which Node 20 lacks (it only uses it in
//    `tier-check`). A module resolve hook serves the suite's bundle a `fs` that re-exports node:fs and
//    adds a minimal `globSync` (`**`, `*`, `?`; relative to `cwd`). Nothing else is redirected.
// 2. The client leg's mock servers call `listen(0)` with no host, which binds every interface. Host-less
//    TCP listen() calls are bound to 127.0.0.1 instead, synchronously as before (a path, a handle or an
//    explicit host is left as it is).
import dns from 'node:dns';
import net from 'node:net';
import { register } from 'node:module';

if (typeof (await import('node:fs')).globSync !== 'function') {
  register(new URL('./node20-loader.mjs', import.meta.url), import.meta.url);
}

const LOOPBACK = '127.0.0.1';
const original = net.Server.prototype.listen;
const isPort = (v) => typeof v === 'number' || (typeof v === 'string' && /^\d+$/.test(v));

/** listen() with a host resolves it with dns.lookup, a tick later; a host-less listen() binds at once,
 *  and the suite reads address() right after it. So the forced host is "resolved" synchronously. */
function listenOnLoopback(server, args) {
  const lookup = dns.lookup;
  dns.lookup = function loopbackNow(hostname, options, callback) {
    const cb = typeof options === 'function' ? options : callback;
    if (hostname === LOOPBACK) return cb(null, LOOPBACK, 4);
    return lookup.call(this, hostname, options, callback);
  };
  try {
    return original.apply(server, args);
  } finally {
    dns.lookup = lookup;
  }
}

net.Server.prototype.listen = function listen(...args) {
  const [first, second] = args;
  if (first === undefined || first === null || typeof first === 'function') {
    // listen() / listen(cb): an ephemeral port on every interface → on loopback.
    return listenOnLoopback(this, [0, LOOPBACK, ...args.slice(1).concat(typeof first === 'function' ? [first] : [])]);
  }
  if (isPort(first) && typeof second !== 'string') {
    // listen(port[, backlog][, cb])
    return listenOnLoopback(this, [first, LOOPBACK, ...args.slice(1)]);
  }
  if (
    first &&
    typeof first === 'object' &&
    !first.path &&
    !('fd' in first) &&
    !('_handle' in first) &&
    !('handle' in first) &&
    !first.host
  ) {
    return listenOnLoopback(this, [{ ...first, host: LOOPBACK }, ...args.slice(1)]);
  }
  return original.apply(this, args);
};
