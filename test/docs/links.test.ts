/**
 * The documentation a newcomer reads first: README.md stays short (the first hour: details live
 * in docs/), and every relative link of every Markdown file in the repository resolves, fragments
 * included. test/package/pack-install.test.ts checks the same for the files the tarball ships.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { brokenLinks, headingAnchors, markdownLinks } from '../support/markdown-links';

const REPO = path.resolve(__dirname, '..', '..');
const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: REPO, encoding: 'utf8' })
  .split('\n')
  .filter(Boolean);
const read = (f: string): string => readFileSync(path.join(REPO, f), 'utf8');

test('README.md is at most 500 lines', () => {
  expect(read('README.md').split('\n').length).toBeLessThanOrEqual(500);
});

test('every relative link of every Markdown file resolves to a file of the repository (and a heading of it)', () => {
  const markdown = tracked.filter((f) => f.endsWith('.md') && !f.startsWith('node_modules/'));
  expect(markdown).toEqual(expect.arrayContaining(['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md', 'docs/architecture.md']));
  expect(brokenLinks(markdown, new Set(tracked), read)).toEqual([]);
});

test('the link finder sees a missing file, a missing heading, and no link in code', () => {
  const files: Record<string, string> = {
    'README.md': [
      '# Title',
      '',
      '## Set-up and tests (`npm`)',
      '[a](docs/x.md) [b](docs/y.md#there) [c](#set-up-and-tests-npm) [d](#gone)',
      '`[e](nowhere.md)`',
      '```',
      '[f](nowhere.md)',
      '```',
      '[g](https://example.com/x)',
      '',
    ].join('\n'),
    'docs/x.md': '# X\n[back](../README.md#title) [out](../../outside.md)\n',
  };
  const broken = brokenLinks(Object.keys(files), new Set(Object.keys(files)), (f) => files[f]);
  expect(broken).toEqual([
    'README.md:4: docs/y.md#there (no docs/y.md)',
    'README.md:4: #gone (no heading #gone in README.md)',
    'docs/x.md:2: ../../outside.md (no ../outside.md)',
  ]);
  expect(markdownLinks('README.md', files['README.md']).map((l) => l.target)).toHaveLength(4);
  expect([...headingAnchors('# A b\n## A b\n### `x` (y), z!\n')]).toEqual(['a-b', 'a-b-1', 'x-y-z']);
});
