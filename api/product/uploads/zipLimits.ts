/**
 * The structure and inflated size of an XLSX (zip) container, checked before any XLSX reader sees it.
 * Compressed size says nothing about what a zip inflates to, so every entry is inflated here with a
 * hard output cap (zlib's `maxOutputLength`): a zip bomb fails at the cap instead of filling memory.
 * The local headers must tile the file exactly as the central directory lists them, so a streaming
 * reader (which follows local headers) sees the same, checked entries and no hidden ones.
 */
import { inflateRawSync } from 'node:zlib';

export interface ZipLimits {
  maxEntries: number;
  /** Uncompressed bytes of any one entry. */
  maxEntryBytes: number;
  /** Uncompressed bytes of all entries together. */
  maxTotalBytes: number;
}

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
const DESCRIPTOR_SIGNATURE = 0x08074b50;
const MB = 1024 * 1024;

interface Entry {
  name: string;
  method: number;
  flags: number;
  compressedSize: number;
  localOffset: number;
}

/** Throws an Error whose message a user can act on when the container breaks a rule or a limit. */
export function checkZipLimits(data: Buffer, limits: ZipLimits): void {
  try {
    inspect(data, limits);
  } catch (err) {
    // A read past the end of the buffer: a truncated or forged container.
    if ((err as { code?: string }).code === 'ERR_OUT_OF_RANGE' || err instanceof RangeError) throw malformed('a truncated container');
    throw err;
  }
}

function inspect(data: Buffer, limits: ZipLimits): void {
  const entries = centralDirectory(data, limits);
  let total = 0;
  let position = 0;
  for (const entry of [...entries.list].sort((a, b) => a.localOffset - b.localOffset)) {
    if (entry.localOffset !== position || data.readUInt32LE(position) !== LOCAL_SIGNATURE) throw malformed('entries do not follow each other');
    const dataStart = position + 30 + data.readUInt16LE(position + 26) + data.readUInt16LE(position + 28);
    const dataEnd = dataStart + entry.compressedSize;
    if (dataEnd > entries.offset) throw malformed('an entry overlaps the directory');
    const raw = data.subarray(dataStart, dataEnd);
    const budget = Math.min(limits.maxEntryBytes, limits.maxTotalBytes - total);
    let size: number;
    if (entry.method === 0) size = raw.length;
    else if (entry.method === 8) {
      try {
        size = inflateRawSync(raw, { maxOutputLength: Math.max(1, budget) }).length;
      } catch (err) {
        if (err instanceof RangeError || (err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') size = budget + 1;
        else throw malformed(`entry '${entry.name}' cannot be inflated`);
      }
    } else throw malformed(`entry '${entry.name}' uses an unsupported compression method`);
    if (size > limits.maxEntryBytes) throw new Error(`The workbook's part '${entry.name}' is larger than ${limits.maxEntryBytes / MB} MB uncompressed.`);
    total += size;
    if (total > limits.maxTotalBytes) throw new Error(`The workbook is larger than ${limits.maxTotalBytes / MB} MB uncompressed.`);
    position = dataEnd;
    if (entry.flags & 0x8) position += data.readUInt32LE(position) === DESCRIPTOR_SIGNATURE ? 16 : 12;
  }
  if (position !== entries.offset) throw malformed('unlisted data before the directory');
}

const malformed = (why: string) => new Error(`The file is not a readable XLSX workbook (${why}).`);

function centralDirectory(data: Buffer, limits: ZipLimits): { list: Entry[]; offset: number } {
  // The end record sits in the last 22 bytes plus an optional comment of up to 65535.
  let eocd = -1;
  for (let i = data.length - 22; i >= Math.max(0, data.length - 22 - 65_535); i--) {
    if (data.readUInt32LE(i) === EOCD_SIGNATURE) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw malformed('no zip directory');
  const count = data.readUInt16LE(eocd + 10);
  const offset = data.readUInt32LE(eocd + 16);
  if (count === 0xffff || offset === 0xffffffff) throw malformed('ZIP64 containers are not supported');
  if (count > limits.maxEntries) throw new Error(`The workbook has more than ${limits.maxEntries} parts.`);
  const list: Entry[] = [];
  let p = offset;
  for (let i = 0; i < count; i++) {
    if (p + 46 > data.length || data.readUInt32LE(p) !== CENTRAL_SIGNATURE) throw malformed('a damaged zip directory');
    const nameLength = data.readUInt16LE(p + 28);
    const entry: Entry = {
      flags: data.readUInt16LE(p + 8),
      method: data.readUInt16LE(p + 10),
      compressedSize: data.readUInt32LE(p + 20),
      localOffset: data.readUInt32LE(p + 42),
      name: data.toString('utf8', p + 46, p + 46 + nameLength),
    };
    if (entry.compressedSize === 0xffffffff || entry.localOffset === 0xffffffff) throw malformed('ZIP64 containers are not supported');
    list.push(entry);
    p += 46 + nameLength + data.readUInt16LE(p + 30) + data.readUInt16LE(p + 32);
  }
  return { list, offset };
}
