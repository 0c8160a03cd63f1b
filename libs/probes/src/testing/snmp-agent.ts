import * as dgram from 'node:dgram';
import { once } from 'node:events';
import * as snmp from 'net-snmp';

/** A scalar the test agent serves: `oid` is the object, the instance is `oid.0`. */
export interface Scalar {
  name: string;
  oid: string;
  type: snmp.ObjectType;
  value: unknown;
}

export interface SeenRequest {
  /** The PDU kind: get, set, getNext, getBulk. */
  kind: string;
  oids: string[];
}

export interface SnmpTestAgent {
  port: number;
  /** Every request that passed the community check. */
  requests: SeenRequest[];
  /** Errors the agent reported, e.g. an unknown community. */
  errors: Error[];
  close(): Promise<void>;
}

/**
 * A real SNMP agent (net-snmp's) on 127.0.0.1 and an ephemeral port, knowing one community.
 * Requests are recorded per PDU kind so tests can assert that only GETs arrive.
 */
export async function startSnmpAgent(community: string, scalars: Scalar[]): Promise<SnmpTestAgent> {
  let socket: dgram.Socket | undefined;
  // net-snmp treats port 0 as "default 161": hand it a dgram that always binds an ephemeral port.
  const dgramModule = {
    createSocket(type: dgram.SocketType): dgram.Socket {
      const created = dgram.createSocket(type);
      const bind = created.bind.bind(created) as (port: number, address?: string) => dgram.Socket;
      (created as unknown as { bind: (port: number, address?: string) => dgram.Socket }).bind = (
        _port: number,
        address?: string,
      ) => bind(0, address);
      socket = created;
      return created;
    },
  };
  const errors: Error[] = [];
  const requests: SeenRequest[] = [];
  const agent = snmp.createAgent(
    { port: 1, address: '127.0.0.1', transport: 'udp4', dgramModule, disableAuthorization: false },
    (error: Error | null) => {
      if (error) errors.push(error);
    },
  ) as {
    getAuthorizer(): { addCommunity(name: string): void };
    getMib(): {
      registerProvider(provider: object): void;
      setScalarValue(name: string, value: unknown): void;
    };
    close(callback?: () => void): void;
    [method: string]: unknown;
  };
  for (const [method, kind] of [
    ['getRequest', 'get'],
    ['setRequest', 'set'],
    ['getNextRequest', 'getNext'],
    ['getBulkRequest', 'getBulk'],
  ] as const) {
    const original = (agent[method] as (...args: unknown[]) => void).bind(agent);
    agent[method] = (
      sock: unknown,
      message: { pdu: { varbinds: Array<{ oid: string }> } },
      rinfo: unknown,
    ) => {
      requests.push({ kind, oids: message.pdu.varbinds.map((varbind) => varbind.oid) });
      original(sock, message, rinfo);
    };
  }
  agent.getAuthorizer().addCommunity(community);
  const mib = agent.getMib();
  for (const scalar of scalars) {
    mib.registerProvider({
      name: scalar.name,
      type: snmp.MibProviderType.Scalar,
      oid: scalar.oid,
      scalarType: scalar.type,
      maxAccess: snmp.MaxAccess['read-write'],
    });
    mib.setScalarValue(scalar.name, scalar.value);
  }
  if (!socket) throw new Error('agent opened no socket');
  const bound = socket;
  if (bound.address === undefined || !isBound(bound)) await once(bound, 'listening');
  return {
    port: bound.address().port,
    requests,
    errors,
    close: () => new Promise<void>((resolve) => agent.close(() => resolve())),
  };
}

function isBound(socket: dgram.Socket): boolean {
  try {
    socket.address();
    return true;
  } catch {
    return false;
  }
}
