import { useTenant } from '../app/tenantSession.ts';
import { ErrorMessage, Notice } from '../components/Alert.tsx';
import { Link } from '../components/Link.tsx';
import { MoreRows, useRowWindow } from '../components/MoreRows.tsx';
import { RiskSizeChart } from './charts.tsx';
import { formatDate, formatDateTime, statusLabel } from './format.ts';
import { SeverityMix } from './SeverityMix.tsx';
import { useSnapshotSummary } from './snapshot.ts';

export function NoActiveModel({ detail }: { detail: string }) {
  return (
    <section class="card" aria-labelledby="no-model">
      <h2 id="no-model">No insights yet</h2>
      <p>{detail}</p>
      <p>
        Insights appear once your svc team has trained a model on your data and activated it. Meanwhile you can <Link href="/sources">bring in data</Link> and
        see <Link href="/members">who is in your workspace</Link>.
      </p>
    </section>
  );
}

/** The active snapshot: patterns ranked by risk, a chart of risk against size, links to each pattern. */
export function TenantInsights({ query }: { query: URLSearchParams }) {
  const { me } = useTenant();
  const snapshot = useSnapshotSummary(me.workspace);
  const data = snapshot.data;
  const patterns = data?.patterns ?? [];
  const { shown, more } = useRowWindow(patterns.length, patterns.length);
  return (
    <>
      <h1>Insights</h1>
      {query.get('welcome') && <Notice tone="success">Welcome to {me.workspace}. You are signed in.</Notice>}
      <ErrorMessage error={snapshot.error} />
      {!data && !snapshot.error && (
        <p class="loading" aria-busy="true">
          Loading insights…
        </p>
      )}
      {data?.status === 'no_active_model' && <NoActiveModel detail={data.detail} />}
      {data?.status === 'active' && (
        <>
          <p class="count">
            {data.patterns.length} patterns in {data.clustered_count} of {data.record_count} records · model {data.model_version} on data version{' '}
            {data.dataset_version}, trained {formatDateTime(data.trained_at)}
          </p>
          {data.patterns.length === 0 ? (
            <p class="empty">The active model found no patterns in this data.</p>
          ) : (
            <>
              <RiskSizeChart patterns={data.patterns} />
              <div class="table-wrap">
                <table class="patterns">
                  <caption class="visually-hidden">Patterns ranked by risk, highest first</caption>
                  <thead>
                    <tr>
                      <th scope="col">Risk</th>
                      <th scope="col">Pattern</th>
                      <th scope="col">Size</th>
                      <th scope="col" class="optional">
                        Severity mix
                      </th>
                      <th scope="col" class="optional">
                        First seen
                      </th>
                      <th scope="col">Last seen</th>
                      <th scope="col" class="optional">
                        Stability
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.patterns.slice(0, shown).map((p) => (
                      <tr key={p.id}>
                        <td>
                          <span class="risk" data-level={p.risk_score >= 70 ? 'high' : p.risk_score >= 40 ? 'medium' : 'low'}>
                            {p.risk_score}
                          </span>
                        </td>
                        <td>
                          <Link href={`/insights/patterns/${p.id}`}>{p.name}</Link>
                        </td>
                        <td>{p.size}</td>
                        <td class="optional">
                          <SeverityMix counts={p.severity_counts} />
                        </td>
                        <td class="optional">{formatDate(p.first_seen_at)}</td>
                        <td>{formatDate(p.last_seen_at)}</td>
                        <td class="optional">{statusLabel(p.stability.status)}</td>
                      </tr>
                    ))}
                    <MoreRows shown={shown} total={data.patterns.length} colSpan={7} more={more} noun="patterns" />
                  </tbody>
                </table>
              </div>
            </>
          )}
        </>
      )}
    </>
  );
}
