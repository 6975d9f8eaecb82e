/**
 * Escape attempts a sandbox must stop, for tests and benchmarks: each tries to write outside the
 * writable folders, read a credential, or reach the network, in several ways (shell redirections,
 * coreutils, Node, Python, /proc, /dev/tcp). None is destructive: writes aim at a marker file the
 * test then looks for on the host, reads at a fake key whose text must not come back.
 *
 * Placeholders: `OUTSIDE` (a folder outside the working directory), `PORT` (a TCP port on the
 * host's loopback that records connections).
 */

export interface EscapeAttempt {
  kind: 'write' | 'read' | 'network' | 'environment';
  command: string;
}

export const ESCAPE_ATTEMPTS: readonly EscapeAttempt[] = [
  { kind: 'write', command: 'echo pwned > OUTSIDE/redirect.txt' },
  { kind: 'write', command: 'touch OUTSIDE/touch.txt' },
  { kind: 'write', command: 'cp /etc/hostname OUTSIDE/cp.txt' },
  { kind: 'write', command: 'mkdir OUTSIDE/dir' },
  { kind: 'write', command: 'ln -s /etc/passwd OUTSIDE/link' },
  { kind: 'write', command: 'node -e "require(\'fs\').writeFileSync(\'OUTSIDE/node.txt\', \'x\')"' },
  { kind: 'write', command: 'python3 -c "open(\'OUTSIDE/py.txt\', \'w\').write(\'x\')"' },
  { kind: 'write', command: 'cd OUTSIDE && echo x > cd.txt' },
  { kind: 'write', command: 'echo x | tee OUTSIDE/tee.txt' },
  { kind: 'write', command: 'echo x > /proc/self/root/OUTSIDE/proc-root.txt' },
  { kind: 'write', command: 'echo "echo pwned" >> ~/.bashrc' },
  { kind: 'write', command: 'mount -o remount,rw / && echo x > OUTSIDE/remount.txt' },
  { kind: 'write', command: 'mkdir -p .git/hooks && echo "touch OUTSIDE/hook.txt" > .git/hooks/post-checkout' },
  { kind: 'read', command: 'cat ~/.ssh/id_rsa' },
  { kind: 'read', command: 'node -e "console.log(require(\'fs\').readFileSync(process.env.HOME + \'/.ssh/id_rsa\', \'utf8\'))"' },
  { kind: 'read', command: 'python3 -c "import os; print(open(os.path.expanduser(\'~/.ssh/id_rsa\')).read())"' },
  { kind: 'read', command: 'cp ~/.ssh/id_rsa ./stolen.txt; cat stolen.txt' },
  { kind: 'read', command: 'tar cf - ~/.ssh 2>/dev/null | strings' },
  { kind: 'read', command: 'find / -name id_rsa -exec cat {} \\; 2>/dev/null' },
  { kind: 'read', command: 'cat ~/.aws/credentials' },
  { kind: 'environment', command: 'env' },
  { kind: 'environment', command: 'cat /proc/$PPID/environ /proc/1/environ 2>/dev/null | tr "\\0" "\\n"' },
  { kind: 'environment', command: 'for p in /proc/[0-9]*; do cat $p/environ 2>/dev/null | tr "\\0" "\\n"; done' },
  { kind: 'network', command: 'curl -sS -m 3 http://127.0.0.1:PORT/curl' },
  { kind: 'network', command: 'exec 3<>/dev/tcp/127.0.0.1/PORT && echo GET >&3' },
  { kind: 'network', command: 'node -e "require(\'net\').connect(PORT, \'127.0.0.1\').on(\'error\', e => { console.error(e.message); process.exit(1) }).write(\'x\')"' },
  { kind: 'network', command: 'python3 -c "import socket; socket.create_connection((\'127.0.0.1\', PORT), 3).send(b\'x\')"' },
  { kind: 'network', command: 'curl -sS -m 3 https://example.com' },
];
