/**
 * The one multipart/form-data body of the product surface's upload routes: exactly one part, a file
 * named `file`, at most MAX_UPLOAD_BYTES. Anything else is answered like a FastAPI `UploadFile`
 * parameter would be: 422 with `{loc, msg, type, input}` items; an oversized file is 413.
 */
import busboy from 'busboy';
import type { Request } from 'express';
import { AppError } from '../../../lib/errors.ts';

export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024;

export interface UploadedFile {
  filename: string;
  mimeType: string;
  data: Buffer;
}

const invalid = (loc: string[], msg: string, type: string) => new AppError('unprocessable', msg, [{ loc, msg, type, input: null }]);
const missingFile = () => invalid(['body', 'file'], 'Field required', 'missing');
const tooLarge = (headers?: Record<string, string>) =>
  new AppError('payload_too_large', `The file is larger than the ${MAX_UPLOAD_BYTES / 1024 / 1024} MB upload limit.`, undefined, headers);

/** Reads the request body; resolves once the whole body has been consumed. */
export function readSingleFile(req: Request): Promise<UploadedFile> {
  if (!/^multipart\/form-data\b/i.test(req.headers['content-type'] ?? '')) return Promise.reject(missingFile());
  // A declared length far beyond the limit is refused without reading it (the connection closes).
  if (Number(req.headers['content-length'] ?? 0) > 2 * MAX_UPLOAD_BYTES) return Promise.reject(tooLarge({ connection: 'close' }));

  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { files: 1, fileSize: MAX_UPLOAD_BYTES, fields: 20 } });
    } catch {
      return reject(invalid(['body'], 'Invalid multipart/form-data body', 'value_error'));
    }
    let file: UploadedFile | undefined;
    let problem: AppError | undefined;
    const fail = (err: AppError) => {
      problem ??= err;
    };

    parser.on('file', (name, stream, info) => {
      if (name !== 'file') {
        fail(invalid(['body', name], 'Extra inputs are not permitted', 'extra_forbidden'));
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => fail(tooLarge()));
      stream.on('end', () => {
        file = { filename: info.filename ?? 'upload', mimeType: info.mimeType, data: Buffer.concat(chunks) };
      });
    });
    parser.on('field', (name) => fail(invalid(['body', name], 'Extra inputs are not permitted', 'extra_forbidden')));
    parser.on('filesLimit', () => fail(invalid(['body', 'file'], 'Exactly one file is expected', 'value_error')));
    parser.on('fieldsLimit', () => fail(invalid(['body'], 'Only the `file` field is expected', 'extra_forbidden')));
    parser.on('error', (err: Error) => {
      req.unpipe(parser);
      req.resume(); // drain what is left so that the answer reaches the client
      fail(invalid(['body'], `Invalid multipart/form-data body: ${err.message}`, 'value_error'));
      reject(problem);
    });
    parser.on('close', () => {
      if (problem) return reject(problem);
      if (!file) return reject(missingFile());
      resolve(file);
    });
    req.pipe(parser);
  });
}
