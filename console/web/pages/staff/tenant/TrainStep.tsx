import { useEffect } from 'preact/hooks';
import { post } from '../../../api/client.ts';
import { ACTIVE_JOB_STATES, useAction, usePolling, useResource } from '../../../app/hooks.ts';
import { formatDate } from '../../../app/tenants.ts';
import { ErrorMessage } from '../../../components/Alert.tsx';
import { DataTable } from '../../../components/DataTable.tsx';
import { JobProgress, type JobStatus } from '../../../components/JobProgress.tsx';
import { WriteButton } from '../../../components/WriteButton.tsx';
import type { StepProps } from './TenantOnboarding.tsx';

interface Checkpoint {
  id: string;
  model_version: number;
  dataset_version: number;
  metrics: { records: number; k: number; patterns: number; silhouette: number | null };
  active: boolean;
  created_at: string;
  activated_at: string | null;
}

/** Step 4: train (live progress), then the checkpoints, one of which is activated. */
export function TrainStep({ tenant }: StepProps) {
  const status = usePolling<JobStatus>(`/admin/tenants/${tenant.id}/train/status`, (s) => ACTIVE_JOB_STATES.includes(s.status));
  const checkpoints = useResource<Checkpoint[]>(`/admin/tenants/${tenant.id}/checkpoints`);
  const train = useAction(() =>
    post(`/admin/tenants/${tenant.id}/train`, { retry_terminal: status.data?.status === 'failed' || status.data?.status === 'cancelled' }),
  );
  const activate = useAction((id: string) => post(`/admin/tenants/${tenant.id}/checkpoints/${id}/activate`));
  const succeeded = status.data?.status === 'succeeded';
  useEffect(() => {
    if (succeeded) void checkpoints.reload();
  }, [succeeded]);

  return (
    <section id="train" aria-labelledby="train-heading">
      <h2 id="train-heading">4. Train and activate a checkpoint</h2>
      {status.data && <JobProgress job={status.data} label="Training" />}
      <ErrorMessage error={status.error} />
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          if (await train.run()) await status.restart();
        }}
      >
        <ErrorMessage error={train.error} />
        <WriteButton pending={train.pending}>{status.data?.status === 'failed' ? 'Retry training' : 'Train a model'}</WriteButton>
      </form>
      <h3 id="checkpoints-heading">Checkpoints</h3>
      <ErrorMessage error={checkpoints.error ?? activate.error} />
      {checkpoints.data && (
        <DataTable<Checkpoint>
          caption="Checkpoints"
          rows={checkpoints.data}
          rowKey={(c) => c.id}
          empty="No checkpoint yet: train a model."
          columns={[
            { header: 'Model', cell: (c) => `v${c.model_version}` },
            { header: 'Dataset', cell: (c) => `v${c.dataset_version}`, optional: true },
            { header: 'Records', cell: (c) => c.metrics.records, optional: true },
            { header: 'Patterns', cell: (c) => c.metrics.patterns },
            { header: 'Created', cell: (c) => formatDate(c.created_at), optional: true },
            {
              header: 'Active',
              cell: (c) =>
                c.active ? (
                  <span class="badge badge--live">active</span>
                ) : (
                  <form
                    onSubmit={async (e) => {
                      e.preventDefault();
                      if (await activate.run(c.id)) await checkpoints.reload();
                    }}
                  >
                    <WriteButton pending={activate.pending} aria-label={`Activate model v${c.model_version}`}>
                      Activate
                    </WriteButton>
                  </form>
                ),
            },
          ]}
        />
      )}
    </section>
  );
}
