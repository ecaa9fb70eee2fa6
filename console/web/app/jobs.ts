/** Background jobs as GET /admin/jobs and /admin/jobs/{id} answer them. */
export interface JobSummary {
  id: string;
  kind: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
  progress: number;
  attempts: number;
  max_attempts: number;
  tenant_id: string | null;
  workspace_id: string | null;
  error_detail: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  updated_at: string;
}

export interface JobDetail extends JobSummary {
  payload: unknown;
  result: unknown;
  steps_completed: string[];
  job_key: string | null;
  queue: {
    queue_name: string | null;
    run_at: string;
    attempts: number;
    max_attempts: number;
    last_error: string | null;
    locked_at: string | null;
    locked_by: string | null;
  } | null;
}

export const JOB_STATES: JobSummary['status'][] = ['queued', 'running', 'succeeded', 'failed', 'cancelled'];

/** Seconds between two instants, for "took 2.4 s". */
export function duration(from: string | null, to: string | null): string {
  if (!from || !to) return '—';
  const ms = new Date(to).getTime() - new Date(from).getTime();
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}
