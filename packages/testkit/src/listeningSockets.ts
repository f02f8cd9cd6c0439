import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** A TCP socket a process listens on: its address as text ("127.0.0.1", "::") and port. */
export interface ListeningSocket {
  address: string;
  port: number;
}

const TCP_LISTEN = '0A';

/** "0100007F" (little-endian words, as the kernel prints them) → "127.0.0.1". */
function ipv4(hex: string): string {
  return [6, 4, 2, 0].map((i) => parseInt(hex.slice(i, i + 2), 16)).join('.');
}

/**
 * 32 hex digits, four little-endian 32-bit words → "::1", "::" or the full form. An
 * IPv4-mapped address (::ffff:a.b.c.d, how the JVM binds an IPv4 address) reads as the IPv4
 * address it accepts connections to.
 */
function ipv6(hex: string): string {
  const bytes = [0, 8, 16, 24].flatMap((w) =>
    [6, 4, 2, 0].map((i) => parseInt(hex.slice(w + i, w + i + 2), 16)),
  );
  const groups = Array.from({ length: 8 }, (_, g) =>
    ((bytes[2 * g]! << 8) | bytes[2 * g + 1]!).toString(16),
  );
  if (groups.slice(0, 5).every((g) => g === '0') && groups[5] === 'ffff')
    return bytes.slice(12).join('.');
  if (groups.every((g) => g === '0')) return '::';
  if (groups.slice(0, 7).every((g) => g === '0')) return `::${groups[7]}`;
  return groups.join(':');
}

/** The socket inodes a process holds open (its fds that link to "socket:[N]"). */
function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match) inodes.add(match[1]!);
    } catch {
      // the fd was closed between readdir and readlink
    }
  }
  return inodes;
}

/**
 * Every TCP socket process `pid` listens on, IPv4 and IPv6, read from /proc (Linux): the
 * process's socket inodes matched against its network namespace's tcp tables. Unlike the
 * tables alone, this names only that process's listeners.
 */
export function listeningSockets(pid: number): ListeningSocket[] {
  const inodes = socketInodes(pid);
  const found: ListeningSocket[] = [];
  for (const [file, decode] of [
    ['tcp', ipv4],
    ['tcp6', ipv6],
  ] as const) {
    const lines = readFileSync(`/proc/${pid}/net/${file}`, 'utf8').trim().split('\n').slice(1);
    for (const line of lines) {
      const fields = line.trim().split(/\s+/);
      const [local, state, inode] = [fields[1], fields[3], fields[9]];
      if (state !== TCP_LISTEN || !local || !inode || !inodes.has(inode)) continue;
      const [hex, port] = local.split(':') as [string, string];
      found.push({ address: decode(hex), port: parseInt(port, 16) });
    }
  }
  return found;
}
