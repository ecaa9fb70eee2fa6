/** Feature hashing (Weinberger et al. 2009): a token's feature index is its 32-bit FNV-1a hash mod the dimension. */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export const featureIndex = (token: string, dimensions: number): number => fnv1a(token) % dimensions;
