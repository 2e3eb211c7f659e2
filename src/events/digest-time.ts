/**
 * When the weekly digest goes out, apart from the detection that sends it, so that the settings
 * (read when the server starts, by the webhook side) load no insight code.
 */
export interface DigestTime {
  /** ISO weekday, 1 = Monday … 7 = Sunday. */
  day: number;
  hour: number;
  timeZone: string;
}

export const DEFAULT_DIGEST: DigestTime = { day: 1, hour: 8, timeZone: 'UTC' };
