/**
 * What a benchmark section is, for the runner (run.ts) and the sections (sections.ts lists them).
 * A section measures and reports; it never asserts. Rows become a table in bench/RESULTS.md; key
 * figures with a target are listed with whether this run met it.
 */
export type Row = Record<string, string | number>;

export interface Reporter {
  /** One row of the section's table (columns are the union of the rows' keys, in first-seen order). */
  row(values: Row): void;
  /** A key figure, with the goal it is held to when there is one. */
  figure(name: string, value: string, target?: { goal: string; met: boolean }): void;
  /** A sentence under the section's table: how it was measured, a caveat. */
  note(text: string): void;
}

export interface BenchSection {
  /** Used on the command line: `npm run bench -- <name>`. */
  name: string;
  /** Heading in RESULTS.md. */
  title: string;
  /** What the section measures and how, in a sentence or two. */
  about: string;
  run(report: Reporter): Promise<void>;
}
