/** The Events extension's error codes (SEP-3415, §Error Handling), apart so that events.ts and events-guard.ts both read them. */
export const ERR = { invalidParams: -32602, notFound: -32023, forbidden: -32024, exhausted: -32025, unsupported: -32026, callback: -32027 } as const;
