/**
 * Provenance of engine runs: the canonical encoding of stage outputs (typed arrays as tagged
 * base64, object keys sorted), their SHA-256 digests, the engine version, and the digest over a run's
 * per-stage digests (engine_runs.output_digest). Same inputs, same bytes.
 */
import { createHash } from 'node:crypto';

export const ENGINE_VERSION = '3.9.0';

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

/** The canonical copy of a value: object keys sorted, typed arrays tagged (what the bytes are defined by). */
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

const isPlain = (v: unknown) => v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
const nonFinite = (v: unknown) => typeof v === 'number' && !Number.isFinite(v);
const SLICE = 4096;
const BASE64_BLOCK = 3 << 20; // a multiple of 3: base64 of consecutive blocks concatenates

/**
 * Canonical JSON (object keys sorted, undefined members left out, typed arrays as
 * {"$typed": tag, "data": base64}), written in UTF-8 chunks: exactly the bytes of
 * JSON.stringify(canonical(value)), without the copy of the whole output or one string holding all
 * of it (stage outputs reach hundreds of megabytes). Leaves (records of lists, objects and arrays of
 * plain values) still go through JSON.stringify.
 */
class CanonicalWriter {
  private parts: string[] = [];
  private pending = 0;

  constructor(private readonly sink: (chunk: Buffer) => void) {}

  private push(text: string) {
    this.parts.push(text);
    this.pending += text.length;
    if (this.pending >= 1 << 20) this.flush();
  }

  flush() {
    if (this.parts.length) this.sink(Buffer.from(this.parts.join(''), 'utf8'));
    this.parts = [];
    this.pending = 0;
  }

  /** False when `value` has no JSON form (undefined, a function, a symbol). */
  write(value: unknown): boolean {
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') return false;
    if (nonFinite(value)) throw new Error(`non-finite number in a stage output: ${value}`);
    if (typeof value === 'bigint') throw new TypeError('Do not know how to serialize a BigInt');
    if (value === null || typeof value !== 'object') {
      this.push(JSON.stringify(value));
      return true;
    }
    if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
      const typed = value as Typed;
      const bytes = Buffer.from(typed.buffer, typed.byteOffset, typed.byteLength);
      this.push(`{"$typed":"${tagOf(typed)}","data":"`);
      for (let at = 0; at < bytes.length; at += BASE64_BLOCK) this.push(bytes.subarray(at, at + BASE64_BLOCK).toString('base64'));
      this.push('"}');
      return true;
    }
    if (Array.isArray(value)) {
      if (value.every(isPlain)) {
        if (value.length <= SLICE) this.push(JSON.stringify(value));
        else {
          this.push('[');
          for (let at = 0; at < value.length; at += SLICE) {
            if (at > 0) this.push(',');
            this.push(JSON.stringify(value.slice(at, at + SLICE)).slice(1, -1));
          }
          this.push(']');
        }
        return true;
      }
      this.push('[');
      for (let i = 0; i < value.length; i++) {
        if (i > 0) this.push(',');
        const item = value[i];
        // A record of a list (an issue, a result, a pattern) is small: the canonical copy of it is cheap.
        if (item !== null && typeof item === 'object' && !Array.isArray(item) && !ArrayBuffer.isView(item)) this.push(JSON.stringify(canonical(item)));
        else if (!this.write(item)) this.push('null');
      }
      this.push(']');
      return true;
    }
    if (value instanceof Map) throw new Error('Maps are not part of stage outputs; use arrays');
    // The sorted members as a fresh object, as the canonical copy had them (integer-like keys first).
    const out: Record<string, unknown> = {};
    let plain = true;
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v === undefined) continue;
      if (nonFinite(v)) throw new Error(`non-finite number in a stage output: ${v}`);
      out[key] = v;
      if (plain && !isPlain(v)) plain = false;
    }
    if (plain) {
      this.push(JSON.stringify(out));
      return true;
    }
    this.push('{');
    let first = true;
    for (const key of Object.keys(out)) {
      const v = out[key];
      if (typeof v === 'function' || typeof v === 'symbol') continue;
      this.push(first ? `${JSON.stringify(key)}:` : `,${JSON.stringify(key)}:`);
      first = false;
      this.write(v);
    }
    this.push('}');
    return true;
  }
}

function writeCanonical(value: unknown, sink: (chunk: Buffer) => void): void {
  const writer = new CanonicalWriter(sink);
  if (!writer.write(value)) throw new TypeError(`a stage output must have a JSON form, got ${typeof value}`);
  writer.flush();
}

/** The canonical bytes of a stage output. */
export function encodeOutput(value: unknown): Buffer {
  const chunks: Buffer[] = [];
  writeCanonical(value, (chunk) => chunks.push(chunk));
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
}

/** sha256(encodeOutput(value)) without holding the encoding: for digests of large inputs. */
export function digestOutput(value: unknown): string {
  const hash = createHash('sha256');
  writeCanonical(value, (chunk) => hash.update(chunk));
  return hash.digest('hex');
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

/** Digest over the ordered stage digests: one number that says "same outputs". */
export function outputDigest(stages: Array<Pick<StageRecord, 'stage' | 'digest'>>): string {
  return sha256(stages.map((s) => `${s.stage}:${s.digest}`).join('\n'));
}
