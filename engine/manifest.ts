/**
 * Provenance of engine runs: the canonical encoding of stage outputs (typed arrays as tagged
 * base64, object keys sorted), their SHA-256 digests, and the run manifest that ties inputs, config
 * versions, engine version, seed and per-stage digests together. Same inputs, same bytes.
 */
import { createHash } from 'node:crypto';

export const ENGINE_VERSION = '1.0.0';

type Typed = Float64Array | Float32Array | Int32Array | Uint32Array | Uint8Array;
const TYPED: Record<string, new (buffer: ArrayBuffer) => Typed> = {
  f64: Float64Array,
  f32: Float32Array,
  i32: Int32Array,
  u32: Uint32Array,
  u8: Uint8Array,
};

function tagOf(value: Typed): string {
  if (value instanceof Float64Array) return 'f64';
  if (value instanceof Float32Array) return 'f32';
  if (value instanceof Int32Array) return 'i32';
  if (value instanceof Uint32Array) return 'u32';
  return 'u8';
}

function canonical(value: unknown): unknown {
  if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
    const typed = value as Typed;
    return { $typed: tagOf(typed), data: Buffer.from(typed.buffer, typed.byteOffset, typed.byteLength).toString('base64') };
  }
  if (Array.isArray(value)) return value.map(canonical);
  if (value instanceof Map) throw new Error('Maps are not part of stage outputs; use arrays');
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = canonical(v);
    }
    return out;
  }
  if (typeof value === 'number' && !Number.isFinite(value)) throw new Error(`non-finite number in a stage output: ${value}`);
  return value;
}

/** The canonical bytes of a stage output. */
export function encodeOutput(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(canonical(value)), 'utf8');
}

export function decodeOutput<T>(bytes: Buffer): T {
  return JSON.parse(bytes.toString('utf8'), (_key, v) => {
    if (v && typeof v === 'object' && typeof v.$typed === 'string' && typeof v.data === 'string' && Object.keys(v).length === 2) {
      const raw = Buffer.from(v.data, 'base64');
      const copy = new ArrayBuffer(raw.byteLength);
      new Uint8Array(copy).set(raw);
      return new TYPED[v.$typed](copy);
    }
    return v;
  }) as T;
}

export const sha256 = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

export interface StageRecord {
  stage: string;
  digest: string;
  bytes: number;
  duration_ms: number;
}

export interface Manifest {
  engine_version: string;
  seed: number;
  as_of: string;
  event_sequence: number;
  input_digest: string;
  config_versions: Record<string, string>;
  stages: StageRecord[];
  /** Digest over the ordered stage digests: one number that says "same outputs". */
  output_digest: string;
}

export function outputDigest(stages: Array<Pick<StageRecord, 'stage' | 'digest'>>): string {
  return sha256(stages.map((s) => `${s.stage}:${s.digest}`).join('\n'));
}
