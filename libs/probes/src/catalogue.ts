import { SENSOR_TYPES, type SensorType } from '@monitor/contracts';
import { DnsProbe } from './dns/dns.probe';
import { DockerProbe } from './docker/docker.probe';
import { HttpProbe } from './http/http.probe';
import { PingProbe } from './ping/ping.probe';
import { PushProbe } from './push/push.probe';
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

/**
 * One probe per sensor type of the sensor definition (SENSOR_TYPES, which the dashboard imports
 * too): a type without a probe, or a probe for a type not listed, does not compile.
 */
const PROBES: { readonly [T in SensorType]: () => Probe & { readonly type: T } } = {
  http: () => new HttpProbe(),
  tcp: () => new TcpProbe(),
  ping: () => new PingProbe(),
  dns: () => new DnsProbe(),
  docker: () => new DockerProbe(),
  snmp: () => new SnmpProbe(),
  push: () => new PushProbe(),
};

/** Every probe of this build, one per sensor type, in the definition's order. */
export function createProbeCatalogue(): ProbeCatalogue {
  return new ProbeCatalogue(SENSOR_TYPES.map((type) => PROBES[type]()));
}
