/**
 * `npm install` on every Node the project supports, without an engine warning: every package in
 * package-lock.json (development ones too: they are what `npm install && npm test` installs)
 * accepts the oldest Node of package.json's `engines` (20.18.1), and the Node 20 running the tests.
 * npm warns (EBADENGINE) when a package's `engines.node` does not admit the running Node, by these
 * semver ranges; an optional package that does not is left out without a word (rollup's lzma
 * build, for one), as a platform package for another machine is. The MCP Inspector, which wants
 * Node 22.19+, is installed apart (test/inspector, docs/dependencies.md).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.js';

interface Locked {
  version?: string;
  optional?: boolean;
  engines?: { node?: string } | string[];
}

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, Locked> };

const floor = semver.minVersion(pkg.engines.node)!.version;
/** The oldest supported Node, and this one when it is of the same major line. */
const NODES = [floor, ...(semver.satisfies(process.version, `^${floor}`) && process.version.slice(1) !== floor ? [process.version.slice(1)] : [])];

describe('engines', () => {
  it('the project supports Node 20.18.1 and newer, as the README says', () => {
    expect(floor).toBe('20.18.1');
    expect(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')).toContain('Node.js 20.18 or newer');
  });

  it.each(NODES)('every package in package-lock.json accepts Node %s', (node) => {
    const refused: string[] = [];
    for (const [path, p] of Object.entries(lock.packages)) {
      const range = Array.isArray(p.engines) ? undefined : p.engines?.node;
      if (path && range && !p.optional && !semver.satisfies(node, range)) refused.push(`${path.replace(/^.*node_modules\//, '')}@${p.version}: node ${range}`);
    }
    expect(refused).toEqual([]);
  });
});
