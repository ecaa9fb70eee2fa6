/**
 * A light suffix-stripping stemmer (in the spirit of Porter's step 1 and the S-stemmer of Harman,
 * 1991): plurals, -ing, -ed, -ly, -ness, -ment, -ation. Conservative on short words so that technical
 * tokens (hdfs, yarn, jvm) survive.
 */
const vowel = /[aeiouy]/;

function hasVowel(stem: string): boolean {
  return vowel.test(stem);
}

const SUFFIXES = [
  ['ied', 'y'],
  ['ational', 'ate'],
  ['ation', 'ate'],
  ['ness', ''],
  ['ment', ''],
  ['ingly', ''],
  ['edly', ''],
  ['ing', ''],
  ['ed', ''],
  ['ly', ''],
] as const;

export function stem(word: string): string {
  let w = word;
  if (w.length <= 3) return w;
  if (w.endsWith('ies') && w.length > 4) w = w.slice(0, -3) + 'y';
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is') && w.length > 3) w = w.slice(0, -1);

  for (const [suffix, replacement] of SUFFIXES) {
    if (w.endsWith(suffix)) {
      const base = w.slice(0, -suffix.length);
      if (base.length >= 3 && hasVowel(base)) {
        w = base + replacement;
        // "stopped" -> "stopp" -> "stop"; "failing" -> "fail"
        if (replacement === '' && /([^aeiouslz])\1$/.test(w)) w = w.slice(0, -1);
      }
      break;
    }
  }
  return w;
}
