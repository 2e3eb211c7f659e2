/**
 * Arguments every insight shares beyond the filter's (./filter.ts): how much detail, and paging
 * with the insight's own page size.
 */
import * as z from 'zod';
import { PAGING } from '../../shared/arg-schemas.js';
import { ENUM_DOCS } from '../../shared/field-docs.js';

/**
 * Compact rows by default: no ids a name stands for, usual values left out; "full" gives every
 * field (the server's instructions say so once for every tool, so it is not described here).
 */
export const DETAIL_ARG = { detail: z.enum(['compact', 'full']).optional().describe(ENUM_DOCS.detail) };

/** Paging with the tool's own page size (the API tools' default of 50 is not theirs). */
export const pagingArgs = (size: string) => ({ ...PAGING, limit: PAGING.limit.describe(`Page size (default ${size}); fewer past the size cap.`) });
