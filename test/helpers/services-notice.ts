/**
 * vitest globalSetup: prints, once for the whole run, one line per missing service (see
 * services.ts), to stderr so that a JSON reporter on stdout stays clean. The statuses come from
 * vitest.config.ts, which checked them to set the tags.
 */
import type { TestProject } from 'vitest/node';
import { serviceNotices, type ServiceStatus } from './services.js';

declare module 'vitest' {
  export interface ProvidedContext {
    services: ServiceStatus[];
  }
}

export default function setup(project: TestProject): void {
  for (const line of serviceNotices(project.getProvidedContext().services ?? [])) process.stderr.write(`[services] ${line}\n`);
}
