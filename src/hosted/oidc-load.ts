/**
 * oidc-provider checks the runtime as it loads, and on anything but a Node.js LTS from 22 on it
 * prints "oidc-provider WARNING: Unsupported runtime. Use Node.js v22.x LTS, or a later LTS
 * release." That is its support policy; hosted mode supports what the project does, Node 20.18 or
 * newer, and its tests run on Node 20 (docs/dependencies.md). So that one line is dropped while
 * hosted mode loads it; every other line it writes passes through, and the console is as it was
 * once loading is done.
 */
const RUNTIME_LINE = /^oidc-provider WARNING: Unsupported runtime\b/;
/** Its colours, when stderr is a terminal. */
const ANSI = /\x1b\[[\d;]*m/g;

export async function withoutRuntimeWarning<T>(load: () => Promise<T>): Promise<T> {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && RUNTIME_LINE.test(args[0].replace(ANSI, ''))) return;
    warn.apply(console, args);
  };
  try {
    return await load();
  } finally {
    console.warn = warn;
  }
}
