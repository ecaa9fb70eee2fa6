/**
 * A seeded generator of issues with known themes and realistic wording noise, for measuring
 * clustering quality (adjusted Rand index against the true theme). Each theme has its own vocabulary
 * and title templates; every issue mixes theme phrases with generic filler shared by all themes,
 * volatile tokens (ids, IPs, timestamps, paths, numbers), the odd word of another theme, and typos.
 * Theme sizes are unequal (weights 1/sqrt(rank)).
 */
import { createRng, type Rng } from '../../engine/rng.ts';

interface Theme {
  name: string;
  phrases: string[];
  titles: string[];
}

export const themes: Theme[] = [
  { name: 'disk_full', phrases: ['disk full', 'no space left on device', 'volume usage', 'quota exceeded', 'datanode disk', 'partition filled', 'log rotation', 'write failed', 'storage capacity', 'tmp directory', 'inode exhaustion', 'cleanup job'], titles: ['Disk full on {host}', 'No space left on device during write', 'Volume usage reached 100% on {host}', 'Writes fail when quota is exceeded'] },
  { name: 'memory', phrases: ['out of memory', 'heap space', 'gc pause', 'oom killer', 'memory leak', 'heap dump', 'resident memory', 'garbage collection', 'xmx setting', 'native memory', 'allocation failure', 'old generation'], titles: ['OutOfMemoryError in {service}', 'Heap space exhausted after {n} hours', 'Long GC pauses on {service}', 'Memory leak in {service} worker'] },
  { name: 'network', phrases: ['connection timeout', 'socket timeout', 'rpc retry', 'host unreachable', 'connection refused', 'dns resolution', 'packet loss', 'load balancer', 'keepalive', 'read timed out', 'network partition', 'tcp reset'], titles: ['Connection timeout calling {service}', 'RPC retries exhausted to {host}', 'Socket timeout under load', 'Connection refused by {service}'] },
  { name: 'auth', phrases: ['kerberos ticket', 'ticket expired', 'permission denied', 'delegation token', 'keytab renewal', 'authentication failed', 'principal not found', 'access denied', 'login failure', 'token renewal', 'acl check', 'credential cache'], titles: ['Kerberos ticket expired for {service}', 'Permission denied accessing {path}', 'Delegation token renewal fails', 'Authentication failed after keytab rotation'] },
  { name: 'deadlock', phrases: ['deadlock detected', 'lock wait timeout', 'transaction rollback', 'row lock', 'isolation level', 'concurrent update', 'lock contention', 'serialization failure', 'blocked transaction', 'lock ordering', 'long running transaction', 'database deadlock'], titles: ['Deadlock detected in {service} transactions', 'Lock wait timeout on orders table', 'Transaction rollback under concurrent updates', 'Serialization failure at high load'] },
  { name: 'config', phrases: ['misconfigured property', 'default value', 'yaml config', 'environment variable', 'config reload', 'wrong setting', 'missing property', 'configuration key', 'override ignored', 'config file', 'feature flag', 'invalid configuration'], titles: ['Misconfigured property in {service}', 'Config reload ignores override', 'Missing configuration key after upgrade', 'Wrong default value for {service} setting'] },
  { name: 'build', phrases: ['maven build', 'dependency conflict', 'jar version', 'classnotfoundexception', 'nosuchmethoderror', 'shaded jar', 'compile error', 'plugin version', 'transitive dependency', 'build pipeline', 'artifact resolution', 'protobuf version'], titles: ['Maven build fails on {service}', 'Dependency conflict between jar versions', 'ClassNotFoundException after upgrade', 'NoSuchMethodError from shaded jar'] },
  { name: 'ui', phrases: ['button misaligned', 'page render', 'css layout', 'dropdown menu', 'modal dialog', 'responsive layout', 'font size', 'dark mode', 'scroll position', 'tooltip text', 'icon missing', 'navigation bar'], titles: ['Button misaligned on settings page', 'Page does not render in {browser}', 'Dropdown menu hidden behind modal', 'Layout breaks on small screens'] },
  { name: 'scheduler', phrases: ['job stuck', 'queue backlog', 'scheduler preemption', 'container allocation', 'pending applications', 'resource manager', 'node manager', 'queue capacity', 'fair scheduler', 'application master', 'task retry', 'slot starvation'], titles: ['Jobs stuck in pending state', 'Queue backlog grows on {queue}', 'Scheduler preempts containers wrongly', 'Application master fails to get containers'] },
  { name: 'corruption', phrases: ['checksum mismatch', 'corrupt block', 'replica mismatch', 'data loss', 'block report', 'under replicated', 'missing blocks', 'fsck errors', 'bit rot', 'truncated file', 'inconsistent replicas', 'recovery failed'], titles: ['Checksum mismatch reading {path}', 'Corrupt blocks reported by fsck', 'Replica mismatch after restart', 'Data loss on truncated file'] },
  { name: 'tls', phrases: ['certificate expired', 'ssl handshake', 'tls version', 'truststore', 'keystore password', 'certificate chain', 'hostname verification', 'cipher suite', 'self signed', 'certificate rotation', 'pem file', 'mutual tls'], titles: ['Certificate expired on {host}', 'SSL handshake fails with {service}', 'Truststore missing intermediate certificate', 'TLS version mismatch after upgrade'] },
  { name: 'api', phrases: ['500 error', 'json parse', 'serialization error', 'endpoint returns', 'null field', 'schema validation', 'response payload', 'pagination cursor', 'rate limit', 'api version', 'content type', 'bad request'], titles: ['{service} endpoint returns 500 error', 'JSON parse error in response payload', 'Serialization error for null field', 'Pagination cursor skips records'] },
];

