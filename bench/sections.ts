/**
 * Every benchmark section, in the order `npm run bench` runs them and RESULTS.md shows them.
 * A new section is a file exporting a BenchSection (see section.ts) and one line here.
 */
import { answersSection } from './answers.bench.js';
import { bankFilesSection } from './bank-files.bench.js';
import { applyRulesSection } from './apply-rules.bench.js';
import { debtSection } from './debt.bench.js';
import { eventsSection } from './events.bench.js';
import { exportLoadSection } from './export-load.bench.js';
import { footprintSection } from './footprint.bench.js';
import { hostedSection } from './hosted.bench.js';
import { loadSection } from './load.bench.js';
import { memorySection } from './memory.bench.js';
import { planningSection } from './planning.bench.js';
import { priceRiseSection } from './price-rise.bench.js';
import { replicaSection } from './replica.bench.js';
import { reviewSection } from './review.bench.js';
import { sandboxSection } from './sandbox.bench.js';
import { sessionSection } from './session.bench.js';
import { stateSection } from './state.bench.js';
import { statementSection } from './statement.bench.js';
import { suggestRulesSection } from './suggest-rules.bench.js';
import { targetsSection } from './targets.bench.js';
import { viewsSection } from './views.bench.js';
import { writesSection } from './writes.bench.js';
import type { BenchSection } from './section.js';

export const SECTIONS: readonly BenchSection[] = [
  footprintSection,
  memorySection,
  sandboxSection,
  exportLoadSection,
  replicaSection,
  loadSection,
  stateSection,
  answersSection,
  sessionSection,
  debtSection,
  writesSection,
  reviewSection,
  planningSection,
  priceRiseSection,
  statementSection,
  bankFilesSection,
  suggestRulesSection,
  applyRulesSection,
  targetsSection,
  viewsSection,
  hostedSection,
  eventsSection,
];
