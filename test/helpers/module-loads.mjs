/**
 * `--import` this (NODE_OPTIONS) to have a process log every module it loads to stderr
 * (module-loads-hook.mjs): test/hosted/warm-code.test.ts asks which a restarted instance loads
 * after its warm-up.
 */
import { register } from 'node:module';

register(new URL('./module-loads-hook.mjs', import.meta.url));
