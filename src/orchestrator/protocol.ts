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

export type ToChild = { type: 'job'; job: Job } | { type: 'diagnose' };

export type FromChild =
  | { type: 'waiting'; waitingFor: WaitingFor | null }
  | { type: 'mark'; name: string; tNs: string }
  | { type: 'diagnosed'; file: string | null }
  | ({ type: 'result'; ok: true; value?: unknown } & ResultExtras)
  | ({ type: 'result'; ok: false; error: RoleError } & ResultExtras);

/** Sent with the result, which is the device process's last message. */
export interface ResultExtras {
  /** Bytes of stdout / stderr it could not flush before exiting (absent when all were flushed). */
  unflushed?: { stdout: number; stderr: number };
}

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
