/** ACL enums and flags with CANN's numeric values (docs/acl-contract.md section 1). No koffi here. */

/** Event creation flags (aclrtCreateEventWithFlag / aclrtCreateEventExWithFlag). */
export const EventFlag = {
  SYNC: 0x1,
  CAPTURE_STREAM_PROGRESS: 0x2,
  TIME_LINE: 0x8,
  DEVICE_USE_ONLY: 0x10,
  EXTERNAL: 0x20,
  IPC: 0x40,
} as const;

/** aclrtQueryEventStatus. Note: numbered the opposite way from the deprecated EventStatus. */
export enum EventRecordedStatus {
  NOT_READY = 0,
  COMPLETE = 1,
}

/** aclrtQueryEvent (deprecated query). */
export enum EventStatus {
  COMPLETE = 0,
  NOT_READY = 1,
  RESERVED = 2,
}

/** aclrtQueryEventWaitStatus. */
export enum EventWaitStatus {
  COMPLETE = 0,
  NOT_READY = 1,
  RESERVED = 0xffff,
}

export const IPC_EVENT_HANDLE_SIZE = 64;
