import { useState } from 'preact/hooks';
import { post, upload } from '../../../api/client.ts';
import { useAction } from '../../../app/hooks.ts';
import { useStaff } from '../../../app/staffSession.ts';
import { ErrorMessage, Notice } from '../../../components/Alert.tsx';
import { WriteButton } from '../../../components/WriteButton.tsx';
import type { StepProps } from './TenantOnboarding.tsx';

interface Upload {
  id: string;
  status: 'uploaded' | 'failed' | 'committed';
  filename: string;
  format: 'csv' | 'xlsx' | null;
  byte_size: number;
  row_count: number;
  duplicate_rows: number;
  ignored_columns: string[];
  error_detail: string | null;
}

interface DatasetSummary {
  dataset_id: string;
  version: number;
  record_count: number;
  records_added: number;
  records_updated: number;
}

/** Step 3: upload historical data (drag and drop or choose a file; progress; the result) and commit it. */
export function UploadStep({ tenant }: StepProps) {
  const { canWrite, readOnlyReason } = useStaff();
  const [file, setFile] = useState<File | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [over, setOver] = useState(false);
  const [result, setResult] = useState<Upload | null>(null);
  const [dataset, setDataset] = useState<DatasetSummary | null>(null);
  const send = useAction((f: File) => upload<Upload>(`/admin/tenants/${tenant.id}/ingest/upload`, f, setProgress));
  const commit = useAction((uploadId: string) => post<DatasetSummary>(`/admin/tenants/${tenant.id}/ingest/commit`, { upload_id: uploadId }));

  const start = async (f: File) => {
    setFile(f);
    setResult(null);
    setDataset(null);
    setProgress(0);
    const answer = await send.run(f);
    if (answer) setResult(answer);
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    const dropped = e.dataTransfer?.files[0];
    if (dropped && canWrite) void start(dropped);
  };

  return (
    <section id="upload" aria-labelledby="upload-heading">
      <h2 id="upload-heading">3. Historical data</h2>
      <p>
        A CSV or XLSX file with a header row: <code>external_id, title, narrative, occurred_at, severity, source</code> (external_id, title and source
        required).
      </p>
      <fieldset
        class={`dropzone${over ? ' dropzone--over' : ''}`}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={onDrop}
      >
        <legend>Historical data file</legend>
        <p>Drop the file here, or</p>
        <label class="button-like" for="historical-file">
          Choose a file
        </label>
        <input
          id="historical-file"
          name="file"
          type="file"
          accept=".csv,.xlsx,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
          disabled={!canWrite || send.pending}
          title={canWrite ? undefined : readOnlyReason}
          onChange={(e) => {
            const chosen = (e.currentTarget as HTMLInputElement).files?.[0];
            if (chosen) void start(chosen);
          }}
        />
      </fieldset>
      {file && progress !== null && (send.pending || result) && (
        <div>
          <label for="upload-progress">Uploading {file.name}</label>
          <progress id="upload-progress" max={1} value={progress} />
        </div>
      )}
      <ErrorMessage error={send.error} />
      {result && <UploadResult upload={result} />}
      {result?.status === 'uploaded' && (
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            const summary = await commit.run(result.id);
            if (summary) {
              setDataset(summary);
              setResult({ ...result, status: 'committed' });
            }
          }}
        >
          <ErrorMessage error={commit.error} />
          <WriteButton pending={commit.pending}>Commit {result.row_count} records</WriteButton>
        </form>
      )}
      {dataset && (
        <Notice tone="success">
          Committed: dataset version {dataset.version} holds {dataset.record_count} records ({dataset.records_added} added, {dataset.records_updated} updated).
        </Notice>
      )}
    </section>
  );
}

function UploadResult({ upload: u }: { upload: Upload }) {
  return (
    <div class={`alert alert--${u.status === 'failed' ? 'error' : 'info'}`} role="status">
      <p>
        <strong>{u.filename}</strong>: <span class={`badge badge--${u.status === 'failed' ? 'failed' : 'queued'}`}>{u.status}</span> — {u.row_count} rows
        {u.format ? ` (${u.format.toUpperCase()})` : ''}.
      </p>
      {u.error_detail && <p>Rejected: {u.error_detail}</p>}
      {u.duplicate_rows > 0 && <p>{u.duplicate_rows} rows repeat an earlier (source, external_id) of the file: the later row wins.</p>}
      {u.ignored_columns.length > 0 && <p>Columns ignored (not record fields): {u.ignored_columns.join(', ')}.</p>}
    </div>
  );
}
