/**
 * The demo data seed `serve --sandbox` uses when none is given. `sandbox statement` defaults to
 * it too, so that a statement written without --seed is of the budgets `npm start` serves.
 */
export const SERVE_SANDBOX_SEED = 'demo';
