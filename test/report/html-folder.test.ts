/**
 * Where the HTML report may be written (issue 36 item 3, issue 33 item 5): only into a folder that
 * is ours (new, empty, or marked by the harness), never through a link, and a folder that is not
 * (someone's files, `--html .`, a file, a link, a stranger's folder in a shared temp dir) is refused
 * with exit 2 before anything runs. The stranger is a uid that is not ours (chown as root).
 */
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { spawnSync } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPORT_MARKER, ReportFolderError, checkReportFolder } from '../../src/report/html/folder';
import { buildModels, type RunInfo } from '../../src/report/html/model';
import { writeMatrixReport } from '../../src/report/html/matrix';
import { page, writeHtmlReport } from '../../src/report/html/write';
import { runCommand } from '../support/run-child';

jest.setTimeout(90_000);

const repoRoot = path.resolve(__dirname, '..', '..');
const bin = path.join(repoRoot, 'bin', 'cann-harness.js');
const specs = path.join(repoRoot, 'test', 'jest', 'fixtures', 'cli');
const asRoot = process.getuid?.() === 0;
const STRANGER = 61_234;
const info: RunInfo = {
  mode: 'stub',
  library: '/lib/libascendcl.so',
  devices: 8,
  durationMs: 1200,
  startedAt: 0,
  rerun: 'npx cann-harness run --html',
  loadErrors: [],
};
const tc = (title: string) => ({
  specFile: '/p/a.spec.ts',
  file: 'a.spec.ts',
  title,
  status: 'passed' as const,
  durationMs: 10,
  attempts: 1,
  failureMessages: [],
});

let tmp: string;
beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'cann-html-folder-'));
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

const write = (dir: string, titles = ['one', 'two']) => {
  const { index, scenarios } = buildModels(titles.map(tc), [], info);
  return writeHtmlReport(dir, index, scenarios);
};

function run(args: string[], cwd = repoRoot) {
  return runCommand(
    process.execPath,
    [bin, 'run', '--mode', 'stub', '--specs', specs, '-t', 'quick', '--junit', path.join(tmp, 'junit.xml'), ...args],
    { cwd, env: {} },
  );
}

describe('cann-harness run --html', () => {
  test("`--html .` in a project: refused with exit 2 before anything runs; the user's scenarios/ and index.html stay", async () => {
    const project = path.join(tmp, 'project');
    mkdirSync(path.join(project, 'scenarios'), { recursive: true });
    writeFileSync(path.join(project, 'scenarios', 'handoff.ts'), 'export const handoff = 1;\n');
    writeFileSync(path.join(project, 'index.html'), '<p>my page</p>\n');
    const r = await run(['--html', '.'], project);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `error: --html .: it holds files the harness did not write (index.html, scenarios) and no ${REPORT_MARKER}: ` +
        'they would be replaced or removed. ' +
        'The HTML report is written only into a new or empty folder, ' +
        `or one the harness made (it holds ${REPORT_MARKER}): give such a folder, e.g. --html reports/html`,
    );
    expect(r.stdout).not.toContain('probing devices');
    expect(readFileSync(path.join(project, 'scenarios', 'handoff.ts'), 'utf8')).toBe('export const handoff = 1;\n');
    expect(readFileSync(path.join(project, 'index.html'), 'utf8')).toBe('<p>my page</p>\n');
  });

  test('`--html <a file>`: exit 2, the file untouched', async () => {
    writeFileSync(path.join(tmp, 'notes.txt'), 'mine');
    const r = await run(['--html', path.join(tmp, 'notes.txt')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `error: --html ${path.join(tmp, 'notes.txt')}: it is a file, not a folder (give the folder to write index.html into).`,
    );
    expect(readFileSync(path.join(tmp, 'notes.txt'), 'utf8')).toBe('mine');
  });

  (asRoot ? test : test.skip)(
    "a stranger's folder in a shared temp dir with index.html linked to a file of ours: refused, nothing written through the link",
    async () => {
      const victim = path.join(tmp, 'victim.txt');
      writeFileSync(victim, 'precious');
      const shared = path.join(tmp, 'shared-report');
      mkdirSync(shared, { mode: 0o777 });
      chmodSync(shared, 0o777);
      symlinkSync(victim, path.join(shared, 'index.html'));
      chownSync(shared, STRANGER, STRANGER);
      const r = await run(['--html', shared]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`error: --html ${shared}: it belongs to uid ${STRANGER}, not to this user (uid 0).`);
      expect(readFileSync(victim, 'utf8')).toBe('precious');
      expect(readdirSync(shared)).toEqual(['index.html']);
    },
  );

  test('a new folder: made, marked, written; the next run writes it again', async () => {
    const dir = path.join(tmp, 'reports', 'html');
    for (let i = 0; i < 2; i++) {
      const r = await run(['--html', dir]);
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
      expect(readdirSync(dir).sort()).toEqual([REPORT_MARKER, 'index.html', 'scenarios']);
      expect(readdirSync(path.join(dir, 'scenarios'))).toEqual(['0.html']);
    }
  });
});

