/**
 * `svc ingest --workspace W FILE...`: loads CSV, JSON Lines or XLSX files of ingest records into a
 * workspace through the same validation and write path as `POST /v1/ingest/batch` (batches of at most
 * 500 records, each batch one transaction). Rejected rows go to a JSON Lines file with their errors.
 * Progress is kept in a state file after every committed batch, so an interrupted load started again
 * with the same arguments skips what it already committed.
 */
import { appendFileSync, existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AppContext } from '../lib/context.ts';
import { validateIngestRecord, type IssueInput, type RecordError } from '../domain/ingestRecord.ts';
import { ingestRecords } from '../usecases/ingestRecords.ts';
import { createProgress } from './progress.ts';
import { openRecordFile } from './recordFiles.ts';

export interface IngestOptions {
  workspaceId: string;
  files: string[];
  batchSize: number;
  /** `source` of records that name none. */
  defaultSource?: string;
  rejectedFile: string;
  stateFile: string;
  /** Ignore the state file and load every file from its first row. */
  restart: boolean;
}

export interface FileSummary {
  file: string;
  format: string;
  rows: number;
  accepted: number;
  rejected: number;
  created: number;
  updated: number;
  /** Rows committed by an earlier, interrupted run and skipped now. */
  resumed_rows: number;
  seconds: number;
}

interface FileState {
  rows_done: number;
  accepted: number;
  rejected: number;
  done: boolean;
}

/** A file is the same file while its path, size and modification time are. */
function stateKey(workspaceId: string, file: string): string {
  const stat = statSync(file);
  return `${workspaceId}:${path.resolve(file)}:${stat.size}:${Math.trunc(stat.mtimeMs)}`;
}

function readState(stateFile: string): Record<string, FileState> {
  if (!existsSync(stateFile)) return {};
  try {
    return JSON.parse(readFileSync(stateFile, 'utf8')) as Record<string, FileState>;
  } catch {
    return {};
  }
}

function writeState(stateFile: string, state: Record<string, FileState>): void {
  const temporary = `${stateFile}.tmp`;
  writeFileSync(temporary, JSON.stringify(state, null, 1));
  renameSync(temporary, stateFile);
}

export async function ingestFiles(app: AppContext, options: IngestOptions, progressOut: NodeJS.WritableStream & { isTTY?: boolean }): Promise<FileSummary[]> {
  const state = options.restart ? {} : readState(options.stateFile);
  const actor = { type: 'system' as const, id: null };
  const summaries: FileSummary[] = [];
  for (const file of options.files) {
    const started = Date.now();
    const key = stateKey(options.workspaceId, file);
    const previous = state[key];
    const summary: FileSummary = {
      file,
      format: '',
      rows: 0,
      accepted: 0,
      rejected: 0,
      created: 0,
      updated: 0,
      resumed_rows: previous?.rows_done ?? 0,
      seconds: 0,
    };
    const recordFile = openRecordFile(file);
    summary.format = recordFile.format;
    if (previous?.done) {
      summaries.push({ ...summary, rows: previous.rows_done, accepted: previous.accepted, rejected: previous.rejected });
      progressOut.write(`${file}: already loaded (${previous.rows_done} rows); --restart loads it again\n`);
      continue;
    }
    const progress = createProgress(progressOut, path.basename(file), 'rows');
    const fileState: FileState = previous ?? { rows_done: 0, accepted: 0, rejected: 0, done: false };
    let batch: IssueInput[] = [];
    let rejectedInBatch: Array<{ where: string; errors: RecordError[]; record: unknown }> = [];
    let lastIndex = fileState.rows_done - 1;

    const flush = async () => {
      if (batch.length) {
        const outcome = await ingestRecords(app, { workspaceId: options.workspaceId, actor }, batch, 'batch', rejectedInBatch.length);
        summary.created += outcome.created;
        summary.updated += batch.length - outcome.created;
      }
      for (const r of rejectedInBatch)
        appendFileSync(options.rejectedFile, JSON.stringify({ file, where: r.where, errors: r.errors, record: r.record }) + '\n');
      summary.accepted += batch.length;
      summary.rejected += rejectedInBatch.length;
      fileState.accepted += batch.length;
      fileState.rejected += rejectedInBatch.length;
      fileState.rows_done = lastIndex + 1;
      state[key] = fileState;
      writeState(options.stateFile, state);
      batch = [];
      rejectedInBatch = [];
    };

    for await (const row of recordFile.rows()) {
      summary.rows = row.index + 1;
      if (row.index < fileState.rows_done) continue;
      lastIndex = row.index;
      if ('unreadable' in row.record) {
        rejectedInBatch.push({ where: row.where, errors: [{ field: 'record', message: String(row.record.unreadable) }], record: null });
      } else {
        const record = options.defaultSource && row.record.source === undefined ? { ...row.record, source: options.defaultSource } : row.record;
        const checked = validateIngestRecord(record);
        if (checked.ok) batch.push(checked.input);
        else rejectedInBatch.push({ where: row.where, errors: checked.errors, record: row.record });
      }
      if (batch.length + rejectedInBatch.length >= options.batchSize) {
        await flush();
        progress.update(summary.rows, recordFile.total, recordFile.fraction());
      }
    }
    await flush();
    progress.update(summary.rows, recordFile.total, 1);
    progress.end();
    fileState.done = true;
    writeState(options.stateFile, state);
    summary.seconds = (Date.now() - started) / 1000;
    summaries.push(summary);
  }
  return summaries;
}
