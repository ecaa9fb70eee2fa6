import { useState } from 'preact/hooks';
import { post } from '../../../api/client.ts';
import { useAction } from '../../../app/hooks.ts';
import { ErrorMessage } from '../../../components/Alert.tsx';
import { DataTable } from '../../../components/DataTable.tsx';
import { WriteButton } from '../../../components/WriteButton.tsx';
import type { StepProps } from './TenantOnboarding.tsx';

interface Source {
  id: string;
  name: string;
  kind: string;
}

/** Step 5: seed the tenant's sources (the default file-upload source; existing names are kept). */
export function SourcesStep({ tenant }: StepProps) {
  const [sources, setSources] = useState<Source[] | null>(null);
  const seed = useAction(() => post<Source[]>(`/admin/tenants/${tenant.id}/sources/seed`));
  return (
    <section id="sources" aria-labelledby="sources-heading">
      <h2 id="sources-heading">5. Sources</h2>
      <p>Adds the “Historical import” file-upload source the tenant’s users upload into; sources it already has are kept.</p>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          const seeded = await seed.run();
          if (seeded) setSources(seeded);
        }}
      >
        <ErrorMessage error={seed.error} />
        <WriteButton pending={seed.pending}>Seed sources</WriteButton>
      </form>
      {sources && (
        <DataTable<Source>
          caption="Sources"
          rows={sources}
          rowKey={(s) => s.id}
          empty="No sources."
          columns={[
            { header: 'Name', cell: (s) => s.name },
            { header: 'Kind', cell: (s) => s.kind },
          ]}
        />
      )}
    </section>
  );
}
