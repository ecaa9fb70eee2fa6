/**
 * RFC 4180 CSV: fields separated by commas, records by CRLF (a bare LF or CR is accepted too), a
 * field in double quotes may hold commas, line breaks and doubled quotes (`""`). A leading UTF-8 BOM
 * is dropped. Malformed input (a quote inside an unquoted field, text after a closing quote, a quote
 * never closed) throws a CsvError naming the line and column, 1-based, where it was found.
 */
export class CsvError extends Error {
  override name = 'CsvError';
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(`line ${line}, column ${column}: ${message}`);
  }
}

export interface CsvRow {
  /** Line on which the record starts (a quoted field may span several). */
  line: number;
  fields: string[];
}

/** Every record of `text`; a completely empty line is skipped, a trailing line break ends nothing. */
export function parseCsv(text: string): CsvRow[] {
  const rows: CsvRow[] = [];
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  let lineStart = i;
  let fields: string[] = [];
  let rowLine = 1;
  let field = '';
  let fieldStarted = false;

  const endRecord = () => {
    const empty = fields.length === 0 && field === '' && !fieldStarted;
    fields.push(field);
    if (!empty) rows.push({ line: rowLine, fields });
    fields = [];
    field = '';
    fieldStarted = false;
  };
  const newline = (at: number) => {
    // CRLF counts once; the index of the first character of the next line is returned.
    const next = text[at] === '\r' && text[at + 1] === '\n' ? at + 2 : at + 1;
    line += 1;
    lineStart = next;
    return next;
  };

  while (i < text.length) {
    const c = text[i];
    if (c === '"' && field === '' && !fieldStarted) {
      fieldStarted = true;
      const openLine = line;
      const openColumn = i - lineStart + 1;
      i += 1;
      for (;;) {
        if (i >= text.length) throw new CsvError('quoted field is never closed', openLine, openColumn);
        const q = text[i];
        if (q === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i += 1;
          break;
        }
        if (q === '\r' || q === '\n') {
          field += q === '\r' && text[i + 1] === '\n' ? '\r\n' : q;
          i = newline(i);
          continue;
        }
        field += q;
        i += 1;
      }
      const after = text[i];
      if (after !== undefined && after !== ',' && after !== '\r' && after !== '\n') {
        throw new CsvError('unexpected character after a closing quote', line, i - lineStart + 1);
      }
      continue;
    }
    if (c === ',') {
      fields.push(field);
      field = '';
      fieldStarted = false;
      i += 1;
      continue;
    }
    if (c === '\r' || c === '\n') {
      endRecord();
      i = newline(i);
      rowLine = line;
      continue;
    }
    if (c === '"') throw new CsvError('a quote inside an unquoted field (quote the whole field and double the quote)', line, i - lineStart + 1);
    field += c;
    fieldStarted = true;
    i += 1;
  }
  if (field !== '' || fieldStarted || fields.length) endRecord();
  return rows;
}

/** One RFC 4180 record (CRLF-terminated): a field holding a comma, quote or line break is quoted. */
export function formatCsvRecord(fields: ReadonlyArray<string | number | null>): string {
  return (
    fields
      .map((f) => {
        if (f === null) return '';
        const s = String(f);
        return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
      })
      .join(',') + '\r\n'
  );
}
