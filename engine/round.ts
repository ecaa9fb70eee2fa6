/** `x` rounded to `digits` decimals: how engine outputs keep their numbers short (and digests stable). */
export const round = (x: number, digits = 6): number => Math.round(x * 10 ** digits) / 10 ** digits;
