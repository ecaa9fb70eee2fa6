/** Timestamps as the product surface and its export write them: ISO 8601 strings (UTC). */
export const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());
