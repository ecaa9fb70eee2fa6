/** A local DNS server (dns2, UDP) answering TXT questions from a map the test controls. */
import dns2 from 'dns2';

export interface DnsServer {
  /** `host:port`, the value of DNS_RESOLVER. */
  address: string;
  txt: Map<string, string[]>;
  close(): Promise<void>;
}

export async function startDnsServer(): Promise<DnsServer> {
  const txt = new Map<string, string[]>();
  const { Packet } = dns2;
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const [question] = request.questions;
      for (const data of txt.get(question.name.toLowerCase()) ?? []) {
        response.answers.push({ name: question.name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 1, data } as never);
      }
      send(response);
    },
  });
  // dns2 passes a port-0 object through to dgram's bind: an ephemeral port on 127.0.0.1.
  const addresses = (await server.listen({ udp: { port: 0, address: '127.0.0.1' } })) as unknown as { udp: { port: number } };
  const port = addresses.udp.port;
  return { address: `127.0.0.1:${port}`, txt, close: () => server.close() as unknown as Promise<void> };
}
