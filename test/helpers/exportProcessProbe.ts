/**
 * An export child for test/lib/exportProcess.test.ts: what lib/exportProcess.ts must relay, report and
 * clean up, without a real export's data. Modes: `echo` (a log line, a stderr line, progress, output,
 * a result with its Node options), `fail` (throws), `die` (exits without a word), `hold` (an
 * uncommitted insert, then waits for ever).
 */
import { serveExportProcess } from '../../lib/exportProcess.ts';

export type ProbeInput = { mode: 'echo' | 'fail' | 'die' | 'hold'; marker?: string };

serveExportProcess<ProbeInput, unknown>(async (input, { pool, logger, progress, output }) => {
  if (input.mode === 'fail') throw new Error('the probe failed on purpose');
  if (input.mode === 'die') process.exit(3);
  if (input.mode === 'hold') {
    const client = await pool.connect();
    await client.query('begin');
    await client.query('insert into export_probe_rows (marker) values ($1)', [input.marker]);
    progress('holding');
    return new Promise(() => {});
  }
  logger.info('probe says hello', { n: 1 });
  console.error('a line on stderr');
  progress(1);
  progress(2);
  output.write('first bytes, ');
  output.end('last bytes');
  return { execArgv: process.execArgv };
});
