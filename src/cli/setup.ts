/** `cann-harness setup`: build the CPU stub for an installed package (see src/acl/stub-build.ts). */
import chalk from 'chalk';
import { StubBuildError, buildStub, stubBuildDir } from '../acl/stub-build';
import { IS_SOURCE_CHECKOUT } from '../paths';
import { UsageError } from './run';

export function setupCommand(opts: { force?: boolean }, say: (line: string) => void = (l) => process.stdout.write(`${l}\n`)): number {
  if (IS_SOURCE_CHECKOUT) {
    say(`${chalk.bold('cann-harness setup')} a source checkout builds the stub with \`npm run build:stub\` (into ${stubBuildDir()})`);
    return 0;
  }
  say(`${chalk.bold('cann-harness setup')} building the CPU stub into ${stubBuildDir()} ...`);
  try {
    const dir = buildStub({ force: opts.force });
    say(`${chalk.bold('cann-harness setup')} ${chalk.green('ready')}: ${dir}`);
    return 0;
  } catch (e) {
    if (e instanceof StubBuildError) throw new UsageError(e.message); // set-up error: exit 2, no stack
    throw e;
  }
}
