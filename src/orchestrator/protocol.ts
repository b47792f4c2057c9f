/** Messages between the orchestrator and a device process, over the fork() IPC channel (JSON). */
import type { AclMode, RoleEntry, RoleError } from './types';
import type { WaitingFor } from '../rendezvous';

export interface Job {
  role: string;
  device: number;
  index: number;
  dir: string;
  mode: AclMode;
  entry: RoleEntry;
}

export type ToChild = { type: 'job'; job: Job };

export type FromChild =
  | { type: 'waiting'; waitingFor: WaitingFor | null }
  | { type: 'mark'; name: string; tNs: string }
  | { type: 'result'; ok: true; value?: unknown }
  | { type: 'result'; ok: false; error: RoleError };

/** What the precheck child sends (and prints as its last stdout line). */
export interface PrecheckReport {
  ok: boolean;
  mode?: 'stub' | 'real';
  library?: string;
  reason?: string;
  deviceCount?: number;
  ipcSupported?: boolean;
  error?: string;
}
