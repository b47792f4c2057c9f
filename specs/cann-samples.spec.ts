/**
 * CANN's own multi-process runtime samples (hicann/runtime `example/`), built from CANN's sources
 * unchanged and run as native roles. Only their AscendC kernels are replaced, by CPU bodies that run
 * in stream order (native-stub/kernels/cann_example_kernels.cpp); the samples' own file handshake
 * (`file/*.bin` + `.done`, polled once a second) is theirs, so each takes a few seconds.
 *
 * The sources come from CANN_RUNTIME_SRC (a hicann/runtime checkout or its git directory); without
 * it every scenario here is a Jest skip that says so. Nothing of CANN's is kept in this repository.
 *
 * The check is each sample's run.sh check: the value one process's kernel wrote ("Source data: N")
 * is the value the other process's kernel read ("Destination data: N"), both processes exit 0.
 */
import * as path from 'node:path';
import { scenario } from '../src';

interface Sample {
  /** The build folder (specs/cann-samples/Makefile's SAMPLES). */
  build: string;
  /** The sample's folder under example/. */
  title: string;
  /** Which process prints "Source data" (its kernel writes) and which "Destination data" (reads). */
  source: 'proc_a' | 'proc_b';
  destination: 'proc_a' | 'proc_b';
  /** Device ids the sample's processes set. */
  deviceA: number;
  deviceB: number;
  /** Why the mutant audit's wait-noop cannot kill it, where it cannot. */
  noWaitReason?: string;
}

const FILE_HANDSHAKE_ONLY =
  "CANN's sample orders its two processes only through its files (the reader imports after the writer's kernel ran); " +
  'it has no stream wait for a mutant to remove';

const SAMPLES: Sample[] = [
  {
    build: 'memory_7',
    title: '1_basic_features/memory/7_physical_memory_sharing_withpid',
    source: 'proc_a',
    destination: 'proc_b',
    deviceA: 0,
    deviceB: 0,
    noWaitReason: FILE_HANDSHAKE_ONLY,
  },
  {
    build: 'memory_8',
    title: '1_basic_features/memory/8_physical_memory_sharing_withoutpid',
    source: 'proc_a',
    destination: 'proc_b',
    deviceA: 0,
    deviceB: 0,
    noWaitReason: FILE_HANDSHAKE_ONLY,
  },
  {
    build: 'memory_10',
    title: '1_basic_features/memory/10_ipc_memory_withpid',
    source: 'proc_a',
    destination: 'proc_b',
    deviceA: 0,
    deviceB: 0,
    noWaitReason: FILE_HANDSHAKE_ONLY,
  },
  {
    build: 'memory_11',
    title: '1_basic_features/memory/11_ipc_memory_withoutpid',
    source: 'proc_a',
    destination: 'proc_b',
    deviceA: 0,
    deviceB: 0,
    noWaitReason: FILE_HANDSHAKE_ONLY,
  },
  {
    build: 'notify_0',
    title: '2_advanced_features/notify/0_ipc_notify_withpid',
    source: 'proc_b',
    destination: 'proc_a',
    deviceA: 2,
    deviceB: 3,
  },
  {
    build: 'notify_1',
    title: '2_advanced_features/notify/1_ipc_notify_withoutpid',
    source: 'proc_b',
    destination: 'proc_a',
    deviceA: 2,
    deviceB: 3,
  },
];

/** run.sh makes `file/` in its working directory before it starts the two processes; so does the role. */
function sampleProcess(sample: Sample, proc: 'proc_a' | 'proc_b'): string[] {
  return ['sh', '-c', 'mkdir -p file && exec "$0"', path.join(__dirname, 'cann-samples', 'build', sample.build, proc)];
}

function valueAfter(label: string, output: string): string | undefined {
  return new RegExp(`${label}: (-?\\d+)`).exec(output)?.[1];
}

for (const sample of SAMPLES) {
  scenario(`CANN sample ${sample.title}, unchanged`, {
    devices: Math.max(sample.deviceA, sample.deviceB) + 1,
    build: 'make -s -C cann-samples',
    precheck: { exec: ['cann-samples/precheck.sh'] },
    ...(sample.noWaitReason ? { audit: { expectSurvive: ['wait-noop'], reason: sample.noWaitReason } } : {}),
    roles: {
      proc_a: { device: sample.deviceA, exec: sampleProcess(sample, 'proc_a') },
      proc_b: { device: sample.deviceB, exec: sampleProcess(sample, 'proc_b') },
    },
    verify: (result) => {
      expect(result).toHaveAllRolesSucceeded();
      const written = valueAfter('Source data', result.role(sample.source).stdout);
      const read = valueAfter('Destination data', result.role(sample.destination).stdout);
      expect(written).toBeDefined();
      expect(read).toBe(written);
    },
  });
}
