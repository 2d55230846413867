/* gpu_exec/cuda_api.h: what the cuda backend's host side (exec_cuda.c) and the
 * fake driver of the tests (tests/mock_cuda/libcuda_mock.c) must agree on: the
 * driver entry points, and the job kernel's launch shape and memory layouts.
 *
 * The entry points are X-macro lists: the required ones, then the green-context
 * ones (CUDA 12.4+), needed only when a group has sms > 0. exec_cuda.c fetches each
 * through cuGetProcAddress; the fake defines each, so an entry point added here
 * without a fake fails to build the tests. */
#ifndef GPU_EXEC_CUDA_API_H
#define GPU_EXEC_CUDA_API_H

#include <stdint.h>

#define CU_REQUIRED(X)                                                              \
	X(cuGetErrorName) X(cuGetErrorString) X(cuInit) X(cuDriverGetVersion)       \
	X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetName) X(cuDeviceGetAttribute) \
	X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease) X(cuCtxSetCurrent) \
	X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamSynchronize)                 \
	X(cuStreamAddCallback) X(cuLibraryLoadData) X(cuLibraryUnload)              \
	X(cuLibraryGetKernel) X(cuKernelGetFunction) X(cuLaunchKernel)              \
	X(cuMemHostAlloc) X(cuMemFreeHost) X(cuMemHostGetDevicePointer)             \
	X(cuMemAlloc) X(cuMemFree) X(cuMemsetD32Async) X(cuEventCreate)             \
	X(cuEventRecord) X(cuEventSynchronize) X(cuEventElapsedTime) X(cuEventDestroy) \
	X(cuFuncSetAttribute) X(cuOccupancyMaxActiveBlocksPerMultiprocessor)
#define CU_GREEN(X)                                                                 \
	X(cuDeviceGetDevResource) X(cuDevSmResourceSplitByCount)                    \
	X(cuDevResourceGenerateDesc) X(cuGreenCtxCreate) X(cuGreenCtxDestroy)       \
	X(cuCtxFromGreenCtx) X(cuGreenCtxStreamCreate) X(cuGreenCtxGetDevResource)


/* The job kernel's side (gpu_exec/workload.cu, C++ for nvcc, declares the same
 * layouts with its own types: keep them in sync). */
#define GX_RING 32u          /* arrival ring slots */
#define GX_THREADS 256u      /* threads a block, gx_job's __launch_bounds__ */

/* Mapped host memory, one per kernel: the flag (host writes, kernel polls once per
 * iteration and while it waits), checkpoints, progress and saved (iterations of the
 * whole job; kernel writes, host reads at any time). The flag is 0 (run),
 * GX_FLAG_STOP (stop at the next iteration) or GX_FLAG_HANG (a hung job: make no
 * more progress and hold the GPU, polling, until the flag turns GX_FLAG_STOP). The
 * host only ever raises it: 0 to HANG or STOP, HANG to STOP. slow_ns (host writes,
 * the kernel reads once per iteration): extra wall time each iteration waits, so a
 * slowed-down job (a fail-slow node, gx_slow) advances at iter / (iter + slow_ns)
 * of full speed; 0 = full speed, set at every launch. */
#define GX_FLAG_STOP 1u
#define GX_FLAG_HANG 2u
struct gx_words {
	volatile uint32_t flag;
	volatile uint32_t ckpts;
	volatile uint64_t progress;
	volatile uint64_t saved;
	volatile int64_t slow_ns;
	uint64_t pad[4];
};
/* Device memory of a virtual GPU, zeroed before each launch: the arrival rings. */
struct gx_scratch {
	uint32_t ring_it[GX_RING];
	uint32_t ring_ck[GX_RING];
	uint64_t pub_it, pub_ck;
	float sink;
	uint32_t pad[3];
};
_Static_assert(sizeof(struct gx_words) == 64, "gx_words is one 64-byte line (workload.cu)");
_Static_assert(sizeof(struct gx_scratch) % 4 == 0, "gx_scratch is cleared in 32-bit words");

#endif
