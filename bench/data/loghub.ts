/**
 * The labelled Loghub 2k systems (Zhu et al., ISSRE 2023; outside the repository: bench/data/README.md) as ingest-shaped issues with their true template, by the README's record mapping: title = the
 * first 8 words of Content (≤ 160 characters), narrative = Content, source = the system in lower case,
 * severity from Level, occurred_at from the date and time columns as UTC (a missing year is 2005).
 * Used by the engine benchmark only; never by the test suite.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseCsvRecords } from './csv.ts';
import { EXTERNAL_DATA_DIR, externalDataFile } from './externalData.ts';

export const LOGHUB_DIR = path.join(EXTERNAL_DATA_DIR, 'loghub-dev');

/** Published Drain GA on Loghub-2k (Zhu et al. 2019), the baseline each system must reach. */
export const DRAIN_GA: Record<string, number> = { HDFS: 0.9975, Linux: 0.69, OpenStack: 0.7325, Mac: 0.7865, Spark: 0.92 };

export interface LoghubIssue {
  external_id: string;
  title: string;
  narrative: string;
  source: string;
  severity: 'critical' | 'high' | 'medium' | 'low';
  occurred_at: string;
  truth: string;
}

const MONTHS: Record<string, string> = {
  Jan: '01',
  Feb: '02',
  Mar: '03',
  Apr: '04',
  May: '05',
  Jun: '06',
  Jul: '07',
  Aug: '08',
  Sep: '09',
  Oct: '10',
  Nov: '11',
  Dec: '12',
};

function severityOf(level: string | undefined): LoghubIssue['severity'] {
  const l = (level ?? '').toUpperCase();
  if (['FATAL', 'SEVERE', 'ERROR'].includes(l)) return 'high';
  if (['WARN', 'WARNING'].includes(l)) return 'medium';
  // INFO is low; an unknown level is omitted at ingest, which defaults to low as well.
  return 'low';
}

const pad = (v: string) => v.padStart(2, '0');

/** The date and time columns of the five layouts as an ISO instant (UTC). */
function occurredAt(r: Record<string, string>): string {
  let date = '2005-01-01';
  if (r.Date && /^\d{6}$/.test(r.Date))
    date = `20${r.Date.slice(0, 2)}-${r.Date.slice(2, 4)}-${r.Date.slice(4, 6)}`; // HDFS 081109
  else if (r.Date && /^\d{2}\/\d{2}\/\d{2}$/.test(r.Date))
    date = `20${r.Date.slice(0, 2)}-${r.Date.slice(3, 5)}-${r.Date.slice(6, 8)}`; // Spark 17/06/09
  else if (r.Date && /^\d{4}-\d{2}-\d{2}$/.test(r.Date))
    date = r.Date; // OpenStack
  else if (r.Month && MONTHS[r.Month]) date = `2005-${MONTHS[r.Month]}-${pad(r.Date)}`; // Linux, Mac
  let time = r.Time ?? '00:00:00';
  if (/^\d{6}$/.test(time)) time = `${time.slice(0, 2)}:${time.slice(2, 4)}:${time.slice(4, 6)}`;
  const parsed = new Date(`${date}T${time.split('.')[0]}Z`);
  return Number.isNaN(parsed.getTime()) ? '2005-01-01T00:00:00.000Z' : parsed.toISOString();
}

export function loadLoghub(system: string): LoghubIssue[] {
  const file = path.join(LOGHUB_DIR, `${system}_2k.log_structured.csv`);
  return parseCsvRecords(readFileSync(externalDataFile(file), 'utf8')).map((r) => ({
    external_id: `${system}-${r.LineId}`,
    title: r.Content.split(/\s+/).filter(Boolean).slice(0, 8).join(' ').slice(0, 160),
    narrative: r.Content,
    source: system.toLowerCase(),
    severity: severityOf(r.Level),
    occurred_at: occurredAt(r),
    truth: r.EventId,
  }));
}
