/**
 * The SSRF guard: an outbound URL must be http(s) and every address its host resolves to must pass
 * the policy (addressPolicy.ts). `checkOutboundUrl` answers before anything is stored (a refused
 * webhook URL is a 400); `guardedLookup` runs again inside every connection, so a host that resolves
 * elsewhere later (DNS rebinding) is refused at connect time and the socket goes to the checked address.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { refusalReason, type OutboundPolicy } from './addressPolicy.ts';

export class OutboundRefusedError extends Error {
  override name = 'OutboundRefusedError';
  readonly code = 'EOUTBOUNDREFUSED';
}

/** Parses and checks a URL's form (scheme, no credentials); the message says what is wrong. */
export function parseOutboundUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundRefusedError('must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundRefusedError('must be an http or https URL');
  if (url.username || url.password) throw new OutboundRefusedError('must not carry credentials');
  if (!url.hostname) throw new OutboundRefusedError('must name a host');
  return url;
}

const bareHost = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

function lookupAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => dnsLookup(host, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));
}

/**
 * Checks a URL against the policy, resolving its host. A refused URL throws OutboundRefusedError
 * with the reason; a host that does not resolve (yet) passes, since the connection is checked again.
 */
export async function checkOutboundUrl(policy: OutboundPolicy, raw: string): Promise<URL> {
  const url = parseOutboundUrl(raw);
  const host = bareHost(url);
  if (isIP(host)) {
    const reason = refusalReason(policy, host);
    if (reason) throw new OutboundRefusedError(`is refused: ${reason}`);
    return url;
  }
  let addresses: LookupAddress[];
  try {
    addresses = await lookupAll(host);
  } catch {
    return url;
  }
  for (const { address } of addresses) {
    const reason = refusalReason(policy, address, host);
    if (reason) throw new OutboundRefusedError(`is refused: ${host} resolves to ${reason.replace(`${address} is`, `${address}, which is`)}`);
  }
  return url;
}

/**
 * A `lookup` for http.request/net.connect that resolves the host and refuses the connection when
 * any of its addresses is refused. IP-literal hosts never reach a lookup: `assertLiteralAllowed`.
 */
export function guardedLookup(policy: OutboundPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true, verbatim: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as LookupAddress[];
      for (const { address } of list) {
        const reason = refusalReason(policy, address, hostname);
        if (reason) return callback(new OutboundRefusedError(`${hostname} is refused: ${reason}`), '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      if (!list.length) return callback(new Error(`${hostname} has no address`), '', 0);
      callback(null, list[0].address, list[0].family);
    });
  };
}

/** For a URL whose host is an IP literal (no lookup happens): throws when the address is refused. */
export function assertLiteralAllowed(policy: OutboundPolicy, url: URL): void {
  const host = bareHost(url);
  if (!isIP(host)) return;
  const reason = refusalReason(policy, host);
  if (reason) throw new OutboundRefusedError(`${host} is refused: ${reason}`);
}
