/*
 * cannharness_kernel.h - CPU bodies for device kernels, run in stream order.
 *
 * A CANN program launches an AscendC kernel on a stream (`Kernel<<<blockDim, l2ctrl, stream>>>(...)`,
 * usually behind a host wrapper such as CANN's example `WriteDo(blockDim, stream, devPtr, value)`).
 * Without an NPU there is no AscendC compiler and no AI core, but the stream order is what a
 * synchronization test is about. cannharness_launch_kernel() queues a CPU function on the stream
 * with aclrtLaunchHostFunc: it runs once per block index, after every task queued before it and
 * before every task queued after it, exactly where the kernel would run. On the stub, device memory
 * is host-addressable, so the body reads and writes device pointers directly.
 *
 * Header-only, plain C (C++ too): include it in the file that defines your wrapper's CPU body,
 * link with -lascendcl as usual. See docs/guide/cpu-kernels.md.
 *
 *     static void write_body(uint32_t block, void *args) {
 *         struct write_args *a = args;
 *         a->dev[block] = a->value;
 *     }
 *     struct write_args a = { dev, 123 };
 *     cannharness_launch_kernel(stream, 1, write_body, &a, sizeof a, CANNHARNESS_KERNEL_QUEUED);
 *
 * The arguments are copied at launch (as a kernel's are), so `a` may go out of scope at once.
 * The copy is freed after the body ran; a kernel whose stream is destroyed or cancelled before
 * it runs keeps its copy (a few bytes), as its host function never runs.
 *
 * Flags:
 *  - CANNHARNESS_KERNEL_QUEUED: always a stream task, run by the stream's own thread. The strict
 *    model: whatever the program does after the launch may come before the body.
 *  - CANNHARNESS_KERNEL_START_IF_IDLE: on a stream with nothing pending (aclrtStreamQuery says
 *    ACL_STREAM_STATUS_COMPLETE) the body runs before the launch returns, otherwise as QUEUED. An
 *    NPU starts a kernel on an idle stream within microseconds, and a short kernel has ended
 *    before the host's next call; a host thread may not be scheduled for milliseconds. Programs
 *    that lean on that (CANN's memory/10 sample reads imported memory in a kernel, then closes
 *    it without synchronizing) run on the stub as on the NPU with this flag. It hides that race,
 *    so use QUEUED for your own kernels when you want such races found.
 */
#ifndef CANNHARNESS_KERNEL_H
#define CANNHARNESS_KERNEL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CANNHARNESS_KERNEL_QUEUED 0u
#define CANNHARNESS_KERNEL_START_IF_IDLE 1u

/* A kernel's CPU body: called once per block, block = 0 .. blockDim - 1, in order. */
typedef void (*cannharness_kernel_body)(uint32_t block, void *args);

/* What one launch carries to its host function: the body, the block count, the copied arguments. */
struct cannharness_kernel_launch {
    cannharness_kernel_body body;
    uint32_t block_dim;
    size_t args_size; /* the copy follows the struct in the same allocation */
};

static inline void cannharness_kernel_run_(void *launch_ptr)
{
    struct cannharness_kernel_launch *launch = (struct cannharness_kernel_launch *)launch_ptr;
    void *args = launch->args_size > 0 ? (void *)(launch + 1) : NULL;
    for (uint32_t block = 0; block < launch->block_dim; block++)
        launch->body(block, args);
    free(launch);
}

/*
 * Queues `body` on `stream` (NULL: the default stream), to run for blocks 0 .. block_dim - 1 with a
 * copy of the args_size bytes at args (flags: above). Returns ACL_SUCCESS, ACL_ERROR_INVALID_PARAM
 * (NULL body, block_dim 0, args NULL with args_size > 0, or an unknown flag),
 * ACL_ERROR_RT_MEMORY_ALLOCATION (no memory for the copy), or what aclrtLaunchHostFunc returned
 * (then nothing was queued and the copy is freed).
 */
static inline aclError cannharness_launch_kernel(aclrtStream stream, uint32_t block_dim, cannharness_kernel_body body,
                                                 const void *args, size_t args_size, unsigned flags)
{
    if (body == NULL || block_dim == 0 || (args == NULL && args_size > 0) ||
        (flags & ~CANNHARNESS_KERNEL_START_IF_IDLE) != 0)
        return ACL_ERROR_INVALID_PARAM;
    aclrtStreamStatus status = ACL_STREAM_STATUS_NOT_READY;
    if ((flags & CANNHARNESS_KERNEL_START_IF_IDLE) != 0 && aclrtStreamQuery(stream, &status) == ACL_SUCCESS &&
        status == ACL_STREAM_STATUS_COMPLETE) {
        for (uint32_t block = 0; block < block_dim; block++)
            body(block, (void *)(uintptr_t)args);
        return ACL_SUCCESS;
    }
    struct cannharness_kernel_launch *launch =
        (struct cannharness_kernel_launch *)malloc(sizeof(struct cannharness_kernel_launch) + args_size);
    if (launch == NULL)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    launch->body = body;
    launch->block_dim = block_dim;
    launch->args_size = args_size;
    if (args_size > 0)
        memcpy(launch + 1, args, args_size);
    aclError err = aclrtLaunchHostFunc(stream, cannharness_kernel_run_, launch);
    if (err != ACL_SUCCESS)
        free(launch);
    return err;
}

#ifdef __cplusplus
}
#endif

#endif /* CANNHARNESS_KERNEL_H */
