import { icmpAddon, type IcmpAddon } from './icmp-addon';

export type CapabilityOutcome = { kept: true } | { kept: false; reason: string };

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Runs `dropIdentity` (setgroups, setgid, setuid from root) so that the process keeps CAP_NET_RAW,
 * which a uid change from 0 otherwise clears, and nothing else: PR_SET_KEEPCAPS before the drop,
 * then capset(permitted = effective = {CAP_NET_RAW}). Capabilities belong to a thread; this one
 * (the JS thread) is the one that opens ping sockets. An error from `dropIdentity` is rethrown;
 * a capability that could not be kept is reported, never thrown, so the caller can log it and run on.
 */
export function keepRawSocketCapability(
  dropIdentity: () => void,
  addon: IcmpAddon | string = icmpAddon(),
): CapabilityOutcome {
  if (typeof addon === 'string') {
    dropIdentity();
    return { kept: false, reason: addon };
  }
  let held: boolean;
  try {
    held = addon.hasRawSocketCapability();
  } catch {
    held = false;
  }
  if (!held) {
    dropIdentity();
    return { kept: false, reason: 'the process had no CAP_NET_RAW to keep' };
  }
  try {
    addon.keepRawSocketCapability(true);
  } catch (error) {
    dropIdentity();
    return { kept: false, reason: `prctl(PR_SET_KEEPCAPS): ${errorText(error)}` };
  }
  try {
    dropIdentity();
  } catch (error) {
    try {
      addon.keepRawSocketCapability(false);
    } catch {
      // The caller exits on a failed drop anyway.
    }
    throw error;
  }
  if (process.geteuid?.() === 0) {
    // Still root (nothing was dropped): keep every capability as it is.
    addon.keepRawSocketCapability(false);
    return { kept: true };
  }
  try {
    addon.restoreRawSocketCapability();
    return { kept: true };
  } catch (error) {
    return { kept: false, reason: `capset(CAP_NET_RAW): ${errorText(error)}` };
  }
}
