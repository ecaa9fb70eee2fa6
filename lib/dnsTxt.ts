/**
 * TXT lookups for domain verification, through DNS_RESOLVER (comma-separated `host[:port]`) when set,
 * else the system's resolvers. A name that does not exist or has no TXT record resolves to [].
 */
import { Resolver } from 'node:dns/promises';
import type { Config } from './config.ts';

export async function resolveTxt(config: Config, name: string): Promise<string[]> {
  const resolver = new Resolver({ timeout: 3_000, tries: 2 });
  if (config.DNS_RESOLVER)
    resolver.setServers(
      config.DNS_RESOLVER.split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    );
  try {
    return (await resolver.resolveTxt(name)).map((chunks) => chunks.join(''));
  } catch (err) {
    if (['ENOTFOUND', 'ENODATA', 'NXDOMAIN'].includes((err as { code?: string }).code ?? '')) return [];
    throw err;
  }
}
