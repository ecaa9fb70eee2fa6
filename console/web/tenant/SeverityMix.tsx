import { SEVERITIES, type Severity } from './types.ts';

/** A pattern's records by severity: a small stacked bar with the counts written out for everyone. */
export function SeverityMix({ counts }: { counts: Record<Severity, number> }) {
  const total = SEVERITIES.reduce((n, s) => n + counts[s], 0) || 1;
  const text = SEVERITIES.filter((s) => counts[s] > 0)
    .map((s) => `${counts[s]} ${s}`)
    .join(', ');
  return (
    <span class="sevmix">
      <span class="sevmix__bar" aria-hidden="true">
        {SEVERITIES.map((s) => (counts[s] > 0 ? <span key={s} class={`sev sev--${s}`} style={{ width: `${(counts[s] / total) * 100}%` }} /> : null))}
      </span>
      <span class="sevmix__text">{text}</span>
    </span>
  );
}
