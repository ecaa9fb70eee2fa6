import { useState } from 'preact/hooks';
import { post, upload } from '../api/client.ts';
import { fieldErrors } from '../api/errors.ts';
import { useAction, useResource } from '../app/hooks.ts';
import { useTenant } from '../app/tenantSession.ts';
import { ErrorMessage, Notice } from '../components/Alert.tsx';
import { SelectField, TextField } from '../components/Field.tsx';
import { formatDateTime } from './format.ts';
import type { Source, Upload } from './types.ts';

const KINDS = [
  { value: 'file_upload', label: 'File upload (CSV or XLSX)' },
  { value: 'api', label: 'API' },
  { value: 'webhook', label: 'Webhook' },
  { value: 'email', label: 'E-mail' },
];

function RegisterSource({ onDone }: { onDone: () => void }) {
  const [name, setName] = useState('');
  const [kind, setKind] = useState('file_upload');
  const create = useAction(() => post<Source>('/sources', { name: name.trim(), kind }));
  const errors = fieldErrors(create.error);
  const onSubmit = async (e: Event) => {
    e.preventDefault();
    if (await create.run()) {
      setName('');
      onDone();
    }
  };
  return (
    <section class="card" aria-labelledby="register-source">
      <h2 id="register-source">Register a source</h2>
      <form onSubmit={onSubmit} noValidate>
        <TextField label="Name" name="name" required maxLength={200} value={name} onValue={setName} error={errors.name} />
        <SelectField label="Kind" name="kind" value={kind} onValue={setKind} options={KINDS} error={errors.kind} />
        {!errors.name && !errors.kind && <ErrorMessage error={create.error} />}
        <button type="submit" disabled={create.pending}>
          Register
        </button>
      </form>
    </section>
  );
}

const INVALID = /^Invalid records: (.*?)(?: \(and (\d+) more problems\))?\.$/s;

function UploadResult({ result }: { result: Upload }) {
  if (result.status === 'failed') {
    // "Invalid records: line 3, column 'title': …; line 5, …" lists the rejected rows with their reasons.
    const rows = INVALID.exec(result.error_detail ?? '');
    return (
      <div class="alert alert--error" role="alert">
        <p>
          {result.filename} was not accepted: no row of it was added.{rows ? ' Rejected rows and why:' : ` ${result.error_detail}`}
        </p>
        {rows && (
          <ul>
            {rows[1].split('; ').map((problem) => (
              <li key={problem}>{problem}</li>
            ))}
            {rows[2] && <li>and {rows[2]} more problems</li>}
          </ul>
        )}
        <p>Correct the file and upload it again.</p>
      </div>
    );
  }
  return (
    <Notice tone="success">
      {result.filename}: {result.row_count} rows accepted, none rejected
      {result.duplicate_rows > 0 && ` (${result.duplicate_rows} repeated an earlier row of the file; the later one was kept)`}
      {result.ignored_columns.length > 0 && `; columns ignored: ${result.ignored_columns.join(', ')}`}. They are in the next version of your data.
    </Notice>
  );
}

/** Upload one file to a source, with progress; another kind's 409 is shown here, in place. */
function UploadToSource({ source, onDone }: { source: Source; onDone: () => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [result, setResult] = useState<Upload | null>(null);
  const send = useAction((f: File) => upload<Upload>(`/sources/${source.id}/upload`, f, setProgress));
  const onSubmit = async (e: Event) => {
    e.preventDefault();
    if (!file) return;
    setResult(null);
    setProgress(0);
    const uploaded = await send.run(file);
    setProgress(null);
    if (uploaded) {
      setResult(uploaded);
      onDone();
    }
  };
  const inputId = `file-${source.id}`;
  return (
    <form class="upload" onSubmit={onSubmit} noValidate aria-label={`Upload a file to ${source.name}`}>
      <div class="field">
        <label for={inputId}>File for {source.name}</label>
        <input
          id={inputId}
          type="file"
          name="file"
          accept=".csv,.xlsx,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
          onChange={(e) => setFile((e.currentTarget as HTMLInputElement).files?.[0] ?? null)}
        />
        <p class="field__hint">CSV or XLSX with a header row: external_id, title, narrative, occurred_at, severity, source.</p>
      </div>
      {progress !== null && (
        <div>
          <label for={`${inputId}-progress`}>Uploading {file?.name}</label>
          <progress id={`${inputId}-progress`} max={1} value={progress}>
            {Math.round(progress * 100)}%
          </progress>
        </div>
      )}
      <ErrorMessage error={send.error} />
      {result && <UploadResult result={result} />}
      <button type="submit" disabled={!file || send.pending}>
        Upload
      </button>
    </form>
  );
}

/** Where the workspace's records come from: the list, registering a source, uploading a file. */
export function TenantSources() {
  const { can } = useTenant();
  const sources = useResource<Source[]>('/sources');
  const manage = can('sources.manage');
  return (
    <>
      <h1>Sources</h1>
      <ErrorMessage error={sources.error} />
      {!sources.data && !sources.error && <p class="loading">Loading sources…</p>}
      {sources.data && sources.data.length === 0 && <p class="empty">No sources yet.</p>}
      {sources.data && sources.data.length > 0 && (
        <ul class="source-list">
          {sources.data.map((s) => (
            <li key={s.id} class="card">
              <h2>{s.name}</h2>
              <dl class="facts">
                <dt>Kind</dt>
                <dd>{KINDS.find((k) => k.value === s.kind)?.label ?? s.kind}</dd>
                <dt>Uploads</dt>
                <dd>
                  {s.upload_count}
                  {s.last_upload_at && `, last ${formatDateTime(s.last_upload_at)}`}
                </dd>
                <dt>Registered</dt>
                <dd>{formatDateTime(s.created_at)}</dd>
              </dl>
              {manage && <UploadToSource source={s} onDone={() => void sources.reload()} />}
            </li>
          ))}
        </ul>
      )}
      {manage ? (
        <RegisterSource onDone={() => void sources.reload()} />
      ) : (
        <p class="count">Your role can see the sources; registering and uploading needs the sources.manage permission.</p>
      )}
    </>
  );
}