describe('writeHtmlReport: only into a folder that is ours, never through a link', () => {
  test('a new folder is made (0755) and marked; pages and index written; the next report replaces only its own pages', () => {
    const dir = path.join(tmp, 'a', 'b');
    expect(write(dir)).toBe(path.join(dir, 'index.html'));
    expect(readdirSync(dir).sort()).toEqual([REPORT_MARKER, 'index.html', 'scenarios']);
    expect(lstatSync(dir).mode & 0o777).toBe(0o755);
    expect(readdirSync(path.join(dir, 'scenarios')).sort()).toEqual(['0.html', '1.html']);
    writeFileSync(path.join(dir, 'notes.txt'), 'kept'); // beside the report: never touched
    write(dir, ['only']);
    expect(readdirSync(path.join(dir, 'scenarios'))).toEqual(['0.html']);
    expect(readFileSync(path.join(dir, 'notes.txt'), 'utf8')).toBe('kept');
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp') || n.startsWith('.scenarios'))).toEqual([]);
  });

  test("a killed writer's staging files are removed by the next write; a live writer's and other files stay", () => {
    const dir = path.join(tmp, 'r');
    write(dir);
    const dead = spawnSync('true').pid!; // exited and reaped: no process has this pid now
    mkdirSync(path.join(dir, `.scenarios-${dead}-AbC123`));
    writeFileSync(path.join(dir, `.scenarios-${dead}-AbC123`, '0.html'), 'half');
    mkdirSync(path.join(dir, `.scenarios-old-${dead}-0a1b2c3d4e5f`));
    writeFileSync(path.join(dir, `.index.html.${dead}.0a1b2c3d4e5f.tmp`), 'half');
    mkdirSync(path.join(dir, '.scenarios-1-XyZ789')); // pid 1 is alive
    writeFileSync(path.join(dir, '.notes'), 'mine');
    write(dir);
    expect(readdirSync(dir).sort()).toEqual(['.cann-harness-report', '.notes', '.scenarios-1-XyZ789', 'index.html', 'scenarios']);
  });

  test('an empty folder and a report written before the marker existed are ours', () => {
    mkdirSync(path.join(tmp, 'empty'));
    write(path.join(tmp, 'empty'));
    expect(existsSync(path.join(tmp, 'empty', REPORT_MARKER))).toBe(true);
    const old = path.join(tmp, 'old');
    mkdirSync(path.join(old, 'scenarios'), { recursive: true });
    writeFileSync(path.join(old, 'index.html'), page('old', '', ''));
    writeFileSync(path.join(old, 'scenarios', '3.html'), page('old', '', ''));
    expect(checkReportFolder(old, '--html old')).toBe('ours');
    writeFileSync(path.join(old, 'scenarios', 'handoff.ts'), '');
    expect(() => checkReportFolder(old, '--html old')).toThrow(ReportFolderError);
  });

  test('refused: a folder of other files, a link to a folder of ours, a file, a group-writable folder, a marker that is a link', () => {
    const refuses = (dir: string, problem: RegExp) => {
      expect(() => write(dir)).toThrow(ReportFolderError);
      expect(() => write(dir)).toThrow(problem);
    };
    mkdirSync(path.join(tmp, 'src'));
    writeFileSync(path.join(tmp, 'src', 'a.ts'), 'x');
    refuses(path.join(tmp, 'src'), /^--html \S+src: it holds files the harness did not write \(a\.ts\) and no \.cann-harness-report/);
    write(path.join(tmp, 'real'));
    symlinkSync(path.join(tmp, 'real'), path.join(tmp, 'link'));
    refuses(path.join(tmp, 'link'), /link: it is a symbolic link \(the harness never writes through one\)/);
    writeFileSync(path.join(tmp, 'file.html'), 'x');
    refuses(path.join(tmp, 'file.html'), /file\.html: it is a file, not a folder/);
    refuses(path.join(tmp, 'file.html', 'under'), /file\.html is inside a file|file\.html is a file/);
    mkdirSync(path.join(tmp, 'group'));
    chmodSync(path.join(tmp, 'group'), 0o775);
    refuses(path.join(tmp, 'group'), /group: its mode 0775 lets group or others write to it/);
    mkdirSync(path.join(tmp, 'fake'));
    writeFileSync(
      path.join(tmp, 'marker'),
      'cann-ipc-harness HTML report folder: the harness replaces index.html and scenarios/ here at every run.\n',
    );
    symlinkSync(path.join(tmp, 'marker'), path.join(tmp, 'fake', REPORT_MARKER));
    refuses(path.join(tmp, 'fake'), /fake: its \.cann-harness-report is not one the harness wrote/);
    expect(() => writeMatrixReport(path.join(tmp, 'src'), { columns: [], rows: [], summary: [] })).toThrow(
      /it holds files the harness did not write/,
    );
    expect(readdirSync(path.join(tmp, 'src'))).toEqual(['a.ts']);
  });

  test('links inside a folder of ours are replaced, never written through', () => {
    const dir = path.join(tmp, 'r');
    write(dir);
    const victim = path.join(tmp, 'victim.txt');
    writeFileSync(victim, 'precious');
    mkdirSync(path.join(tmp, 'victim-dir'));
    writeFileSync(path.join(tmp, 'victim-dir', 'keep.ts'), 'x');
    rmSync(path.join(dir, 'index.html'));
    symlinkSync(victim, path.join(dir, 'index.html'));
    rmSync(path.join(dir, 'scenarios'), { recursive: true });
    symlinkSync(path.join(tmp, 'victim-dir'), path.join(dir, 'scenarios'));
    write(dir);
    expect(readFileSync(victim, 'utf8')).toBe('precious');
    expect(readdirSync(path.join(tmp, 'victim-dir'))).toEqual(['keep.ts']);
    expect(lstatSync(path.join(dir, 'index.html')).isFile()).toBe(true);
    expect(lstatSync(path.join(dir, 'scenarios')).isDirectory()).toBe(true);
  });

  (asRoot ? test : test.skip)("a folder of another user's is refused", () => {
    mkdirSync(path.join(tmp, 'theirs'), { mode: 0o755 });
    chownSync(path.join(tmp, 'theirs'), STRANGER, STRANGER);
    expect(() => write(path.join(tmp, 'theirs'))).toThrow(new RegExp(`theirs: it belongs to uid ${STRANGER}, not to this user`));
    expect(readdirSync(path.join(tmp, 'theirs'))).toEqual([]);
  });
});
