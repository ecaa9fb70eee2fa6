/** The source resource, as the tenant's /sources and the staff's sources/seed answer it. */
import { z } from 'zod';
import { jsonValue } from '../../http/jsonValue.ts';
import { sourceKinds, type SourceRow } from '../../../sql/tenant/sources.ts';
import { iso } from '../../../lib/isoTimestamp.ts';

export const sourceSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    kind: z.enum(sourceKinds).describe('`file_upload` sources take POST /sources/{source_id}/upload'),
    config: z.record(z.string(), jsonValue('A setting of the source, by kind')),
    upload_count: z.number().int(),
    last_upload_at: z.iso.datetime().nullable(),
    created_at: z.iso.datetime(),
  })
  .meta({ title: 'Source' });

export const sourceBody = (s: SourceRow): z.output<typeof sourceSchema> => ({
  id: s.id,
  name: s.name,
  kind: s.kind,
  config: s.config,
  upload_count: s.upload_count,
  last_upload_at: iso(s.last_upload_at),
  created_at: iso(s.created_at)!,
});
