/**
 * Path resolution with lstat/readlink and opening exactly the resolved file, on real files and
 * real symlinks in a temp dir.
 */
import { closeSync, existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openResolvedForRead, openResolvedForWrite, PathChangedError } from './pinned.js';
import { MAX_SYMLINK_HOPS, pathForms, resolvePath } from './resolve.js';

let root: string;
let proj: string;
let out: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'rein-fs-')));
  proj = join(root, 'proj');
  out = join(root, 'outside');
  mkdirSync(proj);
  mkdirSync(out);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('resolvePath', () => {
  it('follows a dangling link to where a create would put the file', () => {
    symlinkSync('../outside/planted.txt', join(proj, 'notes.txt'));
    const r = resolvePath('notes.txt', proj);
    expect(r).toMatchObject({ written: join(proj, 'notes.txt'), real: join(out, 'planted.txt'), exists: false, links: [join(proj, 'notes.txt')] });
    expect(pathForms(r)).toEqual([join(proj, 'notes.txt'), join(out, 'planted.txt')]);
  });
  it('follows chains, absolute targets and links in the middle of the path', () => {
    symlinkSync('b', join(proj, 'a'));
    symlinkSync(join(proj, '.reinrc.yaml'), join(proj, 'b'));
    expect(resolvePath('a', proj).real).toBe(join(proj, '.reinrc.yaml'));
    symlinkSync(out, join(proj, 'dir'));
    expect(resolvePath('dir/new/deeper.txt', proj)).toMatchObject({ real: join(out, 'new/deeper.txt'), exists: false });
  });
  it('takes `..` after a link from the link target, as the kernel does', () => {
    mkdirSync(join(out, 'sub'));
    symlinkSync(join(out, 'sub'), join(proj, 'l'));
    const r = resolvePath('l/../escaped.txt', proj);
    expect(r.written).toBe(join(proj, 'escaped.txt'));
    expect(r.real).toBe(join(out, 'escaped.txt'));
  });
  it('reports a loop instead of hanging', () => {
    symlinkSync('y', join(proj, 'x'));
    symlinkSync('x', join(proj, 'y'));
    const r = resolvePath('x', proj);
    expect(r.error).toMatch(new RegExp(`more than ${MAX_SYMLINK_HOPS}`));
  });
  it('leaves plain paths alone', () => {
    writeFileSync(join(proj, 'f.txt'), 'x');
    const r = resolvePath(join(proj, 'f.txt'));
    expect(r).toMatchObject({ written: join(proj, 'f.txt'), links: [], real: join(proj, 'f.txt'), exists: true });
    expect(r.identity?.ino).toBe(statSync(join(proj, 'f.txt')).ino);
  });
});

describe('openResolvedForRead', () => {
  it('reads the judged file', () => {
    writeFileSync(join(proj, 'f.txt'), 'inside');
    const fd = openResolvedForRead(join(proj, 'f.txt'));
    expect(readFileSync(fd, 'utf8')).toBe('inside');
    closeSync(fd);
  });
  it('refuses a link swapped in for the file after the decision', () => {
    writeFileSync(join(out, 'secret.txt'), 'secret');
    const real = join(proj, 'f.txt');
    symlinkSync(join(out, 'secret.txt'), real);
    expect(() => openResolvedForRead(real)).toThrow(PathChangedError);
  });
  it('refuses a file replaced by a hard link to another one (same path, another inode)', () => {
    writeFileSync(join(out, 'secret.txt'), 'secret');
    writeFileSync(join(proj, 'f.txt'), 'inside');
    const judged = resolvePath(join(proj, 'f.txt'));
    rmSync(join(proj, 'f.txt'));
    linkSync(join(out, 'secret.txt'), join(proj, 'f.txt'));
    expect(() => openResolvedForRead(judged)).toThrow(/another file was put in its place/);
  });
  it('refuses a file that appeared after a check that found none', () => {
    const judged = resolvePath(join(proj, 'late.txt'));
    writeFileSync(join(proj, 'late.txt'), 'x');
    expect(() => openResolvedForRead(judged)).toThrow(/did not exist/);
  });
  it('refuses a directory on the way swapped for a link', () => {
    writeFileSync(join(out, 'secret.txt'), 'secret');
    symlinkSync(out, join(proj, 'sub'));
    expect(() => openResolvedForRead(join(proj, 'sub/secret.txt'))).toThrow(/changed after the permission check/);
  });
});

describe('openResolvedForWrite', () => {
  it('creates missing directories and the file, inside the judged directory', () => {
    const w = openResolvedForWrite(join(proj, 'a/b/new.txt'), { create: 'new', mkdirs: true });
    writeSync(w.fd, 'hello');
    closeSync(w.fd);
    expect(w.created).toBe(true);
    expect(readFileSync(join(proj, 'a/b/new.txt'), 'utf8')).toBe('hello');
  });
  it('never creates anything through a directory swapped for a link', () => {
    symlinkSync(out, join(proj, 'a'));
    expect(() => openResolvedForWrite(join(proj, 'a/new.txt'), { create: true, mkdirs: true })).toThrow(PathChangedError);
    expect(existsSync(join(out, 'new.txt'))).toBe(false);
  });
  it('never creates anything through a dangling link put where a missing directory was', () => {
    symlinkSync(join(out, 'made'), join(proj, 'a'));
    expect(() => openResolvedForWrite(join(proj, 'a/b/new.txt'), { create: true, mkdirs: true })).toThrow(PathChangedError);
    expect(existsSync(join(out, 'made'))).toBe(false);
  });
  it('refuses a final component swapped for a link, before truncating anything', () => {
    writeFileSync(join(out, '.bashrc'), 'keep me');
    symlinkSync(join(out, '.bashrc'), join(proj, 'notes.txt'));
    expect(() => openResolvedForWrite(join(proj, 'notes.txt'), { create: true })).toThrow(/symbolic link/);
    expect(readFileSync(join(out, '.bashrc'), 'utf8')).toBe('keep me');
  });
  it('refuses a file with another hard link', () => {
    writeFileSync(join(out, 'target'), 'keep me');
    linkSync(join(out, 'target'), join(proj, 'hard.txt'));
    expect(() => openResolvedForWrite(join(proj, 'hard.txt'), { create: false })).toThrow(/hard links/);
  });
  it('with create "new", refuses a file that appeared meanwhile', () => {
    writeFileSync(join(proj, 'x.txt'), 'there');
    expect(() => openResolvedForWrite(join(proj, 'x.txt'), { create: 'new' })).toThrow(/EEXIST/);
  });
});
