/**
 * The one place that tells the kinds of role apart: a RoleSpec with `native` (a scenario's `exec`)
 * is a NativeRole, every other a TypeScriptRole. A new kind adds its class and its line here.
 */
import type { Mode } from '../env';
import { NativeRole, isNative } from './native-role';
import type { RoleKind } from './role-kind';
import { TypeScriptRole } from './typescript-role';
import type { RoleSpec } from './types';

export interface KindLaunch {
  spec: RoleSpec;
  index: number;
  dir: string;
  mode: Mode;
  /** CLOCK_MONOTONIC ns a native role gets as CANN_HARNESS_DEADLINE_NS. */
  deadlineNs?: bigint;
}

export function roleKindFor(launch: KindLaunch): RoleKind {
  const { spec, index, dir, mode, deadlineNs } = launch;
  if (isNative(spec)) return new NativeRole(spec.native, { name: spec.name, device: spec.device, index, dir, mode, deadlineNs });
  return new TypeScriptRole(spec, { index, dir, mode });
}
