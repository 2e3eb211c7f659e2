/**
 * The demo data seed of every command that serves or reads the sandbox without --seed: `sandbox`,
 * `serve --sandbox` (and `tools`, `call`) and `sandbox statement`, so that a statement written
 * without --seed is of the budgets the sandbox serves, whichever way it was started.
 */
export const SERVE_SANDBOX_SEED = 'demo';
