import { generate } from 'selfsigned';

/** Test certificates made on the fly with `selfsigned` (EC keys: fast to generate). */
export interface KeyAndCert {
  key: string;
  cert: string;
}

const DAY_MS = 86_400_000;

const SERVER_EXTENSIONS = [
  { name: 'basicConstraints' as const, cA: false },
  { name: 'keyUsage' as const, digitalSignature: true, keyEncipherment: true },
  { name: 'extKeyUsage' as const, serverAuth: true },
  {
    name: 'subjectAltName' as const,
    altNames: [
      { type: 2 as const, value: 'localhost' },
      { type: 7 as const, ip: '127.0.0.1' },
      { type: 7 as const, ip: '::1' },
    ],
  },
];

export interface Validity {
  /** Days from now when the certificate starts to be valid (negative: in the past). Default -1. */
  fromDays?: number;
  /** Days from now when it expires (negative: already expired). Default 365. */
  toDays?: number;
}

function dates({ fromDays = -1, toDays = 365 }: Validity): { notBeforeDate: Date; notAfterDate: Date } {
  const now = Date.now();
  return { notBeforeDate: new Date(now + fromDays * DAY_MS), notAfterDate: new Date(now + toDays * DAY_MS) };
}

/** A certificate authority that the probes only trust when handed its certificate. */
export async function makeAuthority(): Promise<KeyAndCert> {
  const pems = await generate([{ name: 'commonName', value: 'Probe Test CA' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    ...dates({ fromDays: -30, toDays: 3650 }),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  return { key: pems.private, cert: pems.cert };
}

/** A server certificate for localhost, 127.0.0.1 and ::1, signed by `authority` or by itself. */
export async function makeServerCert(validity: Validity = {}, authority?: KeyAndCert): Promise<KeyAndCert> {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    ...dates(validity),
    extensions: SERVER_EXTENSIONS,
    ...(authority ? { ca: authority } : {}),
  });
  return { key: pems.private, cert: pems.cert };
}
