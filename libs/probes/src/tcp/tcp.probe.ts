import * as net from 'node:net';
import * as tls from 'node:tls';
import { BlockedAddressError, guardedLookup, isBlockedName } from '../address-guard';
import { boolOption, intOption } from '../options';
import type { Probe, ProbeOutcome, ProbeRequest } from '../probe';
import {
  Deadline,
  certificateExpiryProblem,
  checkBoolean,
  checkInteger,
  checkKnownOptions,
  checkTimeout,
  elapsedMs,
  expiresInMessage,
  firstProblem,
  networkErrorMessage,
  peerCertificateDates,
  verifyPeer,
  type CertificateDates,
} from '../probe-messages';
import { isHost, parseHostPort } from './host-port';

const OPTION_NAMES = ['tls', 'insecure_skip_verify', 'cert_warn_days'];

export interface TcpProbeSettings {
  /** Authorities to trust instead of Node's bundled roots (tests; private PKI). */
  ca?: string | string[];
}

/**
 * Opens a TCP connection to `host:port` (and with `tls` completes a handshake), then closes it.
 * Nothing is written to the peer. TLS is judged like the http probe: Node verifies with
 * `rejectUnauthorized: false`, `verifyPeer` decides, so a rejected certificate can be named with
 * its dates.
 */
export class TcpProbe implements Probe {
  readonly type = 'tcp';
  readonly secretOptions: readonly string[] = [];
  readonly optionNames = OPTION_NAMES;

  constructor(private readonly settings: TcpProbeSettings = {}) {}

  peerHosts(target: string): string[] {
    const parsed = parseHostPort(target);
    return parsed ? [parsed.host] : [];
  }

  restrictedDraftProblem(): string | null {
    return null;
  }

  validate(target: string, options: Readonly<Record<string, unknown>>): string | null {
    return firstProblem(
      () => {
        const parsed = parseHostPort(target);
        return parsed && isHost(parsed.host) ? null : 'target must have the form host:port (or [IPv6]:port)';
      },
      () => checkKnownOptions(this.type, options, OPTION_NAMES),
      () => checkTimeout(options),
      () => checkBoolean(options, 'tls'),
      () => checkBoolean(options, 'insecure_skip_verify'),
      () => checkInteger(options, 'cert_warn_days', 0, 3650),
    );
  }

  async run({ target, options, timeoutMs, signal, guarded }: ProbeRequest): Promise<ProbeOutcome> {
    const address = parseHostPort(target);
    if (!address) return { success: false, message: 'target must have the form host:port', latencyMs: null };
    const useTls = boolOption(options, 'tls', false);
    const insecure = boolOption(options, 'insecure_skip_verify', false);
    const warnDays = intOption(options, 'cert_warn_days', 0, 0, 3650);

    const deadline = new Deadline(timeoutMs, signal);
    const startedAt = performance.now();
    let socket: net.Socket | undefined;
    try {
      // Guarded: the socket connects to the address the guard's lookup checked.
      const lookup = guarded ? { lookup: guardedLookup } : {};
      const connected = new Promise<CertificateDates | null>((resolve, reject) => {
        if (guarded && isBlockedName(address.host)) {
          reject(new BlockedAddressError(address.host));
          return;
        }
        if (useTls) {
          const tlsSocket = tls.connect({
            host: address.host,
            port: address.port,
            servername: net.isIP(address.host) ? undefined : address.host,
            rejectUnauthorized: false,
            ca: this.settings.ca,
            ...lookup,
          });
          socket = tlsSocket;
          tlsSocket.once('secureConnect', () => {
            const rejection = verifyPeer(tlsSocket, insecure, address.host);
            if (rejection) reject(rejection);
            else resolve(peerCertificateDates(tlsSocket));
          });
        } else {
          socket = net.connect({ host: address.host, port: address.port, ...lookup });
          socket.once('connect', () => resolve(null));
        }
        socket.once('error', reject);
      });
      deadline.signal.addEventListener('abort', () => socket?.destroy(), { once: true });
      const certificate = await deadline.race(connected);
      const latencyMs = elapsedMs(startedAt);
      if (!useTls) return { success: true, message: 'connected', latencyMs };
      let message = 'connected (TLS)';
      const certExpiresAt = certificate?.validTo.getTime();
      if (certificate && warnDays > 0) {
        const problem = certificateExpiryProblem(certificate, warnDays);
        if (problem) return { success: false, message: problem, latencyMs, certExpiresAt };
        message += `, ${expiresInMessage(certificate)}`;
      }
      return { success: true, message, latencyMs, certExpiresAt };
    } catch (error) {
      return {
        success: false,
        message: deadline.aborted ? deadline.message : networkErrorMessage(error, address.host),
        latencyMs: null,
      };
    } finally {
      deadline.dispose();
      if (socket) {
        socket.on('error', () => undefined); // late errors (a reset while closing) are not ours
        socket.destroy();
      }
    }
  }
}
