/**
 * taxonomy: the vocabulary of engine stage 3 (extraction). Each domain and root cause lists the
 * keywords (phrases, matched on normalised text) that are evidence for it; each root cause carries a
 * fix playbook for stage 10. Below `extraction_threshold` confidence the engine abstains.
 */
import { z } from 'zod';

const id = z
  .string()
  .regex(/^[a-z][a-z0-9_]*$/, 'must be a lowercase identifier (a-z, 0-9, _)')
  .max(60);
const keywords = z.array(z.string().trim().min(2).max(60)).min(1).max(200);

export const taxonomySchema = z.strictObject({
  domains: z
    .array(z.strictObject({ id, name: z.string().trim().min(1).max(100), keywords }))
    .min(1)
    .max(200),
  root_causes: z
    .array(
      z.strictObject({
        id,
        name: z.string().trim().min(1).max(100),
        keywords,
        playbook: z.strictObject({
          title: z.string().trim().min(1).max(200),
          steps: z.array(z.string().trim().min(1).max(500)).min(1).max(30),
          effort_hours: z.number().min(0).max(10_000),
          expected_reduction: z.number().gt(0).max(1),
        }),
      }),
    )
    .min(1)
    .max(200),
  extraction_threshold: z.number().min(0).max(1),
});
export type TaxonomyConfig = z.infer<typeof taxonomySchema>;

export function checkTaxonomy(doc: TaxonomyConfig, issue: (path: string, message: string) => void): void {
  for (const list of ['domains', 'root_causes'] as const) {
    const seen = new Set<string>();
    doc[list].forEach((entry, i) => {
      if (seen.has(entry.id)) issue(`${list}.${i}.id`, `duplicate id '${entry.id}'`);
      seen.add(entry.id);
    });
  }
}

const playbook = (title: string, steps: string[], effort_hours: number, expected_reduction: number) => ({ title, steps, effort_hours, expected_reduction });

