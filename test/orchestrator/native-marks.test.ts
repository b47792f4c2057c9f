/** readNativeMarks: the marks files of native roles (native-stub/harness/api/marks.c), read without trusting them. */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import { NativeMarksError, readNativeMarks } from '../../src/orchestrator/native-marks';

let dir: string;
let marks: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'native-marks-'));
  marks = path.join(dir, 'marks');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const write = (file: string, text: string) => {
  mkdirSync(marks, { recursive: true });
  writeFileSync(path.join(marks, file), text);
};

test('no marks directory, or no file of the role: no marks', () => {
  expect(readNativeMarks(dir, 'consumer')).toEqual([]);
  write('producer.10.marks', '5 release\n');
  expect(readNativeMarks(dir, 'consumer')).toEqual([]);
});

test('the files of every process of the role, merged in time order; names with spaces; ns beyond 2^53 exact', () => {
  write('consumer.10.marks', '300 after wait\n9007199254740993 late one\n');
  write('consumer.11.marks', '200 forked child\n');
  write('consumer.10-1.marks', '100 second file of a reused pid\n');
  write('consumer.10.marks.tmp', 'not a marks file\n');
  expect(readNativeMarks(dir, 'consumer')).toEqual([
    { name: 'second file of a reused pid', tNs: '100' },
    { name: 'forked child', tNs: '200' },
    { name: 'after wait', tNs: '300' },
    { name: 'late one', tNs: '9007199254740993' },
  ]);
});

test('a role name is matched exactly: "a" does not take the marks of "a.b" or "a.1"', () => {
  write('a.5.marks', '1 mine\n');
  write('a.b.6.marks', '2 of a.b\n');
  write('a.1.7.marks', '3 of a.1\n');
  expect(readNativeMarks(dir, 'a').map((m) => m.name)).toEqual(['mine']);
  expect(readNativeMarks(dir, 'a.b').map((m) => m.name)).toEqual(['of a.b']);
  expect(readNativeMarks(dir, 'a.1').map((m) => m.name)).toEqual(['of a.1']);
});

test.each([
  ['a line that is not "<ns> <name>"', '1 ok\nhello\n', /consumer\.9\.marks line 2 is not a mark: "hello" \(expected "<CLOCK_MONOTONIC ns> <name>"/],
  ['a negative time', '-5 x\n', /line 1 is not a mark/],
  ['an empty name', '5 \n', /line 1 is not a mark/],
  ['a control character in the name', '5 a\tb\n', /line 1 is not a mark/],
  ['a last line without its newline', '1 ok\n2 cut', /consumer\.9\.marks line 2 is cut short \(no newline at the end: "2 cut"\)/],
])('%s is an error naming the file and the line', (_what, text, message) => {
  write('consumer.9.marks', text);
  expect(() => readNativeMarks(dir, 'consumer')).toThrow(NativeMarksError);
  expect(() => readNativeMarks(dir, 'consumer')).toThrow(message);
});

test('a symbolic link, a FIFO or a directory at a marks name is refused (never followed, never blocks)', () => {
  mkdirSync(marks);
  writeFileSync(path.join(dir, 'elsewhere'), '1 planted\n');
  symlinkSync(path.join(dir, 'elsewhere'), path.join(marks, 'consumer.1.marks'));
  expect(() => readNativeMarks(dir, 'consumer')).toThrow(/consumer\.1\.marks is a symbolic link: refused/);
  rmSync(path.join(marks, 'consumer.1.marks'));
  execFileSync('mkfifo', [path.join(marks, 'consumer.2.marks')]);
  expect(() => readNativeMarks(dir, 'consumer')).toThrow(/consumer\.2\.marks is not a regular file: refused/);
  rmSync(path.join(marks, 'consumer.2.marks'));
  mkdirSync(path.join(marks, 'consumer.3.marks'));
  expect(() => readNativeMarks(dir, 'consumer')).toThrow(/consumer\.3\.marks is not a regular file: refused/);
});

test('a marks directory that is a link or a file is refused', () => {
  mkdirSync(path.join(dir, 'real'));
  symlinkSync(path.join(dir, 'real'), marks);
  expect(() => readNativeMarks(dir, 'consumer')).toThrow(/marks is a symbolic link: refused/);
  rmSync(marks);
  writeFileSync(marks, '');
  expect(() => readNativeMarks(dir, 'consumer')).toThrow(/marks is not a directory: refused/);
});
