/** The JUnit post-processing: skip reasons from titles become <skipped message>. */
import { addSkipMessages } from '../../src/report/junit-reporter';

test('a skipped case gets its [skip: reason] as the message; other cases are untouched', () => {
  const xml = [
    '<testcase classname="a.spec.ts" name="big [skip: needs 9 devices, 8 available]" time="0">',
    '  <skipped/>',
    '</testcase>',
    '<testcase classname="a.spec.ts" name="plain skip" time="0">',
    '  <skipped/>',
    '</testcase>',
    '<testcase classname="a.spec.ts" name="ok" time="1.2">',
    '</testcase>',
  ].join('\n');
  const out = addSkipMessages(xml);
  expect(out).toContain('<skipped message="needs 9 devices, 8 available"/>');
  expect(out.match(/<skipped\/>/g)).toHaveLength(1); // the skip without a reason stays bare
  expect(out).toContain('name="ok" time="1.2">\n</testcase>');
});
