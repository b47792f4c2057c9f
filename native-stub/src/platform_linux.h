/*
 * platform_linux.h - sizes of the opaque platform types on Linux (glibc).
 *
 * PLAT_SHARED_LOCK_BYTES is sizeof(pthread_mutex_t), which platform_linux.c
 * checks at compile time. It is part of the shared-memory layout (shm.h):
 * a new architecture adds its size here.
 */
#ifndef CANNSTUB_PLATFORM_LINUX_H
#define CANNSTUB_PLATFORM_LINUX_H

#if defined(__x86_64__) && !defined(__ILP32__)
#define PLAT_SHARED_LOCK_BYTES 40
#elif defined(__aarch64__) && !defined(__ILP32__)
#define PLAT_SHARED_LOCK_BYTES 48
#else
#error "PLAT_SHARED_LOCK_BYTES is unknown for this architecture: add sizeof(pthread_mutex_t) here"
#endif

#endif
