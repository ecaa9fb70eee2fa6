/**
 * Progress of a long CLI command: on a terminal one line redrawn in place (a bar, the count, the
 * rate and the time left); otherwise a plain line at most every few seconds, so logs stay readable.
 */
const BAR = 24;

export interface Progress {
  /** `done` of `total` units (total null when unknown); `fraction` overrides done/total for the bar and ETA. */
  update(done: number, total: number | null, fraction?: number): void;
  /** Ends the display (a terminal line is finished with a line break). */
  end(): void;
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '?';
  if (seconds < 60) return `${Math.round(seconds)}s`;
  const m = Math.floor(seconds / 60);
  if (m < 60) return `${m}m${String(Math.round(seconds % 60)).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

export function createProgress(out: NodeJS.WritableStream & { isTTY?: boolean }, label: string, unit: string, now: () => number = () => Date.now()): Progress {
  const started = now();
  const live = Boolean(out.isTTY);
  let lastPlain = started;
  let lastLine = '';
  const line = (done: number, total: number | null, fraction: number | undefined) => {
    const seconds = (now() - started) / 1000;
    const rate = seconds > 0 ? done / seconds : 0;
    const share = fraction ?? (total ? done / total : undefined);
    const eta = share && share > 0 ? (seconds / share) * (1 - share) : NaN;
    const count = total === null ? `${done} ${unit}` : `${done}/${total} ${unit}`;
    const bar = share === undefined ? '' : `[${'#'.repeat(Math.round(Math.min(1, share) * BAR)).padEnd(BAR, '.')}] ${Math.floor(Math.min(1, share) * 100)}% `;
    return `${label} ${bar}${count}  ${Math.round(rate)} ${unit}/s  ${share === undefined ? `elapsed ${formatDuration(seconds)}` : `eta ${formatDuration(eta)}`}`;
  };
  return {
    update(done, total, fraction) {
      lastLine = line(done, total, fraction);
      if (live) out.write(`\r\u001b[2K${lastLine}`);
      else if (now() - lastPlain >= 5000) {
        lastPlain = now();
        out.write(`${lastLine}\n`);
      }
    },
    end() {
      if (live && lastLine) out.write('\n');
      else if (!live && lastLine) out.write(`${lastLine}\n`);
      lastLine = '';
    },
  };
}