const filler = [
  'after the last deploy', 'in production', 'intermittently', 'for some customers', 'logs show', 'the service', 'since yesterday',
  'seen again today', 'on the primary cluster', 'workaround is a restart', 'impact is moderate', 'needs investigation', 'error rate went up',
  'we noticed', 'alert fired', 'users reported', 'started around', 'during peak traffic', 'on all nodes', 'only on staging',
];
const services = ['billing', 'gateway', 'ingest', 'search', 'checkout', 'reporting', 'namenode', 'auth-service', 'scheduler'];
const hosts = ['node-12', 'worker-3', 'db-1', 'edge-7', 'dn-42', 'rm-2'];
const browsers = ['Firefox', 'Safari', 'Chrome', 'Edge'];

function pick<T>(rng: Rng, list: readonly T[]): T {
  return list[rng.int(list.length)];
}

function volatile(rng: Rng): string {
  switch (rng.int(6)) {
    case 0: return `10.${rng.int(255)}.${rng.int(255)}.${rng.int(255)}`;
    case 1: return `2024-0${1 + rng.int(9)}-1${rng.int(9)}T0${rng.int(9)}:1${rng.int(9)}:00Z`;
    case 2: return `/var/data/${pick(rng, services)}/part-${rng.int(99999)}`;
    case 3: return `0x${(rng.int(0xffffff) + 0x100000).toString(16)}`;
    case 4: return `req-${rng.int(1e9).toString(16)}${rng.int(1e9).toString(16)}`;
    default: return String(rng.int(100000));
  }
}

function typo(rng: Rng, word: string): string {
  if (word.length < 5 || rng.next() > 0.04) return word;
  const i = 1 + rng.int(word.length - 2);
  return rng.next() < 0.5 ? word.slice(0, i) + word.slice(i + 1) : word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2);
}

const titleShapes = ['{a} on {service}', '{service}: {a} and {b}', '{a} after upgrade', 'Intermittent {a}', '{a} ({b})', '{A} in production'];

/** A title written by a person: a theme phrase or two in one of a few shapes. */
function composedTitle(rng: Rng, theme: Theme): string {
  const a = pick(rng, theme.phrases);
  const b = pick(rng, theme.phrases);
  return pick(rng, titleShapes)
    .replace('{a}', a)
    .replace('{A}', a[0].toUpperCase() + a.slice(1))
    .replace('{b}', b)
    .replace('{service}', pick(rng, services));
}

export interface SyntheticIssue {
  external_id: string;
  title: string;
  narrative: string;
  theme: string;
  severity: 'critical' | 'high' | 'medium' | 'low';
  occurred_at: string;
}

export function generateIssues(count: number, seed: number, themeCount = themes.length): SyntheticIssue[] {
  const rng = createRng(seed);
  const used = themes.slice(0, themeCount);
  const weights = used.map((_, i) => 1 / Math.sqrt(i + 1));
  const total = weights.reduce((a, b) => a + b, 0);
  const start = Date.UTC(2024, 0, 1);
  const out: SyntheticIssue[] = [];
  for (let n = 0; n < count; n++) {
    let r = rng.next() * total;
    let t = 0;
    while (r > weights[t] && t < used.length - 1) r -= weights[t++];
    const theme = used[t];
    const fill = (s: string) =>
      s.replace('{host}', pick(rng, hosts)).replace('{service}', pick(rng, services)).replace('{path}', volatile(rng)).replace('{n}', String(2 + rng.int(40))).replace('{browser}', pick(rng, browsers)).replace('{queue}', `root.${pick(rng, services)}`);
    const sentences: string[] = [];
    const sentenceCount = 2 + rng.int(4);
    for (let s = 0; s < sentenceCount; s++) {
      const parts = [pick(rng, filler), pick(rng, theme.phrases)];
      if (rng.next() < 0.7) parts.push(pick(rng, theme.phrases));
      if (rng.next() < 0.5) parts.push(volatile(rng));
      if (rng.next() < 0.08) parts.push(pick(rng, pick(rng, used).phrases)); // a word of another theme
      if (rng.next() < 0.4) parts.push(pick(rng, filler));
      for (let i = parts.length - 1; i > 0; i--) {
        const j = rng.int(i + 1);
        [parts[i], parts[j]] = [parts[j], parts[i]];
      }
      sentences.push(parts.join(' ').split(' ').map((w) => typo(rng, w)).join(' ') + '.');
    }
    out.push({
      external_id: `syn-${seed}-${n}`,
      title: rng.next() < 0.5 ? fill(pick(rng, theme.titles)) : composedTitle(rng, theme),
      narrative: sentences.join(' '),
      theme: theme.name,
      severity: pick(rng, ['critical', 'high', 'medium', 'medium', 'low', 'low'] as const),
      occurred_at: new Date(start + Math.floor(rng.next() * 300 * 86_400_000)).toISOString(),
    });
  }
  return out;
}
