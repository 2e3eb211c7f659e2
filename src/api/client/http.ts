/**
 * The parts of undici this project uses: `Pool` (with the request API) and its error classes.
 *
 * Why not `import … from 'undici'`: undici's index loads everything it offers (fetch, WebSocket,
 * EventSource, caches, mock agents, proxy agents, interceptors), about 170 ms on the reference
 * machine, all of it paid by the first tool call of every fresh server process (issue 10, item 6).
 * The pool, its request API and the errors load in about 45 ms. The paths are undici's own files,
 * pinned by the exact version in package.json; test/api/http-undici.test.ts fails if an upgrade
 * moves them or if they stop being the classes undici exports.
 */
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

const require = createRequire(import.meta.url);

// The request API lives on Dispatcher's prototype; undici's index adds it there the same way.
const Dispatcher = require('undici/lib/dispatcher/dispatcher.js') as { prototype: object };
Object.assign(Dispatcher.prototype, require('undici/lib/api/index.js') as object);

export const Pool = require('undici/lib/dispatcher/pool.js') as typeof Undici.Pool;
export type Pool = Undici.Pool;
export const errors = require('undici/lib/core/errors.js') as typeof Undici.errors;
