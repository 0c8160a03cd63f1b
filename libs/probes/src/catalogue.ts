import { DnsProbe } from './dns/dns.probe';
import { DockerProbe } from './docker/docker.probe';
import { HttpProbe } from './http/http.probe';
import { PingProbe } from './ping/ping.probe';
import { SnmpProbe } from './snmp/snmp.probe';
import { TcpProbe } from './tcp/tcp.probe';
import type { Probe } from './probe';

/** The registered probes, one per sensor type. */
export class ProbeCatalogue {
  private readonly probes = new Map<string, Probe>();

  constructor(probes: Probe[] = []) {
    for (const probe of probes) this.register(probe);
  }

  register(probe: Probe): void {
    this.probes.set(probe.type, probe);
  }

  get(type: string): Probe | undefined {
    return this.probes.get(type);
  }

  types(): string[] {
    return [...this.probes.keys()];
  }

  /** Releases pooled connections at shutdown. */
  async close(): Promise<void> {
    await Promise.all([...this.probes.values()].map((probe) => probe.close?.()));
  }
}

/** Every probe of this build, one per sensor type. */
export function createProbeCatalogue(): ProbeCatalogue {
  return new ProbeCatalogue([
    new HttpProbe(),
    new TcpProbe(),
    new PingProbe(),
    new DnsProbe(),
    new DockerProbe(),
    new SnmpProbe(),
  ]);
}
