/**
 * The real Hadoop bug reports (outside the repository: bench/data/README.md; 2,503 Jira issues, 2020-2024; GitBugs
 * by Avinash Patil, CC BY 4.0, arXiv:2504.09651) as typed rows and as ingest records. Shared by the
 * ingest benchmark and the engine benchmarks; never by the test suite, which must not depend on
 * data outside the repository.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { SnapshotInput } from '../../engine/stages/01_snapshot.ts';
import { parseCsvRecords } from './csv.ts';
import { EXTERNAL_DATA_DIR, externalDataFile } from './externalData.ts';

export const HADOOP_BUGS_CSV = path.join(EXTERNAL_DATA_DIR, 'gitbugs-hadoop', 'hadoop_bugs.csv');
export const HADOOP_SOURCE = 'hadoop-jira';

export interface HadoopBug {
  issueId: string;
  summary: string;
  status: string;
  priority: string;
  resolution: string;
  /** `Created` read as UTC (the export carries no zone). */
  created: Date;
  resolved: Date | null;
  affectsVersions: string;
  /** Empty when the report has none (143 rows). */
  description: string;
}

const MONTHS: Record<string, number> = { Jan: 0, Feb: 1, Mar: 2, Apr: 3, May: 4, Jun: 5, Jul: 6, Aug: 7, Sep: 8, Oct: 9, Nov: 10, Dec: 11 };

/** Jira's `dd/Mon/yy HH:MM` (e.g. `30/Sep/21 17:20`) as a UTC instant; two-digit years are 20yy. */
export function parseJiraDate(value: string): Date {
  const m = /^(\d{1,2})\/([A-Z][a-z]{2})\/(\d{2}) (\d{1,2}):(\d{2})$/.exec(value.trim());
  const month = m ? MONTHS[m[2]] : undefined;
  if (!m || month === undefined) throw new Error(`not a Jira date (dd/Mon/yy HH:MM): ${JSON.stringify(value)}`);
  const date = new Date(Date.UTC(2000 + Number(m[3]), month, Number(m[1]), Number(m[4]), Number(m[5])));
  if (date.getUTCDate() !== Number(m[1])) throw new Error(`no such day: ${JSON.stringify(value)}`);
  return date;
}

const COLUMNS = ['Summary', 'Issue id', 'Status', 'Priority', 'Resolution', 'Created', 'Resolved', 'Affects Version/s', 'Description'];

/** Reads and checks the CSV (every expected column present, every date readable). */
export function loadHadoopBugs(file: string = HADOOP_BUGS_CSV): HadoopBug[] {
  const records = parseCsvRecords(readFileSync(externalDataFile(file), 'utf8'));
  const missing = COLUMNS.filter((c) => records.length && !(c in records[0]));
  if (missing.length) throw new Error(`${file}: missing columns ${missing.join(', ')}`);
  return records.map((r) => ({
    issueId: r['Issue id'],
    summary: r.Summary,
    status: r.Status,
    priority: r.Priority,
    resolution: r.Resolution,
    created: parseJiraDate(r.Created),
    resolved: r.Resolved.trim() ? parseJiraDate(r.Resolved) : null,
    affectsVersions: r['Affects Version/s'],
    description: r.Description,
  }));
}

/** Jira priority to the service's severity: Blocker critical, Critical high, Major medium, Minor and Trivial low. */
export const SEVERITY_OF_PRIORITY: Record<string, 'critical' | 'high' | 'medium' | 'low'> = {
  Blocker: 'critical',
  Critical: 'high',
  Major: 'medium',
  Minor: 'low',
  Trivial: 'low',
};

/** A bug as an issue of the engine's snapshot input (the pure pipeline without a database), with id `id`. */
export function toSnapshotIssue(bug: HadoopBug, id: string): SnapshotInput['issues'][number] {
  return {
    id,
    title: bug.summary,
    narrative: bug.description,
    severity: SEVERITY_OF_PRIORITY[bug.priority] ?? 'medium',
    source: HADOOP_SOURCE,
    occurred_at: bug.created.toISOString(),
    created_at: bug.created.toISOString(),
  };
}

export interface HadoopIngestRecord {
  source: string;
  external_id: string;
  title: string;
  narrative?: string;
  severity?: string;
  occurred_at: string;
}

/**
 * A bug as a `POST /v1/ingest/*` record. An empty description is left out (the service accepts the
 * record as `blocked_no_narrative`); an unknown priority is left out (the service's default applies).
 */
export function toIngestRecord(bug: HadoopBug): HadoopIngestRecord {
  const record: HadoopIngestRecord = {
    source: HADOOP_SOURCE,
    external_id: bug.issueId,
    title: bug.summary,
    occurred_at: bug.created.toISOString(),
  };
  if (bug.description.trim()) record.narrative = bug.description;
  const severity = SEVERITY_OF_PRIORITY[bug.priority];
  if (severity) record.severity = severity;
  return record;
}
