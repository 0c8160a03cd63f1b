import { Writable } from 'node:stream';
import { resolveConfig } from '../config/config.resolve';
import { createLogger } from '../logging/logger';
import { dropIdentity, IdentitySystem } from './identity';
import { StartupError } from './startup-error';

const CAP_NET_RAW_MASK = 1n << 13n;

/** An operating system that starts as root and obeys (or, when told, ignores) identity changes. */
function fakeSystem(overrides: Partial<IdentitySystem> = {}, startUid = 0) {
  const calls: string[] = [];
  let uid = startUid;
  let gid = startUid;
  let caps: bigint = startUid === 0 ? CAP_NET_RAW_MASK : 0n;
  const system: IdentitySystem = {
    getuid: () => uid,
    geteuid: () => uid,
    getegid: () => gid,
    umask: (mask) => (calls.push(`umask ${mask.toString(8)}`), 0o022),
    setgroups: (groups) => void calls.push(`setgroups ${groups.join(',')}`),
    setgid: (id) => {
      calls.push(`setgid ${id}`);
      gid = id;
    },
    setuid: (id) => {
      if (uid !== 0) throw Object.assign(new Error('EPERM'), { code: 'EPERM' });
      calls.push(`setuid ${id}`);
      uid = id;
      if (id !== 0) caps = 0n;
    },
    mkdir: (dir) => void calls.push(`mkdir ${dir}`),
    lchownTree: (dir, u, g) => void calls.push(`lchown ${dir} ${u}:${g}`),
    effectiveCapabilities: () => caps,
    keepingRawSocket: (drop) => {
      drop();
      return { kept: false, reason: 'the fake has no addon' };
    },
    ...overrides,
  };
  return { system, calls };
}

function setup(env: Record<string, string> = {}) {
  const config = resolveConfig({ env, flags: { dataDir: '/srv/monitor' }, cwd: '/' });
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { config, lines, logger: createLogger('debug', sink) };
}

describe('dropIdentity', () => {
  it('as root: umask, data dir, chown without following links, then groups, gid, uid — in that order', () => {
    const { config, logger, lines } = setup({ PUID: '1000', PGID: '1001', UMASK: '027' });
    const { system, calls } = fakeSystem();
    dropIdentity(config, logger, system);
    expect(calls).toEqual([
      'umask 27',
      'mkdir /srv/monitor',
      'lchown /srv/monitor 1000:1001',
      'setgroups 1001',
      'setgid 1001',
      'setuid 1000',
    ]);
    expect(lines.map((l) => l.msg)).toEqual([
      'dropped root privileges',
      'raw-socket capability lost in the identity drop: ping uses unprivileged datagram sockets only',
    ]);
    expect(lines[0]).toMatchObject({ uid: 1000, gid: 1001, umask: '027' });
  });

  it('uses PUID 500, PGID 500 and UMASK 022 by default', () => {
    const { config, logger } = setup();
    const { system, calls } = fakeSystem();
    dropIdentity(config, logger, system);
    expect(calls).toEqual(expect.arrayContaining(['umask 22', 'setgid 500', 'setuid 500']));
  });

  it('PUID=0 keeps root for the whole run and says so', () => {
    const { config, logger, lines } = setup({ PUID: '0' });
    const { system, calls } = fakeSystem();
    dropIdentity(config, logger, system);
    expect(calls).toEqual(['umask 22', 'mkdir /srv/monitor']);
    expect(lines).toHaveLength(1);
    expect(String(lines[0].msg)).toContain('PUID=0');
  });

  it('not root: changes nothing and logs one line that the settings are ignored', () => {
    const { config, logger, lines } = setup({ PUID: '1000' });
    const { system, calls } = fakeSystem({}, 1234);
    dropIdentity(config, logger, system);
    expect(calls).toEqual([]);
    expect(lines).toHaveLength(1);
    expect(lines[0].msg).toBe('not started as root: PUID, PGID and UMASK are ignored');
  });

  it('exits (throws a start-up error) when the change did not take', () => {
    const { config, logger } = setup({ PUID: '1000', PGID: '1000' });
    const { system } = fakeSystem({ setuid: () => undefined });
    expect(() => dropIdentity(config, logger, system)).toThrow(StartupError);
    expect(() => dropIdentity(config, logger, system)).toThrow(/did not take/);
  });

  it('refuses to continue when root could be regained', () => {
    const { config, logger } = setup({ PUID: '1000', PGID: '1000' });
    let uid = 0;
    const { system } = fakeSystem({
      getuid: () => uid,
      geteuid: () => uid,
      setuid: (id) => void (uid = id),
    });
    expect(() => dropIdentity(config, logger, system)).toThrow(/not permanent/);
  });

  it('names the uid, gid and cause when a step fails', () => {
    const { config, logger } = setup({ PUID: '1000', PGID: '1000' });
    const { system } = fakeSystem({
      lchownTree: () => {
        throw Object.assign(new Error('nope'), { code: 'EROFS' });
      },
    });
    expect(() => dropIdentity(config, logger, system)).toThrow(
      'cannot switch to uid 1000 gid 1000: read-only file system (EROFS)',
    );
  });

  it('says so when the capability survives the drop', () => {
    const { config, logger, lines } = setup({ PUID: '1000', PGID: '1000' });
    const { system } = fakeSystem({
      effectiveCapabilities: () => CAP_NET_RAW_MASK,
      keepingRawSocket: (drop) => {
        drop();
        return { kept: true };
      },
    });
    dropIdentity(config, logger, system);
    expect(lines.map((l) => l.msg)).toEqual([
      'dropped root privileges',
      'kept the raw-socket capability for ping',
    ]);
  });
});
