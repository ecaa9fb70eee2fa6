/**
 * Issue 31 §2, pure and fast: the structured features of a report (engine/text/features.ts), the
 * structured block beside the words (engine/stages/04_vectorize.ts `withStructured`) and the nearest
 * neighbour search stage 7 places reports with (engine/cluster/neighbours.ts).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { structuredFeatures, kindOf } from '../../engine/text/features.ts';
import { nearestNeighbours } from '../../engine/cluster/neighbours.ts';
import { withStructured } from '../../engine/stages/04_vectorize.ts';
import type { CsrMatrix } from '../../engine/cluster/sparse.ts';
import type { NormalizeOutput } from '../../engine/stages/02_normalize.ts';

const trace = `Writing fails after the upgrade, see HDFS-1234.
java.io.IOException: Stream closed (exit code 137)
	at org.apache.hadoop.fs.s3a.S3AInputStream.read(S3AInputStream.java:412)
	at org.apache.hadoop.fs.FSDataInputStream.read(FSDataInputStream.java:100)
Caused by: com.amazonaws.SdkClientException: Unable to execute HTTP request`;

test('structured features: exception classes, frames, components, codes and issue keys', () => {
  const f = structuredFeatures('S3A: read fails with IOException', trace);
  for (const expected of [
    'component:s3a',
    'exception:IOException',
    'exception:SdkClientException',
    'frame:S3AInputStream.read',
    'frame:FSDataInputStream.read',
    'component:fs.s3a',
    'code:HDFS-1234',
    'code:137',
  ])
    assert.ok(f.includes(expected), `${expected} in ${f.join(' ')}`);
  // Distinct, each with its kind.
  assert.is(new Set(f).size, f.length);
  assert.ok(f.every((x) => ['exception', 'frame', 'component', 'code'].includes(kindOf(x))));
  // Plain prose has none; a bracketed title prefix is a component too.
  assert.equal(structuredFeatures('the page is slow', 'when I open it, it takes a while'), []);
  assert.equal(structuredFeatures('[ABFS] listing is slow', 'it takes a while'), ['component:abfs']);
});

const csr = (rows: Array<Record<number, number>>, cols: number): CsrMatrix => {
  const rowPtr = [0];
  const colIdx: number[] = [];
  const values: number[] = [];
  for (const row of rows) {
    const norm = Math.sqrt(Object.values(row).reduce((s, v) => s + v * v, 0)) || 1;
    for (const [c, v] of Object.entries(row).sort((a, b) => Number(a[0]) - Number(b[0]))) {
      colIdx.push(Number(c));
      values.push(v / norm);
    }
    rowPtr.push(colIdx.length);
  }
  return { rows: rows.length, cols, rowPtr: Uint32Array.from(rowPtr), colIdx: Uint32Array.from(colIdx), values: Float32Array.from(values) };
};

test('structured block: rows stay unit, reports sharing a frame come closer, reports without features keep their words', () => {
  const text = csr([{ 0: 1, 1: 1 }, { 0: 1, 2: 1 }, { 3: 1 }], 8);
  const features = ['frame:A.run', 'exception:BoomException'];
  const norm = {
    features: { offsets: Uint32Array.from([0, 2, 4, 4]), ids: Uint32Array.from([0, 1, 0, 1]) },
    feature_vocabulary: features,
  } as unknown as NormalizeOutput;
  const m = withStructured(text, norm, 0.8);
  const dot = (a: CsrMatrix, i: number, j: number) => {
    let s = 0;
    for (let p = a.rowPtr[i]; p < a.rowPtr[i + 1]; p++)
      for (let q = a.rowPtr[j]; q < a.rowPtr[j + 1]; q++) if (a.colIdx[p] === a.colIdx[q]) s += a.values[p] * a.values[q];
    return s;
  };
  for (let i = 0; i < 3; i++) assert.ok(Math.abs(dot(m, i, i) - 1) < 1e-6);
  assert.ok(dot(m, 0, 1) > dot(text, 0, 1) + 0.15, `${dot(m, 0, 1)} vs ${dot(text, 0, 1)}`);
  assert.equal(Array.from(m.values.subarray(m.rowPtr[2], m.rowPtr[3])), Array.from(text.values.subarray(text.rowPtr[2], text.rowPtr[3])));
  // Weight 0 (the embedding's setting) changes nothing.
  assert.is(withStructured(text, norm, 0), text);
});

test('nearest neighbours: exact cosine among candidates, ties to the lower row, ineligible rows never returned', () => {
  const m = csr([{ 0: 1, 1: 1 }, { 0: 1, 1: 1 }, { 0: 1, 1: 1 }, { 0: 1, 2: 1 }, { 5: 1 }], 8);
  const nn = nearestNeighbours(m, [0, 2, 3, 4], () => true, { dfCap: 10, rareKept: 16, shortlist: 4 });
  assert.equal(
    nn.map((x) => x && [x.row, Math.round(x.similarity * 1000) / 1000]),
    [[1, 1], [0, 1], [0, 0.5], null],
  );
  const notOne = nearestNeighbours(m, [0], (r) => r !== 1, { dfCap: 10, rareKept: 16, shortlist: 4 });
  assert.is(notOne[0]!.row, 2);
  // The same queries in another order give the same answers.
  const reversed = nearestNeighbours(m, [4, 3, 2, 0], () => true, { dfCap: 10, rareKept: 16, shortlist: 4 }).reverse();
  assert.equal(reversed, nn);
});

test.run();
