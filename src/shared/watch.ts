/** How often an open events stream looks at its budget itself (src/mcp/events-stream.ts; the 'watch' read of src/writes/pipeline/reads.ts). */
export const WATCH_MS = 15 * 60_000;
