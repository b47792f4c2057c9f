/**
 * RoleBasics: the role's identity (device, name, index, dir) and per-process services (acl,
 * rendezvous, log, mark) that a ScenarioContext or ThreadContext is built from: the parts of the
 * orchestrator's RoleContext it uses (a worker thread builds its own). Its own module so that
 * context.ts and data-context.ts both depend on it without depending on each other.
 */
import type { Acl } from '../../../src/acl';
import type { RoleContext } from '../../../src/wire/types';

export interface RoleBasics {
  readonly acl: Acl;
  device: number;
  role: string;
  index: number;
  dir: string;
  rendezvous: RoleContext['rendezvous'];
  log(...args: unknown[]): void;
  mark(name: string): void;
}
