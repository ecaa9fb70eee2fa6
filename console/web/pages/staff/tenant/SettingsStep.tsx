import { useState } from 'preact/hooks';
import { put } from '../../../api/client.ts';
import { fieldErrors } from '../../../api/errors.ts';
import { useAction } from '../../../app/hooks.ts';
import { formatDate } from '../../../app/tenants.ts';
import { ErrorMessage, Notice } from '../../../components/Alert.tsx';
import { CheckboxField, TextField } from '../../../components/Field.tsx';
import { WriteButton } from '../../../components/WriteButton.tsx';
import type { StepProps } from './TenantOnboarding.tsx';

interface DataPolicy {
  retention_days: number | null;
  redact_pii: boolean;
  updated_at: string | null;
}

interface TrainingConfig {
  config_hash: string;
  config: Record<string, number>;
  updated_at: string | null;
}

/** The training settings a person usually tunes; the others keep the engine's shipped defaults. */
const TRAINING_FIELDS = [
  { key: 'k_min', label: 'Fewest clusters (k_min)' },
  { key: 'k_max', label: 'Most clusters (k_max)' },
  { key: 'min_cluster_size', label: 'Smallest pattern (min_cluster_size)' },
  { key: 'seed', label: 'Random seed' },
] as const;

/** A number when the text is one; otherwise the text as typed, so the API's 422 says what is wrong with it. */
const toNumber = (v: string): number | string | undefined => (v.trim() === '' ? undefined : Number.isFinite(Number(v)) ? Number(v) : v.trim());

/** Step 2: data policy and training configuration (PUT replaces; the answer is what is in force). */
export function SettingsStep({ tenant }: StepProps) {
  const [retention, setRetention] = useState('');
  const [redact, setRedact] = useState(false);
  const [policy, setPolicy] = useState<DataPolicy | null>(null);
  const savePolicy = useAction(() =>
    put<DataPolicy>(`/admin/tenants/${tenant.id}/data-policy`, { retention_days: toNumber(retention) ?? null, redact_pii: redact }),
  );
  const policyErrors = fieldErrors(savePolicy.error);

  const [values, setValues] = useState<Record<string, string>>({});
  const [config, setConfig] = useState<TrainingConfig | null>(null);
  const saveConfig = useAction(() => {
    const body: Record<string, number | string> = {};
    for (const { key } of TRAINING_FIELDS) {
      const n = toNumber(values[key] ?? '');
      if (n !== undefined) body[key] = n;
    }
    return put<TrainingConfig>(`/admin/tenants/${tenant.id}/training-config`, body);
  });
  const configErrors = fieldErrors(saveConfig.error);

  return (
    <section id="settings" aria-labelledby="settings-heading">
      <h2 id="settings-heading">2. Data policy and training configuration</h2>
      <div class="columns">
        <form
          class="grow"
          aria-labelledby="policy-heading"
          onSubmit={async (e) => {
            e.preventDefault();
            const saved = await savePolicy.run();
            if (saved) setPolicy(saved);
          }}
        >
          <h3 id="policy-heading">Data policy</h3>
          <TextField
            label="Retention (days, empty: keep everything)"
            name="retention_days"
            inputMode="numeric"
            value={retention}
            onValue={setRetention}
            error={policyErrors.retention_days}
          />
          <CheckboxField label="Mask e-mail addresses and phone numbers in committed records" name="redact_pii" checked={redact} onChecked={setRedact} />
          {Object.keys(policyErrors).length === 0 && <ErrorMessage error={savePolicy.error} />}
          {policy && (
            <Notice tone="success">
              Policy saved {formatDate(policy.updated_at)}: retention {policy.retention_days ?? 'unlimited'}
              {policy.retention_days ? ' days' : ''}, masking {policy.redact_pii ? 'on' : 'off'}.
            </Notice>
          )}
          <WriteButton pending={savePolicy.pending}>Save data policy</WriteButton>
        </form>
        <form
          class="grow"
          aria-labelledby="training-heading"
          onSubmit={async (e) => {
            e.preventDefault();
            const saved = await saveConfig.run();
            if (saved) setConfig(saved);
          }}
        >
          <h3 id="training-heading">Training configuration</h3>
          {TRAINING_FIELDS.map(({ key, label }) => (
            <TextField
              key={key}
              label={label}
              name={key}
              inputMode="numeric"
              value={values[key] ?? ''}
              onValue={(v) => setValues({ ...values, [key]: v })}
              error={configErrors[key]}
            />
          ))}
          {Object.keys(configErrors).length === 0 && <ErrorMessage error={saveConfig.error} />}
          {config && (
            <Notice tone="success">
              Configuration saved (hash <code>{config.config_hash.slice(0, 12)}</code>): k {config.config.k_min}–{config.config.k_max}, smallest pattern{' '}
              {config.config.min_cluster_size}.
            </Notice>
          )}
          <WriteButton pending={saveConfig.pending}>Save training configuration</WriteButton>
        </form>
      </div>
    </section>
  );
}
