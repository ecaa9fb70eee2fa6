import { Notice } from './Alert.tsx';

export interface JobStatus {
  status: 'not_started' | 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
  progress: number;
  steps_completed?: string[];
  error_detail: string | null;
}

const LABELS: Record<JobStatus['status'], string> = {
  not_started: 'Not started',
  queued: 'Queued',
  running: 'Running',
  succeeded: 'Succeeded',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/** A platform job's live state: status, a progress bar, the steps done and the error when it failed. */
export function JobProgress({ job, label }: { job: JobStatus; label: string }) {
  return (
    <div class="job-progress" aria-live="polite">
      <p>
        <span class={`badge badge--${job.status}`}>{LABELS[job.status]}</span> <span>{job.progress}%</span>
      </p>
      <progress max={100} value={job.progress} aria-label={`${label} progress`} />
      {job.steps_completed && job.steps_completed.length > 0 && (
        <ol class="steps" aria-label={`${label} steps completed`}>
          {job.steps_completed.map((s) => (
            <li key={s}>{s}</li>
          ))}
        </ol>
      )}
      {job.error_detail && <Notice tone="warning">{job.error_detail}</Notice>}
    </div>
  );
}
