/** What the onboarding routes' answers share: timestamps as ISO strings. */
export const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());
