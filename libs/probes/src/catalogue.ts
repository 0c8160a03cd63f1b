import { HttpProbe } from './http/http.probe';
import { PingProbe } from './ping/ping.probe';
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
}

/** Every probe of this build, one per sensor type. */
export function createProbeCatalogue(): ProbeCatalogue {
  return new ProbeCatalogue([new HttpProbe(), new TcpProbe(), new PingProbe()]);
}