export const defaultTaxonomy: TaxonomyConfig = {
  extraction_threshold: 0.35,
  domains: [
    {
      id: 'storage',
      name: 'Storage and file systems',
      keywords: ['disk', 'file', 'filesystem', 'hdfs', 'block', 'replica', 'datanode', 'namenode', 'volume', 'storage', 's3', 'bucket'],
    },
    { id: 'network', name: 'Network and RPC', keywords: ['network', 'socket', 'connection', 'rpc', 'dns', 'tcp', 'http', 'ssl', 'tls', 'proxy', 'port'] },
    { id: 'database', name: 'Databases', keywords: ['database', 'sql', 'query', 'postgres', 'mysql', 'transaction', 'index', 'table', 'schema'] },
    {
      id: 'compute',
      name: 'Compute and scheduling',
      keywords: ['container', 'scheduler', 'yarn', 'node manager', 'resource manager', 'cpu', 'memory', 'jvm', 'heap', 'executor', 'task', 'job'],
    },
    {
      id: 'security',
      name: 'Security and access',
      keywords: ['kerberos', 'token', 'auth', 'authentication', 'permission', 'acl', 'credential', 'security', 'certificate', 'login'],
    },
    {
      id: 'build',
      name: 'Build, dependencies and tests',
      keywords: ['build', 'maven', 'compile', 'dependency', 'jar', 'test', 'junit', 'ci', 'docker', 'version'],
    },
    {
      id: 'configuration',
      name: 'Configuration and deployment',
      keywords: ['config', 'configuration', 'property', 'setting', 'deploy', 'deployment', 'environment', 'upgrade'],
    },
    { id: 'application', name: 'Application logic and UI', keywords: ['ui', 'page', 'api', 'endpoint', 'button', 'display', 'web', 'response', 'request'] },
  ],
  root_causes: [
    {
      id: 'resource_exhaustion',
      name: 'Resource exhaustion',
      keywords: ['out of memory', 'oom', 'outofmemoryerror', 'disk full', 'no space left', 'exhausted', 'too many open files', 'quota exceeded', 'heap space'],
      playbook: playbook(
        'Bound and monitor resource use',
        ['Add limits and back-pressure where usage grows unbounded', 'Alert on saturation before exhaustion', 'Load-test the path at peak volume'],
        32,
        0.6,
      ),
    },
    {
      id: 'race_condition',
      name: 'Race condition or deadlock',
      keywords: ['race', 'race condition', 'concurrent', 'concurrency', 'deadlock', 'thread', 'synchroniz', 'lock', 'interleav'],
      playbook: playbook(
        'Remove the race',
        ['Reproduce with a stress test', 'Protect shared state with one lock order or make it immutable', 'Add a regression test running the interleaving'],
        40,
        0.7,
      ),
    },
    {
      id: 'null_handling',
      name: 'Missing null or edge-case handling',
      keywords: ['nullpointerexception', 'null pointer', 'npe', 'null', 'empty', 'undefined', 'edge case', 'illegalargumentexception'],
      playbook: playbook(
        'Validate inputs at the boundary',
        ['Find where the value can be absent', 'Validate or default it at the boundary', 'Add tests for empty and missing values'],
        12,
        0.8,
      ),
    },
    {
      id: 'timeout',
      name: 'Timeouts and hangs',
      keywords: ['timeout', 'timed out', 'hang', 'hangs', 'stuck', 'slow', 'latency', 'unresponsive'],
      playbook: playbook(
        'Make waits bounded and observable',
        ['Set explicit timeouts on every remote call', 'Add retries with backoff where safe', 'Trace the slow path and fix its hot spot'],
        24,
        0.5,
      ),
    },
    {
      id: 'configuration_error',
      name: 'Configuration error',
      keywords: ['misconfigur', 'wrong config', 'invalid configuration', 'default value', 'property', 'config key', 'setting'],
      playbook: playbook(
        'Validate configuration at start-up',
        ['Validate settings when the service starts', 'Document defaults and ranges', 'Add a configuration smoke test to deployment'],
        16,
        0.7,
      ),
    },
    {
      id: 'dependency_version',
      name: 'Dependency or version incompatibility',
      keywords: ['incompatible', 'version', 'upgrade', 'dependency', 'classnotfound', 'nosuchmethod', 'jar conflict', 'shading', 'jdk'],
      playbook: playbook(
        'Pin and test dependencies',
        ['Pin the dependency versions', 'Add a compatibility test matrix to CI', 'Shade or isolate conflicting libraries'],
        24,
        0.6,
      ),
    },
    {
      id: 'permission_denied',
      name: 'Permissions and authentication',
      keywords: ['permission denied', 'access denied', 'unauthorized', 'forbidden', 'kerberos', 'token expired', 'authentication failed', 'acl'],
      playbook: playbook(
        'Fix the credential life cycle',
        ['Audit which principal needs which permission', 'Renew credentials before expiry', 'Test access paths with least privilege'],
        20,
        0.6,
      ),
    },
    {
      id: 'data_corruption',
      name: 'Data corruption or loss',
      keywords: ['corrupt', 'corruption', 'checksum', 'data loss', 'lost data', 'inconsistent', 'missing blocks'],
      playbook: playbook(
        'Protect data integrity',
        ['Verify checksums end to end', 'Make writes atomic (write, fsync, rename)', 'Add repair tooling and an integrity check job'],
        60,
        0.7,
      ),
    },
    {
      id: 'network_failure',
      name: 'Network failure handling',
      keywords: ['connection refused', 'connection reset', 'unreachable', 'unknownhost', 'socket', 'network partition', 'broken pipe', 'eof'],
      playbook: playbook(
        'Handle network faults',
        ['Retry idempotent calls with backoff and jitter', 'Fail over to healthy peers', 'Test with injected network faults'],
        28,
        0.5,
      ),
    },
    {
      id: 'resource_leak',
      name: 'Resource leak',
      keywords: ['leak', 'not closed', 'unclosed', 'file descriptor', 'memory leak', 'connection leak'],
      playbook: playbook(
        'Close what you open',
        ['Use try-with-resources or finally blocks', 'Track open handles in metrics', 'Add a soak test that watches handle counts'],
        16,
        0.7,
      ),
    },
    {
      id: 'test_flakiness',
      name: 'Flaky or broken tests',
      keywords: ['flaky', 'intermittent', 'test fails', 'unit test', 'testcase', 'junit', 'failing test'],
      playbook: playbook(
        'Stabilise the test',
        ['Remove timing and ordering assumptions', 'Isolate shared state between tests', 'Quarantine and track flaky tests'],
        8,
        0.8,
      ),
    },
    {
      id: 'build_break',
      name: 'Build break',
      keywords: ['compile', 'compilation', 'build fails', 'build failure', 'maven', 'javadoc', 'checkstyle', 'license'],
      playbook: playbook(
        'Keep the build green',
        ['Run the full build on every change', 'Pin build tools', 'Fail fast on warnings that break later stages'],
        8,
        0.8,
      ),
    },
  ],
};
