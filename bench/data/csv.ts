/**
 * A small RFC 4180 CSV reader: comma-separated fields, records ended by CRLF or LF, fields optionally
 * quoted with `"`, a quote inside a quoted field written as `""`, line breaks allowed inside quotes.
 * Lenient where real exports are sloppy: a lone CR or LF ends a record, a quote inside an unquoted
 * field is kept as a character, a leading UTF-8 BOM is dropped. An unterminated quoted field is an
 * error naming the line it started on.
 */

/** Parses CSV text into rows of fields; a trailing empty line yields no row. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const n = text.length;
  let line = 1;
  let atRecordStart = true;

  while (i < n) {
    atRecordStart = false;
    let field: string;
    if (text[i] === '"') {
      const startLine = line;
      const parts: string[] = [];
      let from = i + 1;
      for (;;) {
        const quote = text.indexOf('"', from);
        if (quote < 0) throw new Error(`CSV: quoted field starting on line ${startLine} is never closed`);
        const chunk = text.slice(from, quote);
        for (let k = chunk.indexOf('\n'); k >= 0; k = chunk.indexOf('\n', k + 1)) line += 1;
        parts.push(chunk);
        if (text[quote + 1] === '"') {
          parts.push('"');
          from = quote + 2;
          continue;
        }
        i = quote + 1;
        break;
      }
      field = parts.join('');
      // Anything between the closing quote and the delimiter is kept (lenient, as spreadsheets do).
      const end = nextDelimiter(text, i);
      if (end > i) field += text.slice(i, end);
      i = end;
    } else {
      const end = nextDelimiter(text, i);
      field = text.slice(i, end);
      i = end;
    }
    row.push(field);
    if (i >= n) break;
    const c = text[i];
    if (c === ',') {
      i += 1;
      if (i >= n) row.push(''); // a trailing comma ends with an empty field
      continue;
    }
    // A record ends: CRLF, LF or a lone CR.
    i += c === '\r' && text[i + 1] === '\n' ? 2 : 1;
    line += 1;
    rows.push(row);
    row = [];
    atRecordStart = true;
  }
  if (!atRecordStart || row.length) rows.push(row);
  return rows;
}

function nextDelimiter(text: string, from: number): number {
  for (let j = from; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === 44 /* , */ || c === 10 /* \n */ || c === 13 /* \r */) return j;
  }
  return text.length;
}

/**
 * Rows as objects keyed by the header row. Every row must have as many fields as the header
 * (a mismatch is an error naming the record), so a parsing slip cannot shift columns silently.
 */
export function parseCsvRecords(text: string): Array<Record<string, string>> {
  const [header, ...rows] = parseCsv(text);
  if (!header) return [];
  return rows.map((fields, index) => {
    if (fields.length !== header.length) {
      throw new Error(`CSV: record ${index + 1} has ${fields.length} fields, the header has ${header.length}`);
    }
    const record: Record<string, string> = {};
    header.forEach((name, k) => (record[name] = fields[k]));
    return record;
  });
}
