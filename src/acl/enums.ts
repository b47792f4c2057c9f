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

/** aclrtMemcpyKind (acl_rt.h). */
export const MemcpyKind = {
  HOST_TO_HOST: 0,
  HOST_TO_DEVICE: 1,
  DEVICE_TO_HOST: 2,
  DEVICE_TO_DEVICE: 3,
  DEFAULT: 4,
} as const;

/** aclrtMemMallocPolicy values used here (acl_rt.h). */
export const MemMallocPolicy = { HUGE_FIRST: 0, HUGE_ONLY: 1, NORMAL_ONLY: 2 } as const;

/** IPC memory export / import flags. Note: the "disable pid validation" bit differs from notify's. */
export const IpcMemExportFlag = { DEFAULT: 0x0, DISABLE_PID_VALIDATION: 0x1 } as const;
export const IpcMemImportFlag = { DEFAULT: 0x0, ENABLE_PEER_ACCESS: 0x1 } as const;

/** Notify creation and IPC notify export / import flags. */
export const NotifyFlag = { DEFAULT: 0x0, DEVICE_USE_ONLY: 0x1 } as const;
export const NotifyExportFlag = { DEFAULT: 0x0, DISABLE_PID_VALIDATION: 0x2 } as const;
export const NotifyImportFlag = { DEFAULT: 0x0, ENABLE_PEER_ACCESS: 0x2 } as const;

/** Key buffers of aclrtIpcMemGetExportKey / aclrtNotifyGetExportKey: at most 64 characters + NUL. */
export const IPC_KEY_BUFFER_SIZE = 65;

/** aclrtValueWait flags (acl_rt.h ACL_STREAM_WAIT_VALUE_*). */
export const ValueWaitFlag = { GEQ: 0x0, EQ: 0x1, AND: 0x2, NOR: 0x3 } as const;
/** aclrtStreamStatus (acl_rt.h). */
export const StreamStatus = { COMPLETE: 0, NOT_READY: 1 } as const;
/** aclrtMemAttr (acl_rt.h): the physical memory attributes aclrtMallocPhysical takes. */
export const MemAttr = {
  HBM_MEM_HUGE: 4,
  HBM_MEM_NORMAL: 5,
  HBM_MEM_HUGE1G: 10,
  MEM_NORMAL: 12,
  MEM_HUGE: 13,
  MEM_HUGE1G: 14,
  MEM_P2P_NORMAL: 15,
  MEM_P2P_HUGE: 16,
  MEM_P2P_HUGE1G: 17,
} as const;

/** aclrtMemLocationType, aclrtMemAccessFlags, aclrtMemGranularityOptions, aclrtMemSharedHandleType (acl_rt.h). */
export const MemLocationType = { HOST: 0, DEVICE: 1, HOST_NUMA: 4 } as const;
export const MemAccessFlags = { NONE: 0x0, READ: 0x1, READWRITE: 0x3 } as const;
export const MemGranularity = { MINIMUM: 0, RECOMMENDED: 1 } as const;
export const MemSharedHandleType = { DEFAULT: 0x1, FABRIC: 0x2 } as const;

/** aclrtMemExportToShareableHandle flags: 0 keeps the pid whitelist on. */
export const VmmExportFlag = { DEFAULT: 0x0, DISABLE_PID_VALIDATION: 0x1 } as const;

/** sizeof(aclrtMemFabricHandle). */
export const MEM_FABRIC_HANDLE_SIZE = 128;
