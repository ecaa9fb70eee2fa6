import { useTenant } from '../app/tenantSession.ts';
import { ErrorMessage } from '../components/Alert.tsx';
import { Link } from '../components/Link.tsx';
import { HazardChart } from './charts.tsx';
import { days, formatDate, formatDateTime, percent, statusLabel } from './format.ts';
import { NoActiveModel } from './Insights.tsx';
import { SeverityMix } from './SeverityMix.tsx';
import { usePatternSnapshot } from './snapshot.ts';
import type { InsightSnapshot, PatternForecast } from './types.ts';

type Active = Extract<InsightSnapshot, { status: 'active' }>;

function Forecast({ forecast, settings }: { forecast: PatternForecast | null; settings: Active['forecasts'] }) {
  if (!forecast || !settings) return <p>The active model does not produce recurrence forecasts (it was trained before they existed).</p>;
  if (forecast.status === 'not_fitted') {
    return (
      <p>
        No recurrence forecast for this pattern:{' '}
        {forecast.reason === 'no_timestamps'
          ? 'none of its records says when it happened.'
          : forecast.reason === 'dormant'
            ? 'it has been quiet for longer than its model explains, so the model no longer forecasts it.'
            : `too few recurrences to model (${forecast.detail}).`}
      </p>
    );
  }
  const pct = Math.round(settings.interval_level * 100);
  const next = forecast.expected_next_at;
  return (
    <div class="forecast">
      <dl class="facts facts--stacked">
        <dt>Expected next occurrence</dt>
        <dd>
          {formatDate(next.estimate)} ({pct}% interval of that expectation: {formatDate(next.lower)} to {formatDate(next.upper)}), that is{' '}
          {days(forecast.expected_next_days.estimate)} after {formatDate(settings.as_of)}
        </dd>
        <dt>Chance of a recurrence within {settings.recurrence_horizon_days} days</dt>
        <dd>
          {percent(forecast.recurrence_probability.estimate)} ({pct}% interval {percent(forecast.recurrence_probability.lower)} to{' '}
          {percent(forecast.recurrence_probability.upper)})
        </dd>
        <dt>Last occurrence</dt>
        <dd>
          {formatDateTime(forecast.last_occurrence_at)} ({days(forecast.since_last_days)} before the forecast date)
        </dd>
        <dt>Model</dt>
        <dd>
          {forecast.model === 'weibull' ? 'Weibull' : 'Exponential'}, fitted to {forecast.occurrences} occurrences
        </dd>
      </dl>
      <HazardChart forecast={forecast} level={settings.interval_level} />
    </div>
  );
}

function PatternNotFound() {
  return (
    <>
      <h1>Pattern not found</h1>
      <p>
        The active model has no pattern with this id (a newer model may have replaced it). <Link href="/insights">See all patterns</Link>.
      </p>
    </>
  );
}

/** One pattern of the active snapshot: its terms, severity mix, records and recurrence forecast. */
export function TenantPattern({ params }: { params: { patternId: string } }) {
  const { me, can } = useTenant();
  const snapshot = usePatternSnapshot(me.workspace, params.patternId);
  // An id that is no pattern id at all is not asked for: the page says "not found" as for any other.
  const wellFormed = /^[0-9a-f-]{36}$/i.test(params.patternId);
  const data = snapshot.data;
  if (!wellFormed) return <PatternNotFound />;
  if (snapshot.error) return <ErrorMessage error={snapshot.error} />;
  if (!data)
    return (
      <p class="loading" aria-busy="true">
        Loading the pattern…
      </p>
    );
  if (data.status === 'no_active_model') return <NoActiveModel detail={data.detail} />;
  const p = data.patterns.find((x) => x.id === params.patternId);
  if (!p) return <PatternNotFound />;
  const capHref = `/remediation/caps/new?target_type=pattern&target_id=${encodeURIComponent(p.id)}&title=${encodeURIComponent(`Address: ${p.name}`)}`;
  return (
    <>
      <p>
        <Link href="/insights">← All patterns</Link>
      </p>
      <h1>{p.name}</h1>
      <div class="actions">
        {can('caps.write') && (
          <Link href={capHref} class="button">
            Create a corrective action plan
          </Link>
        )}
        {can('caps.read') && <Link href={`/remediation/caps?target_type=pattern&target_id=${encodeURIComponent(p.id)}`}>Plans for this pattern</Link>}
      </div>
      <section class="card" aria-labelledby="pattern-facts">
        <h2 id="pattern-facts">Summary</h2>
        <dl class="facts">
          <dt>Risk score</dt>
          <dd>
            {p.risk_score} of 100 (severity {p.risk_components.severity.toFixed(2)}, recency {p.risk_components.recency.toFixed(2)}, volume{' '}
            {p.risk_components.volume.toFixed(2)})
          </dd>
          <dt>Rank</dt>
          <dd>{p.rank}</dd>
          <dt>Size</dt>
          <dd>{p.size} records</dd>
          <dt>Severity mix</dt>
          <dd>
            <SeverityMix counts={p.severity_counts} />
          </dd>
          <dt>First seen</dt>
          <dd>{formatDateTime(p.first_seen_at)}</dd>
          <dt>Last seen</dt>
          <dd>{formatDateTime(p.last_seen_at)}</dd>
          <dt>Stability</dt>
          <dd>
            {statusLabel(p.stability.status)}
            {p.stability.jaccard !== null && ` (overlap with the previous model ${percent(p.stability.jaccard)})`}
          </dd>
          <dt>Top terms</dt>
          <dd>
            <ul class="terms">
              {p.top_terms.map((t) => (
                <li key={t}>{t}</li>
              ))}
            </ul>
          </dd>
        </dl>
      </section>
      <section class="card" aria-labelledby="pattern-forecast">
        <h2 id="pattern-forecast">Recurrence forecast</h2>
        <Forecast forecast={p.forecast} settings={data.forecasts} />
      </section>
      <section aria-labelledby="pattern-records">
        <h2 id="pattern-records">Records</h2>
        <p class="count">
          The {p.records.length} most recent of {p.size} records.
        </p>
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">The pattern's most recent records</caption>
            <thead>
              <tr>
                <th scope="col">Occurred</th>
                <th scope="col">Title</th>
                <th scope="col">Severity</th>
                <th scope="col" class="optional">
                  Source and id
                </th>
              </tr>
            </thead>
            <tbody>
              {p.records.map((r) => (
                <tr key={r.id}>
                  <td>{formatDateTime(r.occurred_at)}</td>
                  <td>{r.title}</td>
                  <td>
                    <span class={`badge badge--sev-${r.severity}`}>{r.severity}</span>
                  </td>
                  <td class="optional">
                    {r.source} · {r.external_id}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </>
  );
}
