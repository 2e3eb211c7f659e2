/**
 * The layering of src/, checked by `npm run layering` (and .ci/run). A layer may import from the
 * layers below it, never from one above; imports that are only types count too. docs/ARCHITECTURE.md
 * draws the same picture. Top to bottom:
 *
 *   cli.ts, commands/, hosted/   the command line and hosted wiring
 *   transport/                   stdio and Streamable HTTP, sessions
 *   mcp/                         the protocol, a folder per surface (tools, answer, resolve, resources,
 *                                prompts, events, state, output, skills, views) and server.ts
 *   stack/                       the composition root: builds the client side from configuration
 *   events/                      alerts: detection after each sync, occurrence logs, webhooks
 *   writes/, insights/           the write pipeline and task writes; exact insight computations
 *   sync/                        replicas kept by deltas, exactly-once creates
 *   auth/, quota/, rules/        credentials and OAuth; the request ledger; house rules (store and matcher)
 *   shared/, statements/         argument errors and schemas, money arguments, text folding, paging; bank statement files
 *   api/                         the operations table, schemas, read builders, the client
 *   storage/                     file and Redis stores
 *   sandbox/                     the local v1 service (beside the rest: it uses api/ and storage/ only)
 */
const LAYERS = [
  ['top', '^src/(cli\\.ts|commands/|hosted/)'],
  ['transport', '^src/transport/'],
  ['mcp', '^src/mcp/'],
  ['stack', '^src/stack/'],
  ['events', '^src/events/'],
  ['writes-insights', '^src/(writes|insights)/'],
  ['sync', '^src/sync/'],
  ['auth-quota', '^src/(auth|quota|rules)/'],
  ['shared', '^src/(shared|statements)/'],
  ['api', '^src/api/'],
  ['storage', '^src/storage/'],
];

/** Each layer may not import from any layer above it. */
const upward = LAYERS.slice(1).map(([name, path], i) => ({
  name: `${name}-imports-upward`,
  comment: `${name} may only import from the layers below it`,
  severity: 'error',
  from: { path },
  to: {
    path: LAYERS.slice(0, i + 1)
      .map(([, p]) => `(${p})`)
      .join('|'),
  },
}));

module.exports = {
  forbidden: [
    ...upward,
    {
      name: 'hosted-imports-commands',
      comment: 'hosted mode is wired from shared pieces, not from the command line',
      severity: 'error',
      from: { path: '^src/hosted/' },
      to: { path: '^src/commands/' },
    },
    {
      name: 'writes-pipeline-imports-capability',
      comment: 'the write pipeline (plan, gate, steps, confirm tokens, undo journal, policy, checks) knows no task: a capability is a folder beside it that uses it',
      severity: 'error',
      from: { path: '^src/writes/pipeline/' },
      to: { path: '^src/writes/', pathNot: '^src/writes/pipeline/' },
    },
    {
      name: 'insights-core-imports-capability',
      comment: 'what every insight computes with (the budget as YNAB counts it, periods, filters) knows no insight tool',
      severity: 'error',
      from: { path: '^src/insights/core/' },
      to: { path: '^src/insights/', pathNot: '^src/insights/core/' },
    },
    {
      name: 'sync-imports-writes',
      comment: 'the replicas know nothing of the write pipeline above them',
      severity: 'error',
      from: { path: '^src/sync/' },
      to: { path: '^src/writes/' },
    },
    {
      name: 'sandbox-imports-beyond-api',
      comment: 'the sandbox is a faithful v1 service: it uses the operations table and storage helpers only',
      severity: 'error',
      from: { path: '^src/sandbox/' },
      to: { path: '^src/', pathNot: '^src/(sandbox|api|storage)/' },
    },
    {
      name: 'only-sandbox-commands-import-sandbox',
      comment: 'the product does not depend on its test double (the CLI starts it for --sandbox)',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(sandbox/|commands/)' },
      to: { path: '^src/sandbox/' },
    },
    {
      name: 'no-circular',
      comment: 'no import cycles, types included',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(node_modules|dist|test|bench|scripts|views)/' },
  },
};
