/*
 * CPU bodies for the kernel wrappers of CANN's runtime samples (hicann/runtime
 * example/kernel_func/kernel_ops.h), so those samples build and run unchanged on the stub:
 * link this file in place of the samples' AscendC `kernels` library.
 *
 * Each wrapper launches its body on the stream with cannharness_launch_kernel(), so it runs in
 * stream order, once per block, as the kernel would; on an idle stream it starts at once
 * (CANNHARNESS_KERNEL_START_IF_IDLE, as on the NPU: memory/10's proc_b closes the memory its
 * kernel read without synchronizing first). What each body does is the kernel's
 * effect as the samples rely on it: the value written or read, and the line the kernel prints
 * (run.sh compares "Source data: N" of one process with "Destination data: N" of the other).
 * ErrorOP (a trap on the AI core) and LongOP (seconds of arithmetic) have no CPU body: a sample
 * that uses them does not link, which says so rather than passing without them.
 *
 * Built by the samples' build (specs/cann-samples/Makefile) with the flags of the active mode.
 */
#include <cinttypes>
#include <cstdint>
#include <cstdio>

#include "cannharness_kernel.h"
#include "kernel_func/kernel_ops.h" /* CANN's declarations: a signature that drifts stops the build */

namespace
{

struct IntWrite {
    int *dev;
    int value;
};
struct IntRead {
    int *dev;
};
struct U32Vector {
    uint32_t *x;
};

/* A kernel's launch failing is an error the sample cannot see (a <<<>>> launch returns nothing):
 * say it, as the device's own log would. */
void Launch(void *stream, uint32_t blockDim, cannharness_kernel_body body, const void *args, size_t size,
            const char *name)
{
    aclError err = cannharness_launch_kernel(static_cast<aclrtStream>(stream), blockDim, body, args, size,
                                             CANNHARNESS_KERNEL_START_IF_IDLE);
    if (err != ACL_SUCCESS)
        std::fprintf(stderr, "[cpu kernel] %s: launch failed with ACL error %d\n", name, static_cast<int>(err));
}

/* The kernels print from the device with AscendC::printf; here the host function prints, flushed
 * at once so that the line is in the output before the process's next step. */
void WriteBody(uint32_t block, void *args)
{
    const IntWrite *a = static_cast<const IntWrite *>(args);
    a->dev[block] = a->value;
    std::printf("Source data: %d\n", a->value);
    std::fflush(stdout);
}

void ReadBody(uint32_t block, void *args)
{
    const IntRead *a = static_cast<const IntRead *>(args);
    std::printf("Destination data: %d\n", a->dev[block]);
    std::fflush(stdout);
}

void EasyBody(uint32_t block, void *args)
{
    static_cast<const U32Vector *>(args)->x[block] += 1;
}

void ShortBody(uint32_t block, void *args)
{
    static_cast<const U32Vector *>(args)->x[block] *= 2;
}

void PrintBody(uint32_t, void *)
{
    std::printf("Hello World\n");
    std::fflush(stdout);
}

} // namespace

void WriteDo(uint32_t blockDim, void *stream, int *devPtr, int value)
{
    IntWrite args{devPtr, value};
    Launch(stream, blockDim, WriteBody, &args, sizeof args, "WriteDo");
}

void ReadDo(uint32_t blockDim, void *stream, int *devPtr)
{
    IntRead args{devPtr};
    Launch(stream, blockDim, ReadBody, &args, sizeof args, "ReadDo");
}

void EasyOP(uint32_t blockDim, void *stream, uint32_t *x)
{
    U32Vector args{x};
    Launch(stream, blockDim, EasyBody, &args, sizeof args, "EasyOP");
}

void ShortOP(uint32_t blockDim, void *stream, uint32_t *x)
{
    U32Vector args{x};
    Launch(stream, blockDim, ShortBody, &args, sizeof args, "ShortOP");
}

void PrintDo(uint32_t blockDim, void *stream)
{
    Launch(stream, blockDim, PrintBody, nullptr, 0, "PrintDo");
}
