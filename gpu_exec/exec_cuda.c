/* gpu_exec/exec_cuda.c: the cuda executor (exec.h), host side; the device code is
 * gpu_exec/workload.cu, built by nvcc into a fatbin that gpu_exec/cuda.cmake embeds
 * as gx_workload_fatbin.
 *
 * No link-time dependency on the driver: libcuda.so.1 (or the library named by
 * $GPUSCHED_LIBCUDA) is dlopen'ed at open and every entry point comes from
 * cuGetProcAddress for the CUDA version of the cuda.h we compile against, so the
 * function types below (taken from cuda.h) match. A build with this file runs
 * anywhere; without a driver gx_open fails with a message.
 *
 * Virtual GPUs. Groups with sms == 0 take one whole physical GPU per virtual GPU
 * (primary context). Groups with sms > 0 are green contexts: each device's SM
 * resource is split ONCE, into units of the device's partition granularity
 * (cuDevSmResourceSplitByCount with minCount = minSmPartitionSize), and a virtual
 * GPU of s SMs gets ceil(s / unit) of those units in one descriptor
 * (cuDevResourceGenerateDesc accepts several results of the same split). Why not
 * split group after group from the remainder: the driver documents that split
 * results "cannot be split again without first creating a descriptor and a green
 * context", and that the remainder has no performance guarantees; one split into
 * equal units has neither problem and gives the same rounding. Virtual GPUs are
 * filled device by device, in group order.
 *
 * Segments. A segment runs one gx_job kernel per virtual GPU (a gang), each on the
 * virtual GPU's stream, followed by a stream callback (cuStreamAddCallback: unlike
 * cuLaunchHostFunc it also runs, with the error, after a device fault, so the done
 * callback fires for failed kernels) and an event recorded after the callback
 * (waiting on that event therefore also waits for the callback). Each kernel has a
 * slot: 64 bytes of mapped host memory (flag, progress, saved, ckpts) from a pool
 * allocated at open (cuMemHostAlloc can be slow; cuMemFreeHost may synchronise).
 * A hang (cuda_hang) raises each kernel's flag to GX_FLAG_HANG: the kernel holds at
 * its next poll, its counters frozen, until the kill (a preempt) raises it to stop.
 *
 * Threads: launch/preempt/reap/close run on the engine's thread; stream callbacks
 * run on a driver thread and must not call CUDA (the driver answers
 * CUDA_ERROR_NOT_PERMITTED, even for cuGetErrorName). `mu` guards the slot and
 * segment fields the callback touches, and is never held across a CUDA call: the
 * driver may hold its own locks while it runs a callback that waits for `mu`.
 */
#include <cuda.h>
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../sim/sim.h"
#include "cuda_api.h"
#include "exec.h"

/* The embedded fatbin (generated from workload.cu by cuda.cmake/embed.cmake). */
extern const unsigned char gx_workload_fatbin[];
extern const size_t gx_workload_fatbin_size;

#define GX_DEFAULT_ITER_NS 200000
/* Calibration (calibrate()): wall ns, and how many passes. */
#define GX_CAL_WARMUP_NS 500000000.0 /* every virtual GPU busy this long before measuring */
#define GX_CAL_PAD_NS 20000000.0     /* the pad kernel ahead of a timed pair */
#define GX_CAL_SHORT_NS 10000000.0   /* N iterations take about this; 5N five times it */
#define GX_CAL_AGREE 0.02            /* two passes agree: within 2% of their mean */
#define GX_CAL_MAX_PASSES 10         /* passes to agree, after that: the open fails */
#define GX_CAL_ROUNDS 6              /* passes to size the work */

_Static_assert(sizeof(void *) == sizeof(void (*)(void)), "function pointers fit in void *");

/* One field per entry point, typed from cuda.h (names expand as cuda.h maps them,
 * e.g. cuMemAlloc -> cuMemAlloc_v2, at the declaration and at every call alike). */
struct cu_api {
#define CU_FIELD(fn) __typeof__(&fn) fn;
	CU_REQUIRED(CU_FIELD)
	CU_GREEN(CU_FIELD)
#undef CU_FIELD
};

struct cu_dev {
	CUdevice h;
	char name[96];
	int sms, cc_major;
	CUcontext primary;        /* retained when used */
	int use;                  /* 0 unused, 1 green partitions, 2 one whole virtual GPU */
	CUdevResource *units;     /* the split (sms > 0 groups); owned */
	unsigned n_units, unit_sms, next_unit;
	CUdeviceptr words_dptr;   /* device address of the slot pool, for this device */
};

struct cu_vgpu {
	uint32_t group, dev, sms; /* sms: actual SMs (= blocks of its kernels) */
	CUgreenCtx green;         /* NULL for a whole GPU */
	CUcontext ctx;            /* green context as a CUcontext, or the primary */
	CUstream stream;
	CUfunction fn;
	CUdeviceptr scratch;      /* struct gx_scratch */
	uint32_t chunk;           /* per-thread 4-FMA steps per iteration */
	uint32_t smem;            /* dynamic shared bytes a block reserves: one block an SM */
	unsigned first_unit;      /* green: its first unit in the device's split */
};

struct cu_seg;
struct cu_exec;

struct cu_slot {
	struct cu_exec *x;
	uint32_t index, vgpu;
	struct cu_seg *seg;       /* NULL when not in a segment */
	CUevent ev;               /* recorded after the kernel's callback */
	int cb_pending;           /* the stream callback has not run yet */
	int orphan;               /* released while cb_pending: the callback frees it */
	int in_use;
	CUresult status;
};

struct cu_seg {
	uint32_t job;
	uint64_t seq;
	uint32_t n;
	uint32_t *slots;          /* n slot indices; owned */
	uint64_t total, from_iter, ckpt_iters;
	double iter_ns;           /* its planned iteration: the calibration of its slowest GPU */
	int64_t start_ns, end_ns;
	uint32_t n_ended;         /* callbacks run */
	int preempting, self_ended, failed;
	CUresult fail_status;     /* the kernel error that failed it (msg gets its name later) */
	char msg[256];
};

struct cu_exec {
	void *lib;                /* dlopen handle of libcuda.so.1 */
	struct cu_api api;
	int have_green;
	struct gx_config cfg;     /* groups pointer borrowed only during open */
	struct cu_dev *devs;
	int n_devs;
	struct cu_vgpu *vgpus;
	uint32_t n_vgpus;
	uint32_t *group_sms;      /* actual SMs per group (for describe) */
	CUlibrary library;
	CUkernel kernel;
	struct gx_words *words;   /* mapped host pool, n_slots entries */
	struct cu_slot *slots;
	uint32_t n_slots;
	struct cu_seg **segs;     /* running segments (small, linear search) */
	size_t n_segs, cap_segs;
	double work;              /* per-iteration work: chunk x SMs, over a virtual GPU */
	struct gx_calibration cal;
	char describe[512];
	pthread_mutex_t mu;
	gx_done_fn done;
	void *done_arg;
};

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * SIM_NS_PER_S + ts.tv_nsec;
}

/* Formats "CALL (where): CUDA_ERROR_X: text" and maps the result to -SIM_E*. */
static int cu_fail(const struct cu_exec *x, char *err, size_t errlen, CUresult rc,
		   const char *call, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static int cu_fail(const struct cu_exec *x, char *err, size_t errlen, CUresult rc,
		   const char *call, const char *fmt, ...)
{
	const char *name = NULL, *text = NULL;
	if (x->api.cuGetErrorName)
		x->api.cuGetErrorName(rc, &name);
	if (x->api.cuGetErrorString)
		x->api.cuGetErrorString(rc, &text);
	char where[160] = "";
	if (fmt) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(where, sizeof where, fmt, ap);
		va_end(ap);
	}
	if (err && errlen)
		snprintf(err, errlen, "%s%s%s%s: %s (%d): %s", call, where[0] ? " (" : "", where,
			 where[0] ? ")" : "", name ? name : "CUDA error", (int)rc,
			 text ? text : "no description");
	if (rc == CUDA_ERROR_OUT_OF_MEMORY)
		return -SIM_ENOMEM;
	if (rc == CUDA_ERROR_NO_DEVICE || rc == CUDA_ERROR_NOT_SUPPORTED)
		return -SIM_EINVAL;
	return -SIM_EEXTERNAL;
}

/* ---- driver loading ---- */

typedef CUresult (*getproc2_fn)(const char *, void **, int, cuuint64_t,
				CUdriverProcAddressQueryResult *);
typedef CUresult (*getproc1_fn)(const char *, void **, int, cuuint64_t);

static int api_load(struct cu_exec *x, char *err, size_t errlen)
{
	int mode = RTLD_NOW | RTLD_LOCAL;
#ifdef RTLD_NODELETE
	/* The driver keeps threads of its own; its code must outlive dlclose. */
	mode |= RTLD_NODELETE;
#endif
	/* GPUSCHED_LIBCUDA names the driver library to load instead of libcuda.so.1:
	 * for tests (tests/mock_cuda/libcuda_mock.c, a fake driver run in CI) and for a
	 * driver installed where the dynamic loader does not look. */
	const char *path = getenv("GPUSCHED_LIBCUDA");
	int overridden = path && path[0];
	if (!overridden)
		path = "libcuda.so.1";
	x->lib = dlopen(path, mode);
	if (!x->lib) {
		const char *why = dlerror();
		snprintf(err, errlen, "no CUDA driver: cannot load %s%s: %s", path,
			 overridden ? " (GPUSCHED_LIBCUDA)" : "", why ? why : "not found");
		return -SIM_EINVAL;
	}
	/* cuGetProcAddress fails (CUDA_ERROR_INVALID_VALUE) for a cudaVersion above the
	 * driver's, and the entry points must be those of the cuda.h we compile against
	 * (their types are): say so plainly rather than "no entry point". The unversioned
	 * cuDriverGetVersion is exported by every libcuda. */
	typedef CUresult (*drvver_fn)(int *);
	drvver_fn drvver = NULL;
	void *sym = dlsym(x->lib, "cuDriverGetVersion");
	int ver = 0;
	if (sym) {
		memcpy(&drvver, &sym, sizeof sym);
		if (drvver(&ver) == CUDA_SUCCESS && ver > 0 && ver < CUDA_VERSION) {
			snprintf(err, errlen, "CUDA driver too old: libcuda.so.1 supports CUDA %d.%d, this build "
				 "needs %d.%d or newer (the cuda.h and nvcc it was built with)", ver / 1000,
				 ver % 1000 / 10, CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10);
			return -SIM_EINVAL;
		}
	}
	getproc2_fn gp2 = NULL;
	getproc1_fn gp1 = NULL;
	sym = dlsym(x->lib, "cuGetProcAddress_v2");
	if (sym) {
		memcpy(&gp2, &sym, sizeof sym);
	} else if ((sym = dlsym(x->lib, "cuGetProcAddress"))) {
		memcpy(&gp1, &sym, sizeof sym);
	} else {
		snprintf(err, errlen, "CUDA driver too old: libcuda.so.1 has no cuGetProcAddress "
			 "(needs a CUDA 12.4 or newer driver)");
		return -SIM_EINVAL;
	}
	void *p;
	CUresult rc;
#define CU_GET(fn)                                                                  \
	p = NULL;                                                                   \
	rc = gp2 ? gp2(#fn, &p, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, NULL)     \
		 : gp1(#fn, &p, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT);          \
	if (rc == CUDA_SUCCESS && p)                                                \
		memcpy(&x->api.fn, &p, sizeof p);
	CU_REQUIRED(CU_GET)
	CU_GREEN(CU_GET)
#undef CU_GET
#define CU_NEED(fn)                                                                 \
	if (!x->api.fn) {                                                           \
		snprintf(err, errlen, "CUDA driver: no entry point %s for CUDA %d.%d "    \
			 "(driver too old?)", #fn, CUDA_VERSION / 1000,              \
			 CUDA_VERSION % 1000 / 10);                                  \
		return -SIM_EINVAL;                                                 \
	}
	CU_REQUIRED(CU_NEED)
#undef CU_NEED
	x->have_green = 1;
#define CU_HAS(fn) if (!x->api.fn) x->have_green = 0;
	CU_GREEN(CU_HAS)
#undef CU_HAS
	return 0;
}

/* ---- devices and virtual GPUs ---- */

static int devs_discover(struct cu_exec *x, char *err, size_t errlen)
{
	const struct cu_api *cu = &x->api;
	/* Streams share the context's hardware work queues (8 by default). Work of two
	 * streams in one queue is serialised in issue order, and a stream callback holds
	 * its queue until its kernel ends: job B launched on another virtual GPU would not
	 * start before job A, sharing B's queue, ended. The driver reads this variable when
	 * it creates a context; 32 is its maximum. A value the user set is kept. */
	(void)setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", 0);
	CUresult rc = cu->cuInit(0);
	if (rc == CUDA_ERROR_NO_DEVICE) {
		cu_fail(x, err, errlen, rc, "cuInit", NULL);
		return -SIM_EINVAL;
	}
	if (rc != CUDA_SUCCESS)
		return cu_fail(x, err, errlen, rc, "cuInit", NULL);
	int n = 0;
	if ((rc = cu->cuDeviceGetCount(&n)) != CUDA_SUCCESS)
		return cu_fail(x, err, errlen, rc, "cuDeviceGetCount", NULL);
	if (n <= 0) {
		snprintf(err, errlen, "no CUDA device (the driver reports 0)");
		return -SIM_EINVAL;
	}
	x->devs = calloc((size_t)n, sizeof *x->devs);
	if (!x->devs) {
		snprintf(err, errlen, "out of memory");
		return -SIM_ENOMEM;
	}
	x->n_devs = n;
	for (int d = 0; d < n; d++) {
		struct cu_dev *dv = &x->devs[d];
		if ((rc = cu->cuDeviceGet(&dv->h, d)) != CUDA_SUCCESS)
			return cu_fail(x, err, errlen, rc, "cuDeviceGet", "device %d", d);
		if ((rc = cu->cuDeviceGetName(dv->name, (int)sizeof dv->name, dv->h)) != CUDA_SUCCESS)
			return cu_fail(x, err, errlen, rc, "cuDeviceGetName", "device %d", d);
		rc = cu->cuDeviceGetAttribute(&dv->sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dv->h);
		if (rc == CUDA_SUCCESS)
			rc = cu->cuDeviceGetAttribute(&dv->cc_major,
						      CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dv->h);
		if (rc != CUDA_SUCCESS)
			return cu_fail(x, err, errlen, rc, "cuDeviceGetAttribute", "device %d (%s)",
				       d, dv->name);
	}
	return 0;
}

/* Splits device d's SMs into equal units of its partition granularity. */
static int dev_split(struct cu_exec *x, int d, char *err, size_t errlen)
{
	const struct cu_api *cu = &x->api;
	struct cu_dev *dv = &x->devs[d];
	CUdevResource full, rest;
	memset(&full, 0, sizeof full);
	memset(&rest, 0, sizeof rest);
	CUresult rc = cu->cuDeviceGetDevResource(dv->h, &full, CU_DEV_RESOURCE_TYPE_SM);
	if (rc != CUDA_SUCCESS)
		return cu_fail(x, err, errlen, rc, "cuDeviceGetDevResource", "device %d (%s)", d, dv->name);
	/* The documented minimums when the driver reports none: 2 (cc < 8), 4 (8.x), 8 (9.0+). */
	unsigned minc = full.sm.minSmPartitionSize;
	if (!minc)
		minc = dv->cc_major >= 9 ? 8u : dv->cc_major == 8 ? 4u : 2u;
	unsigned align = full.sm.smCoscheduledAlignment;
	if (align > 1 && minc % align)
		minc += align - minc % align;
	unsigned nb = full.sm.smCount / minc + 1;
	dv->units = calloc(nb, sizeof *dv->units);
	if (!dv->units) {
		snprintf(err, errlen, "out of memory");
		return -SIM_ENOMEM;
	}
	rc = cu->cuDevSmResourceSplitByCount(dv->units, &nb, &full, &rest, 0, minc);
	if (rc != CUDA_SUCCESS)
		return cu_fail(x, err, errlen, rc, "cuDevSmResourceSplitByCount",
			       "device %d (%s), %u SMs into groups of %u", d, dv->name,
			       full.sm.smCount, minc);
	dv->n_units = nb;
	dv->unit_sms = minc;
	for (unsigned i = 0; i < nb; i++) /* symmetrical by contract; be safe */
		if (dv->units[i].sm.smCount && (i == 0 || dv->units[i].sm.smCount < dv->unit_sms))
			dv->unit_sms = dv->units[i].sm.smCount;
	/* The split may give fewer units than smCount / minc (GPC boundaries): show it. */
	if (x->cfg.verbose)
		fprintf(stderr, "cuda: device %d (%s): %u SMs (min partition %u, alignment %u) split into "
			"%u units of %u SMs, %u SMs left over\n", d, dv->name, full.sm.smCount,
			full.sm.minSmPartitionSize, full.sm.smCoscheduledAlignment, nb, dv->unit_sms,
			rest.sm.smCount);
	return 0;
}

/* "groups need 4 x 48 + 4 x 16 SMs, device 0 (NVIDIA H200) has 132; ..." */
static int groups_nofit(const struct cu_exec *x, const struct gx_config *cfg, char *err,
			size_t errlen)
{
	char need[160] = "";
	size_t len = 0;
	uint32_t whole = 0;
	for (size_t g = 0; g < cfg->n_groups; g++)
		whole += cfg->groups[g].sms ? 0 : cfg->groups[g].count;
	for (size_t g = 0; g < cfg->n_groups && len < sizeof need; g++) {
		const struct gx_group *gr = &cfg->groups[g];
		if (!gr->sms)
			continue;
		int w = snprintf(need + len, sizeof need - len, "%s%u x %u", len ? " + " : "",
				 gr->count, gr->sms);
		if (w < 0)
			break;
		len += (size_t)w;
	}
	if (len && len < sizeof need)
		snprintf(need + len, sizeof need - len, " SMs");
	const struct cu_dev *d0 = &x->devs[0];
	char gran[96] = "";
	if (d0->unit_sms)
		snprintf(gran, sizeof gran, "; SM counts are rounded up to the device's granularity of %u "
			 "(%u units)", d0->unit_sms, d0->n_units);
	if (!whole && x->n_devs == 1)
		snprintf(err, errlen, "groups need %s, device 0 (%s) has %d%s", need, d0->name, d0->sms,
			 gran);
	else
		snprintf(err, errlen, "groups need %u whole GPU%s%s%s, found %d device%s (device 0: %s, "
			 "%d SMs); a whole GPU (sms 0) takes a device of its own%s", whole,
			 whole == 1 ? "" : "s", len ? " + " : "", need, x->n_devs,
			 x->n_devs == 1 ? "" : "s", d0->name, d0->sms, gran);
	return -SIM_EINVAL;
}

/* Assigns every virtual GPU a device (and units), device by device, in group order. */
static int vgpus_plan(struct cu_exec *x, const struct gx_config *cfg, char *err, size_t errlen)
{
	int d = 0;
	uint32_t v = 0;
	for (size_t g = 0; g < cfg->n_groups; g++) {
		const struct gx_group *gr = &cfg->groups[g];
		for (uint32_t i = 0; i < gr->count; i++, v++) {
			struct cu_vgpu *vg = &x->vgpus[v];
			vg->group = (uint32_t)g;
			if (gr->sms == 0) {
				while (d < x->n_devs && x->devs[d].use)
					d++;
				if (d >= x->n_devs)
					return groups_nofit(x, cfg, err, errlen);
				x->devs[d].use = 2;
				vg->dev = (uint32_t)d;
				vg->sms = (uint32_t)x->devs[d].sms;
				continue;
			}
			for (; d < x->n_devs; d++) {
				struct cu_dev *dv = &x->devs[d];
				/* More SMs than the device has never fit (and would wrap below). */
				if (gr->sms > (uint32_t)dv->sms || !dv->unit_sms)
					continue;
				unsigned need = (gr->sms + dv->unit_sms - 1) / dv->unit_sms;
				if (dv->use != 2 && dv->next_unit + need <= dv->n_units)
					break;
			}
			if (d >= x->n_devs)
				return groups_nofit(x, cfg, err, errlen);
			struct cu_dev *dv = &x->devs[d];
			unsigned need = (gr->sms + dv->unit_sms - 1) / dv->unit_sms;
			dv->use = 1;
			vg->dev = (uint32_t)d;
			vg->sms = need * dv->unit_sms;
			vg->first_unit = dv->next_unit;
			dv->next_unit += need;
		}
	}
	return 0;
}

/* One block of gx_job an SM, enforced: each block reserves the most dynamic shared
 * memory a block may have (the device's opt-in maximum, more than half an SM's on
 * every architecture since Volta), so a second block cannot fit beside it, and a
 * doubled-up block, which would halve its virtual GPU's pace (its iteration waits
 * for the slowest block), cannot happen whatever registers the compiler gave it.
 * Checked from the occupancy the driver reports for that launch shape: anything
 * but one block an SM refuses the open. gx_job uses none of that memory. */
static int one_block_per_sm(struct cu_exec *x, uint32_t v, char *err, size_t errlen)
{
	const struct cu_api *cu = &x->api;
	struct cu_vgpu *vg = &x->vgpus[v];
	const struct cu_dev *dv = &x->devs[vg->dev];
	int optin = 0, blocks = 0;
	CUresult rc = cu->cuDeviceGetAttribute(&optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dv->h);
	if (rc != CUDA_SUCCESS)
		return cu_fail(x, err, errlen, rc, "cuDeviceGetAttribute", "shared memory per block, device %u",
			       vg->dev);
	vg->smem = optin > 0 ? (uint32_t)optin : 0;
	rc = cu->cuFuncSetAttribute(vg->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)vg->smem);
	if (rc != CUDA_SUCCESS)
		return cu_fail(x, err, errlen, rc, "cuFuncSetAttribute", "gx_job, %u bytes of shared memory, "
			       "virtual GPU %u", vg->smem, v);
	rc = cu->cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, vg->fn, (int)GX_THREADS, vg->smem);
	if (rc != CUDA_SUCCESS)
		return cu_fail(x, err, errlen, rc, "cuOccupancyMaxActiveBlocksPerMultiprocessor",
			       "gx_job, virtual GPU %u", v);
	if (blocks != 1) {
		snprintf(err, errlen, "gx_job on virtual GPU %u: the driver reports %d blocks of %u threads "
			 "with %u bytes of shared memory each on one SM, expected exactly 1 (a doubled-up block "
			 "halves its virtual GPU's pace)", v, blocks, GX_THREADS, vg->smem);
		return -SIM_EEXTERNAL;
	}
	return 0;
}

static int vgpu_make(struct cu_exec *x, uint32_t v, char *err, size_t errlen)
{
	const struct cu_api *cu = &x->api;
	struct cu_vgpu *vg = &x->vgpus[v];
	struct cu_dev *dv = &x->devs[vg->dev];
	CUresult rc;
	if (!dv->primary) {
		/* Retained for every used device: green contexts retain it too, and an
		 * active primary context avoids re-initialising it per green context. */
		if ((rc = cu->cuDevicePrimaryCtxRetain(&dv->primary, dv->h)) != CUDA_SUCCESS)
			return cu_fail(x, err, errlen, rc, "cuDevicePrimaryCtxRetain", "device %u (%s)",
				       vg->dev, dv->name);
	}
	if (dv->use == 2) {
		vg->ctx = dv->primary;
		if ((rc = cu->cuCtxSetCurrent(vg->ctx)) != CUDA_SUCCESS)
			return cu_fail(x, err, errlen, rc, "cuCtxSetCurrent", "virtual GPU %u", v);
		if ((rc = cu->cuStreamCreate(&vg->stream, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS)
			return cu_fail(x, err, errlen, rc, "cuStreamCreate", "virtual GPU %u", v);
	} else {
		unsigned first = vg->first_unit, need = vg->sms / dv->unit_sms;
		CUdevResourceDesc desc;
		rc = cu->cuDevResourceGenerateDesc(&desc, &dv->units[first], need);
		if (rc != CUDA_SUCCESS)
			return cu_fail(x, err, errlen, rc, "cuDevResourceGenerateDesc",
				       "virtual GPU %u, %u x %u SMs of device %u", v, need, dv->unit_sms,
				       vg->dev);
		rc = cu->cuGreenCtxCreate(&vg->green, desc, dv->h, CU_GREEN_CTX_DEFAULT_STREAM);
		if (rc != CUDA_SUCCESS)
			return cu_fail(x, err, errlen, rc, "cuGreenCtxCreate", "virtual GPU %u, %u SMs of device %u",
				       v, vg->sms, vg->dev);
		if ((rc = cu->cuCtxFromGreenCtx(&vg->ctx, vg->green)) != CUDA_SUCCESS)
			return cu_fail(x, err, errlen, rc, "cuCtxFromGreenCtx", "virtual GPU %u", v);
		rc = cu->cuGreenCtxStreamCreate(&vg->stream, vg->green, CU_STREAM_NON_BLOCKING, 0);
		if (rc != CUDA_SUCCESS)
			return cu_fail(x, err, errlen, rc, "cuGreenCtxStreamCreate", "virtual GPU %u", v);
		CUdevResource got;
		memset(&got, 0, sizeof got);
		if (cu->cuGreenCtxGetDevResource(vg->green, &got, CU_DEV_RESOURCE_TYPE_SM) == CUDA_SUCCESS &&
		    got.sm.smCount)
			vg->sms = got.sm.smCount;
		if ((rc = cu->cuCtxSetCurrent(vg->ctx)) != CUDA_SUCCESS)
			return cu_fail(x, err, errlen, rc, "cuCtxSetCurrent", "virtual GPU %u", v);
	}
	vg->chunk = 1;
	if ((rc = cu->cuKernelGetFunction(&vg->fn, x->kernel)) != CUDA_SUCCESS)
		return cu_fail(x, err, errlen, rc, "cuKernelGetFunction", "gx_job, virtual GPU %u", v);
	int ret = one_block_per_sm(x, v, err, errlen);
	if (ret)
		return ret;
	if ((rc = cu->cuMemAlloc(&vg->scratch, sizeof(struct gx_scratch))) != CUDA_SUCCESS)
		return cu_fail(x, err, errlen, rc, "cuMemAlloc", "scratch of virtual GPU %u", v);
	if (!dv->words_dptr) {
		rc = cu->cuMemHostGetDevicePointer(&dv->words_dptr, x->words, 0);
		if (rc != CUDA_SUCCESS)
			return cu_fail(x, err, errlen, rc, "cuMemHostGetDevicePointer", "device %u", vg->dev);
	}
	return 0;
}

/* ---- slots ---- */

/* Takes n free slots into idx[]; 0 or -SIM_ENOMEM. Call with mu held. */
static int slots_take(struct cu_exec *x, uint32_t n, uint32_t *idx)
{
	uint32_t got = 0;
	for (uint32_t i = 0; i < x->n_slots && got < n; i++)
		if (!x->slots[i].in_use)
			idx[got++] = i;
	if (got < n)
		return -SIM_ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		struct cu_slot *k = &x->slots[idx[i]];
		k->in_use = 1;
		k->orphan = 0;
		k->cb_pending = 0;
		k->seg = NULL;
		k->ev = NULL;
		k->status = CUDA_SUCCESS;
		struct gx_words *w = &x->words[idx[i]];
		w->flag = 0;
		w->ckpts = 0;
		w->progress = 0;
		w->saved = 0;
	}
	return 0;
}

/* Gives a slot back, or leaves it to its pending callback. Call with mu held. */
static void slot_release(struct cu_slot *k)
{
	k->seg = NULL;
	if (k->cb_pending)
		k->orphan = 1;
	else
		k->in_use = 0;
}

static CUdeviceptr slot_dptr(const struct cu_exec *x, uint32_t v, uint32_t slot)
{
	return x->devs[x->vgpus[v].dev].words_dptr + (CUdeviceptr)slot * sizeof(struct gx_words);
}

/* Enqueues the kernel on virtual GPU v's stream (scratch cleared first). */
static CUresult kernel_enqueue(struct cu_exec *x, uint32_t v, uint32_t slot, uint64_t from,
			       uint64_t total, uint64_t ckpt_iters, int64_t ckpt_cost_ns,
			       int64_t restore_ns)
{
	const struct cu_api *cu = &x->api;
	struct cu_vgpu *vg = &x->vgpus[v];
	CUresult rc = cu->cuMemsetD32Async(vg->scratch, 0, sizeof(struct gx_scratch) / 4, vg->stream);
	if (rc != CUDA_SUCCESS)
		return rc;
	CUdeviceptr w = slot_dptr(x, v, slot), sc = vg->scratch;
	unsigned long long a_from = from, a_total = total, a_ckpt = ckpt_iters;
	unsigned int a_chunk = vg->chunk;
	long long a_cost = ckpt_cost_ns, a_restore = restore_ns;
	void *params[] = { &w, &sc, &a_from, &a_total, &a_ckpt, &a_chunk, &a_cost, &a_restore };
	return cu->cuLaunchKernel(vg->fn, vg->sms, 1, 1, GX_THREADS, 1, 1, vg->smem, vg->stream, params, NULL);
}

/* ---- calibration ---- */

static void chunks_set(struct cu_exec *x)
{
	for (uint32_t v = 0; v < x->n_vgpus; v++) {
		double c = x->work / (double)x->vgpus[v].sms + 0.5;
		x->vgpus[v].chunk = c < 1 ? 1 : c > 4e9 ? 4000000000u : (uint32_t)c;
	}
}

/* One timed pass on every virtual GPU at once. On each stream: a pad kernel of
 * pad[v] iterations, then event e0, N iterations, e1, 5N iterations, e2. The pad
 * keeps the device busy while the host queues the rest, so a host that is late
 * queuing (a busy machine) delays nothing inside e0..e2; and the iteration time is
 * the slope, (t(e1..e2) - t(e0..e1)) / 4N, in which a kernel's fixed costs (its
 * launch, the scratch memset, the first and last iteration's ramp) cancel.
 * slope_ns[v] = that slope, or 0 when it is not positive (unmeasurable).
 * pad == NULL: no pad (the probe, before anything is known). */
static int calibrate_pass(struct cu_exec *x, uint32_t iters, const uint32_t *pad, double *slope_ns, char *err,
			  size_t errlen)
{
	const struct cu_api *cu = &x->api;
	uint32_t n = x->n_vgpus;
	CUevent *ev = calloc(3 * (size_t)n, sizeof *ev);
	uint32_t *slot = calloc(3 * (size_t)n, sizeof *slot);
	int ret = 0;
	CUresult rc = CUDA_SUCCESS;
	uint32_t v = 0;
	if (!ev || !slot) {
		snprintf(err, errlen, "out of memory");
		ret = -SIM_ENOMEM;
		goto out_free;
	}
	pthread_mutex_lock(&x->mu);
	ret = slots_take(x, 3 * n, slot);
	pthread_mutex_unlock(&x->mu);
	if (ret) {
		snprintf(err, errlen, "calibration: out of mapped slots");
		goto out_free;
	}
	const char *call = NULL;
	for (v = 0; v < n; v++) {
		struct cu_vgpu *vg = &x->vgpus[v];
		CUevent *e = &ev[3 * v];
		call = "cuCtxSetCurrent";
		if ((rc = cu->cuCtxSetCurrent(vg->ctx)) != CUDA_SUCCESS)
			break;
		call = "cuEventCreate";
		if ((rc = cu->cuEventCreate(&e[0], CU_EVENT_DEFAULT)) != CUDA_SUCCESS ||
		    (rc = cu->cuEventCreate(&e[1], CU_EVENT_DEFAULT)) != CUDA_SUCCESS ||
		    (rc = cu->cuEventCreate(&e[2], CU_EVENT_BLOCKING_SYNC)) != CUDA_SUCCESS)
			break;
		call = "cuMemsetD32Async/cuLaunchKernel (pad)";
		if (pad && pad[v] && (rc = kernel_enqueue(x, v, slot[3 * v], 0, pad[v], 0, 0, 0)) != CUDA_SUCCESS)
			break;
		call = "cuEventRecord";
		if ((rc = cu->cuEventRecord(e[0], vg->stream)) != CUDA_SUCCESS)
			break;
		call = "cuMemsetD32Async/cuLaunchKernel";
		if ((rc = kernel_enqueue(x, v, slot[3 * v + 1], 0, iters, 0, 0, 0)) != CUDA_SUCCESS)
			break;
		call = "cuEventRecord";
		if ((rc = cu->cuEventRecord(e[1], vg->stream)) != CUDA_SUCCESS)
			break;
		call = "cuMemsetD32Async/cuLaunchKernel";
		if ((rc = kernel_enqueue(x, v, slot[3 * v + 2], 0, 5 * (uint64_t)iters, 0, 0, 0)) != CUDA_SUCCESS)
			break;
		call = "cuEventRecord";
		if ((rc = cu->cuEventRecord(e[2], vg->stream)) != CUDA_SUCCESS)
			break;
	}
	if (rc != CUDA_SUCCESS) {
		ret = cu_fail(x, err, errlen, rc, call, "calibration, virtual GPU %u", v);
		/* Stop what runs: nothing is left running after a failed open. */
		for (uint32_t i = 0; i < 3 * n; i++)
			x->words[slot[i]].flag = 1;
	}
	for (uint32_t i = 0; i < n && i <= v; i++) {
		struct cu_vgpu *vg = &x->vgpus[i];
		const CUevent *e = &ev[3 * i];
		cu->cuCtxSetCurrent(vg->ctx);
		if (ret) {
			cu->cuStreamSynchronize(vg->stream);
			continue;
		}
		float short_ms = 0, long_ms = 0;
		if ((rc = cu->cuEventSynchronize(e[2])) != CUDA_SUCCESS ||
		    (rc = cu->cuEventElapsedTime(&short_ms, e[0], e[1])) != CUDA_SUCCESS ||
		    (rc = cu->cuEventElapsedTime(&long_ms, e[1], e[2])) != CUDA_SUCCESS) {
			ret = cu_fail(x, err, errlen, rc, "calibration kernel", "virtual GPU %u", i);
			continue;
		}
		const double slope = ((double)long_ms - (double)short_ms) * 1e6 / (4.0 * iters);
		slope_ns[i] = slope > 0 ? slope : 0;
	}
	for (uint32_t i = 0; i < 3 * n; i++)
		if (ev[i])
			cu->cuEventDestroy(ev[i]);
	pthread_mutex_lock(&x->mu);
	for (uint32_t i = 0; i < 3 * n; i++)
		slot_release(&x->slots[slot[i]]);
	pthread_mutex_unlock(&x->mu);
out_free:
	free(slot);
	free(ev);
	return ret;
}

/* Iterations of `ns` wall time at the pace est_ns (at least 1). */
static uint32_t iters_for(double ns, double est_ns)
{
	double k = est_ns > 0 ? ns / est_ns + 0.5 : 1;
	return k < 1 ? 1 : k > 1e9 ? 1000000000u : (uint32_t)k;
}

/* The pads of the next pass: GX_CAL_PAD_NS at each virtual GPU's estimated pace. */
static void pads_set(const struct cu_exec *x, const double *est_ns, double ns, uint32_t *pad)
{
	for (uint32_t v = 0; v < x->n_vgpus; v++)
		pad[v] = iters_for(ns, est_ns[v]);
}

/* The slowest estimate of each group becomes cal.iter_ns (a segment is planned
 * at its slowest GPU's pace, exec.h). */
static void groups_from_vgpus(struct cu_exec *x, const double *ns)
{
	for (uint32_t g = 0; g < x->cal.n_groups; g++) {
		double slow = 0;
		for (uint32_t v = 0; v < x->n_vgpus; v++)
			if (x->vgpus[v].group == g && ns[v] > slow)
				slow = ns[v];
		x->cal.iter_ns[g] = slow;
	}
}

static double fastest_group(const struct cu_exec *x)
{
	double fast = 0;
	for (size_t g = 0; g < x->cal.n_groups; g++)
		if (x->cal.iter_ns[g] > 0 && (fast == 0 || x->cal.iter_ns[g] < fast))
			fast = x->cal.iter_ns[g];
	return fast;
}

/* Warm-up: every virtual GPU busy for at least GX_CAL_WARMUP_NS of wall time (a GPU
 * idles at a few hundred MHz and reaches its clock under load), in passes that also
 * give a first estimate of each one's pace (est_ns). */
static int calibrate_warmup(struct cu_exec *x, double *est_ns, uint32_t *pad, char *err, size_t errlen)
{
	const int64_t t0 = now_ns();
	uint32_t iters = 10;
	int rc = calibrate_pass(x, iters, NULL, est_ns, err, errlen);
	for (int k = 0; !rc && now_ns() - t0 < GX_CAL_WARMUP_NS && k < 64; k++) {
		double fast = 0;
		for (uint32_t v = 0; v < x->n_vgpus; v++)
			if (est_ns[v] > 0 && (fast == 0 || est_ns[v] < fast))
				fast = est_ns[v];
		for (uint32_t v = 0; v < x->n_vgpus; v++)
			if (!(est_ns[v] > 0))
				est_ns[v] = fast > 0 ? fast : 1e3;
		/* Passes of about a tenth of the warm-up, the pad included. */
		iters = iters_for(GX_CAL_WARMUP_NS / 10 / 6, fast > 0 ? fast : 1e3);
		pads_set(x, est_ns, GX_CAL_WARMUP_NS / 20, pad);
		rc = calibrate_pass(x, iters, pad, est_ns, err, errlen);
	}
	x->cal.warmup_s = (double)(now_ns() - t0) / 1e9;
	return rc;
}

/* Sizes `work` (each SM's share of an iteration) until the fastest group's
 * iteration is within 5% of target_ns, in at most GX_CAL_ROUNDS passes; a new
 * work rescales every estimate in proportion. */
static int calibrate_size(struct cu_exec *x, int64_t target_ns, double *est_ns, uint32_t *pad, char *err,
			  size_t errlen)
{
	for (int round = 0; round < GX_CAL_ROUNDS; round++) {
		groups_from_vgpus(x, est_ns);
		double fast = fastest_group(x);
		if (fast <= 0) {
			snprintf(err, errlen, "calibration: no measurable iteration time");
			return -SIM_EEXTERNAL;
		}
		double ratio = (double)target_ns / fast;
		if (ratio > 0.95 && ratio < 1.05)
			return 0;
		double old = x->work;
		x->work *= ratio;
		chunks_set(x);
		for (uint32_t v = 0; v < x->n_vgpus; v++)
			est_ns[v] *= x->work / old;
		pads_set(x, est_ns, GX_CAL_PAD_NS, pad);
		int rc = calibrate_pass(x, iters_for(GX_CAL_SHORT_NS, (double)target_ns), pad, est_ns, err, errlen);
		if (rc)
			return rc;
	}
	return 0;
}

/* Passes with the final work until each virtual GPU's last two slopes agree
 * within GX_CAL_AGREE; its pace is their mean, its spread their difference over
 * it. A virtual GPU that never settles (a clock that keeps moving, a host too
 * late for the pads) fails the open: a pace not known cannot plan segments. */
static int calibrate_converge(struct cu_exec *x, int64_t target_ns, double *est_ns, uint32_t *pad, char *err,
			      size_t errlen)
{
	uint32_t n = x->n_vgpus;
	/* prev: each virtual GPU's slope in the pass before (0: none) */
	double *prev = calloc(n, sizeof *prev), *cur = calloc(n, sizeof *cur);
	int rc = prev && cur ? 0 : -SIM_ENOMEM;
	if (rc)
		snprintf(err, errlen, "out of memory");
	uint32_t left = n, bad = 0;
	double bad_a = 0, bad_b = 0;
	for (uint32_t v = 0; v < n; v++)
		x->cal.vgpu_iter_ns[v] = 0;
	int pass;
	for (pass = 1; !rc && left && pass <= GX_CAL_MAX_PASSES; pass++) {
		pads_set(x, est_ns, GX_CAL_PAD_NS, pad);
		if ((rc = calibrate_pass(x, iters_for(GX_CAL_SHORT_NS, (double)target_ns), pad, cur, err, errlen)))
			break;
		for (uint32_t v = 0; v < n; v++) {
			if (cur[v] > 0)
				est_ns[v] = cur[v];
			if (x->cal.vgpu_iter_ns[v] > 0)
				continue;
			double mean = (cur[v] + prev[v]) / 2;
			double d = cur[v] > 0 && prev[v] > 0 ? fabs(cur[v] - prev[v]) / mean : INFINITY;
			if (d <= GX_CAL_AGREE) {
				x->cal.vgpu_iter_ns[v] = mean;
				x->cal.vgpu_spread[v] = d;
				left--;
			} else if (pass == GX_CAL_MAX_PASSES && bad_a == 0 && bad_b == 0) {
				bad = v;
				bad_a = prev[v];
				bad_b = cur[v];
			}
		}
		memcpy(prev, cur, n * sizeof *cur);
	}
	x->cal.passes = (uint32_t)(pass - 1);
	if (!rc && left) {
		snprintf(err, errlen, "calibration did not converge: virtual GPU %u (%u SMs): after %d passes, "
			 "its last two measured %.2f us and %.2f us an iteration (needs two within %.0f%% of "
			 "each other); the device's clock or the host is not steady", bad, x->vgpus[bad].sms,
			 GX_CAL_MAX_PASSES, bad_a / 1e3, bad_b / 1e3, 100 * GX_CAL_AGREE);
		rc = -SIM_EEXTERNAL;
	}
	free(prev);
	free(cur);
	if (!rc)
		groups_from_vgpus(x, x->cal.vgpu_iter_ns);
	return rc;
}

/* Warm-up, then `work` chosen so that one iteration takes about target_ns on the
 * fastest group (all virtual GPUs busy, as in a full cluster), then every virtual
 * GPU's pace measured until it is steady (cal.vgpu_iter_ns, cal.vgpu_spread); each
 * group's pace is its slowest virtual GPU's. */
static int calibrate(struct cu_exec *x, int64_t target_ns, int verbose, char *err, size_t errlen)
{
	uint32_t max_sms = 1;
	for (uint32_t v = 0; v < x->n_vgpus; v++)
		if (x->vgpus[v].sms > max_sms)
			max_sms = x->vgpus[v].sms;
	double *est_ns = calloc(x->n_vgpus ? x->n_vgpus : 1, sizeof *est_ns);
	uint32_t *pad = calloc(x->n_vgpus ? x->n_vgpus : 1, sizeof *pad);
	int rc = est_ns && pad ? 0 : -SIM_ENOMEM;
	if (rc)
		snprintf(err, errlen, "out of memory");
	x->work = 512.0 * max_sms; /* a short probe: ~10 us per iteration on a large GPU */
	chunks_set(x);
	if (!rc)
		rc = calibrate_warmup(x, est_ns, pad, err, errlen);
	if (!rc)
		rc = calibrate_size(x, target_ns, est_ns, pad, err, errlen);
	if (!rc)
		rc = calibrate_converge(x, target_ns, est_ns, pad, err, errlen);
	free(est_ns);
	free(pad);
	if (rc)
		return rc;
	if (verbose) {
		for (uint32_t v = 0; v < x->n_vgpus; v++)
			fprintf(stderr, "cuda: virtual GPU %u (%u SMs): %.2f us per iteration, spread %.2f%%\n", v,
				x->vgpus[v].sms, x->cal.vgpu_iter_ns[v] / 1e3, 100 * x->cal.vgpu_spread[v]);
		for (size_t g = 0; g < x->cal.n_groups; g++)
			fprintf(stderr, "cuda: group %zu (%s): %u x %u SMs, %.1f us per iteration (its slowest); "
				"warm-up %.2f s, %u passes\n", g,
				x->cfg.groups[g].name ? x->cfg.groups[g].name : "-", x->cfg.groups[g].count,
				x->group_sms[g], x->cal.iter_ns[g] / 1e3, x->cal.warmup_s, x->cal.passes);
	}
	return 0;
}

static void describe_build(struct cu_exec *x, const struct gx_config *cfg)
{
	int used = 0;
	for (int d = 0; d < x->n_devs; d++)
		used += x->devs[d].use != 0;
	size_t len = 0, cap = sizeof x->describe;
	int w = used > 1 ? snprintf(x->describe, cap, "%d x %s (%d SMs): %u virtual GPUs", used,
				    x->devs[0].name, x->devs[0].sms, x->n_vgpus)
			 : snprintf(x->describe, cap, "%s (%d SMs): %u virtual GPUs", x->devs[0].name,
				    x->devs[0].sms, x->n_vgpus);
	len = w > 0 ? (size_t)w : 0;
	for (size_t g = 0; g < cfg->n_groups && len < cap; g++) {
		w = snprintf(x->describe + len, cap - len, ", %u x %u SMs%s%s%s", cfg->groups[g].count,
			     x->group_sms[g], cfg->groups[g].sms ? "" : " (whole GPU)",
			     cfg->groups[g].name ? " (" : "", cfg->groups[g].name ? cfg->groups[g].name : "");
		if (w < 0)
			break;
		len += (size_t)w;
		if (cfg->groups[g].name && len < cap) {
			w = snprintf(x->describe + len, cap - len, ")");
			len += w > 0 ? (size_t)w : 0;
		}
	}
}

/* ---- backend ops ---- */

static void cuda_close(void *priv);

static int cuda_open(const struct gx_config *cfg, void **priv, char *err, size_t errlen)
{
	*priv = NULL;
	if (!cfg->groups || !cfg->n_groups) {
		snprintf(err, errlen, "cuda: no virtual GPU groups");
		return -SIM_EINVAL;
	}
	uint64_t n_v = 0;
	int any_green = 0;
	for (size_t g = 0; g < cfg->n_groups; g++) {
		n_v += cfg->groups[g].count;
		any_green |= cfg->groups[g].sms > 0;
	}
	if (n_v == 0 || n_v > 4096) {
		snprintf(err, errlen, "cuda: expected 1 to 4096 virtual GPUs, got %llu",
			 (unsigned long long)n_v);
		return -SIM_EINVAL;
	}
	struct cu_exec *x = calloc(1, sizeof *x);
	if (!x) {
		snprintf(err, errlen, "out of memory");
		return -SIM_ENOMEM;
	}
	pthread_mutex_init(&x->mu, NULL);
	x->cfg = *cfg;
	x->done = cfg->done;
	x->done_arg = cfg->done_arg;
	x->n_vgpus = (uint32_t)n_v;
	x->n_slots = 4 * x->n_vgpus + 16;
	x->vgpus = calloc(n_v, sizeof *x->vgpus);
	x->group_sms = calloc(cfg->n_groups, sizeof *x->group_sms);
	x->slots = calloc(x->n_slots, sizeof *x->slots);
	x->cal.iter_ns = calloc(cfg->n_groups, sizeof *x->cal.iter_ns);
	x->cal.n_groups = cfg->n_groups;
	x->cal.vgpu_iter_ns = calloc(n_v, sizeof *x->cal.vgpu_iter_ns);
	x->cal.vgpu_spread = calloc(n_v, sizeof *x->cal.vgpu_spread);
	x->cal.vgpu_sms = calloc(n_v, sizeof *x->cal.vgpu_sms);
	x->cal.vgpu_group = calloc(n_v, sizeof *x->cal.vgpu_group);
	x->cal.n_vgpus = (size_t)n_v;
	int rc;
	CUresult crc;
	if (!x->vgpus || !x->group_sms || !x->slots || !x->cal.iter_ns || !x->cal.vgpu_iter_ns ||
	    !x->cal.vgpu_spread || !x->cal.vgpu_sms || !x->cal.vgpu_group) {
		snprintf(err, errlen, "out of memory");
		rc = -SIM_ENOMEM;
		goto out_close;
	}
	for (uint32_t i = 0; i < x->n_slots; i++) {
		x->slots[i].x = x;
		x->slots[i].index = i;
	}
	if ((rc = api_load(x, err, errlen)))
		goto out_close;
	if ((rc = devs_discover(x, err, errlen)))
		goto out_close;
	if (any_green && !x->have_green) {
		snprintf(err, errlen, "cuda: virtual GPUs of N SMs need green contexts (a CUDA 12.4 or "
			 "newer driver); use sms 0 for whole GPUs");
		rc = -SIM_EINVAL;
		goto out_close;
	}
	if (any_green)
		for (int d = 0; d < x->n_devs; d++)
			if ((rc = dev_split(x, d, err, errlen)))
				goto out_close;
	if ((rc = vgpus_plan(x, cfg, err, errlen)))
		goto out_close;
	/* Mapped host pool, portable to every context. A context must be current. */
	if ((crc = x->api.cuDevicePrimaryCtxRetain(&x->devs[x->vgpus[0].dev].primary,
						   x->devs[x->vgpus[0].dev].h)) != CUDA_SUCCESS ||
	    (crc = x->api.cuCtxSetCurrent(x->devs[x->vgpus[0].dev].primary)) != CUDA_SUCCESS) {
		rc = cu_fail(x, err, errlen, crc, "cuDevicePrimaryCtxRetain", "device %u",
			     x->vgpus[0].dev);
		goto out_close;
	}
	void *host = NULL;
	crc = x->api.cuMemHostAlloc(&host, (size_t)x->n_slots * sizeof(struct gx_words),
				    CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
	if (crc != CUDA_SUCCESS) {
		rc = cu_fail(x, err, errlen, crc, "cuMemHostAlloc", "%u mapped slots", x->n_slots);
		goto out_close;
	}
	x->words = host;
	memset(host, 0, (size_t)x->n_slots * sizeof(struct gx_words));
	crc = x->api.cuLibraryLoadData(&x->library, gx_workload_fatbin, NULL, NULL, 0, NULL, NULL, 0);
	if (crc != CUDA_SUCCESS) {
		rc = cu_fail(x, err, errlen, crc, "cuLibraryLoadData", "embedded workload fatbin, %zu bytes",
			     gx_workload_fatbin_size);
		goto out_close;
	}
	if ((crc = x->api.cuLibraryGetKernel(&x->kernel, x->library, "gx_job")) != CUDA_SUCCESS) {
		rc = cu_fail(x, err, errlen, crc, "cuLibraryGetKernel", "gx_job");
		goto out_close;
	}
	for (uint32_t v = 0; v < x->n_vgpus; v++)
		if ((rc = vgpu_make(x, v, err, errlen)))
			goto out_close;
	for (uint32_t v = 0; v < x->n_vgpus; v++)
		if (x->vgpus[v].sms > x->group_sms[x->vgpus[v].group])
			x->group_sms[x->vgpus[v].group] = x->vgpus[v].sms;
	describe_build(x, cfg);
	for (uint32_t v = 0; v < x->n_vgpus; v++) {
		x->cal.vgpu_sms[v] = x->vgpus[v].sms;
		x->cal.vgpu_group[v] = x->vgpus[v].group;
	}
	if ((rc = calibrate(x, cfg->iter_ns > 0 ? cfg->iter_ns : GX_DEFAULT_ITER_NS, cfg->verbose, err,
			    errlen)))
		goto out_close;
	x->cfg.groups = NULL; /* borrowed for open only */
	*priv = x;
	return 0;
out_close:
	x->cfg.groups = NULL;
	cuda_close(x);
	return rc;
}

static struct cu_seg *seg_find(struct cu_exec *x, uint32_t job, size_t *pos)
{
	for (size_t i = 0; i < x->n_segs; i++)
		if (x->segs[i]->job == job) {
			if (pos)
				*pos = i;
			return x->segs[i];
		}
	return NULL;
}

/* Stream callback: runs on a driver thread after one kernel of a segment (also after
 * a device fault, with the error). No CUDA calls here. */
static void CUDA_CB on_kernel_end(CUstream stream, CUresult status, void *arg)
{
	(void)stream;
	struct cu_slot *k = arg;
	struct cu_exec *x = k->x;
	int fire = 0;
	uint32_t job = 0;
	uint64_t seq = 0;
	int64_t end = 0;
	pthread_mutex_lock(&x->mu);
	k->cb_pending = 0;
	struct cu_seg *s = k->seg;
	if (k->orphan) {
		k->orphan = 0;
		k->in_use = 0;
	} else if (s) {
		k->status = status;
		const struct gx_words *w = &x->words[k->index];
		/* Stopped early without a stop asked (preempt, or a failed gang member) means
		 * the kernel misbehaved. */
		if (!s->failed && (status != CUDA_SUCCESS ||
				   (w->progress < s->total && !w->flag && !s->preempting))) {
			s->failed = 1;
			/* No cuGetErrorName here (no CUDA calls in a callback): seg_finish
			 * appends the error's name on the engine thread. */
			s->fail_status = status;
			if (status != CUDA_SUCCESS)
				snprintf(s->msg, sizeof s->msg, "job %u: kernel on virtual GPU %u failed (%d)",
					 s->job, k->vgpu, (int)status);
			else
				snprintf(s->msg, sizeof s->msg, "job %u: kernel on virtual GPU %u ended at "
					 "iteration %llu of %llu without being stopped", s->job, k->vgpu,
					 (unsigned long long)w->progress, (unsigned long long)s->total);
			/* The rest of the gang stops at its next iteration. */
			for (uint32_t i = 0; i < s->n; i++)
				x->words[s->slots[i]].flag = 1;
		}
		if (++s->n_ended == s->n && !s->preempting) {
			s->self_ended = 1;
			s->end_ns = now_ns();
			fire = 1;
			job = s->job;
			seq = s->seq;
			end = s->end_ns;
		}
	}
	pthread_mutex_unlock(&x->mu);
	if (fire && x->done)
		x->done(x->done_arg, job, seq, end);
}

/* Stops (stop = 1) or waits for the segment of `job`, reports, forgets it. */
static int seg_finish(struct cu_exec *x, uint32_t job, struct gx_report *r, int stop)
{
	const struct cu_api *cu = &x->api;
	size_t pos = 0;
	struct cu_seg *s = seg_find(x, job, &pos);
	if (!s)
		return -SIM_ESTATE;
	if (stop) {
		/* Flags raised under mu, as the callback reads (and raises) them under mu. */
		pthread_mutex_lock(&x->mu);
		if (!s->self_ended)
			s->preempting = 1;
		for (uint32_t i = 0; i < s->n; i++)
			x->words[s->slots[i]].flag = 1;
		pthread_mutex_unlock(&x->mu);
	}
	char msg[256] = "";
	for (uint32_t i = 0; i < s->n; i++) {
		struct cu_slot *k = &x->slots[s->slots[i]];
		cu->cuCtxSetCurrent(x->vgpus[k->vgpu].ctx);
		CUresult rc = cu->cuEventSynchronize(k->ev);
		if (rc != CUDA_SUCCESS && !msg[0])
			cu_fail(x, msg, sizeof msg, rc, "cuEventSynchronize", "job %u, virtual GPU %u", job,
				k->vgpu);
	}
	int64_t end = now_ns();
	uint64_t prog = UINT64_MAX, saved = UINT64_MAX;
	uint32_t ckpts = UINT32_MAX;
	for (uint32_t i = 0; i < s->n; i++) {
		const struct gx_words *w = &x->words[s->slots[i]];
		prog = w->progress < prog ? w->progress : prog;
		saved = w->saved < saved ? w->saved : saved;
		ckpts = w->ckpts < ckpts ? w->ckpts : ckpts;
	}
	memset(r, 0, sizeof *r);
	/* Events are the engine thread's alone: destroyed before taking mu (no CUDA call
	 * under mu). Destroying one not yet reached (after a failed synchronize) is
	 * allowed: the driver frees it once it completes. */
	for (uint32_t i = 0; i < s->n; i++) {
		struct cu_slot *k = &x->slots[s->slots[i]];
		if (k->ev)
			cu->cuEventDestroy(k->ev);
		k->ev = NULL;
	}
	pthread_mutex_lock(&x->mu);
	if (msg[0] && !s->failed) {
		s->failed = 1;
		snprintf(s->msg, sizeof s->msg, "%s", msg);
	}
	r->failed = s->failed;
	CUresult fail_status = s->fail_status;
	snprintf(r->msg, sizeof r->msg, "%s", s->msg);
	r->end_ns = s->self_ended ? s->end_ns : end;
	for (uint32_t i = 0; i < s->n; i++)
		slot_release(&x->slots[s->slots[i]]);
	pthread_mutex_unlock(&x->mu);
	if (fail_status != CUDA_SUCCESS) {
		const char *name = NULL, *text = NULL;
		cu->cuGetErrorName(fail_status, &name);
		cu->cuGetErrorString(fail_status, &text);
		size_t len = strlen(r->msg);
		snprintf(r->msg + len, sizeof r->msg - len, ": %s: %s", name ? name : "CUDA error",
			 text ? text : "no description");
	}
	r->progress = prog >= s->total && !r->failed ? 1.0 : (double)prog / (double)s->total;
	r->saved = (double)saved / (double)s->total;
	r->ckpts = ckpts;
	r->start_ns = s->start_ns;
	x->segs[pos] = x->segs[--x->n_segs];
	free(s->slots);
	free(s);
	return 0;
}

static int cuda_launch(void *priv, const struct gx_segment *sg, char *err, size_t errlen)
{
	struct cu_exec *x = priv;
	const struct cu_api *cu = &x->api;
	if (!sg->n_gpus || !sg->gpus) {
		snprintf(err, errlen, "job %u: segment on no GPU", sg->job);
		return -SIM_EINVAL;
	}
	double slow = 0;
	for (uint32_t i = 0; i < sg->n_gpus; i++) {
		if (sg->gpus[i] >= x->n_vgpus) {
			snprintf(err, errlen, "job %u: virtual GPU %u does not exist (0..%u)", sg->job,
				 sg->gpus[i], x->n_vgpus - 1);
			return -SIM_EINVAL;
		}
		double t = x->cal.iter_ns[x->vgpus[sg->gpus[i]].group];
		slow = t > slow ? t : slow;
	}
	if (seg_find(x, sg->job, NULL)) {
		snprintf(err, errlen, "job %u: launched while its previous segment runs", sg->job);
		return -SIM_ESTATE;
	}
	if (x->n_segs == x->cap_segs) {
		size_t cap = x->cap_segs ? 2 * x->cap_segs : 16;
		struct cu_seg **p = realloc(x->segs, cap * sizeof *p);
		if (!p) {
			snprintf(err, errlen, "out of memory");
			return -SIM_ENOMEM;
		}
		x->segs = p;
		x->cap_segs = cap;
	}
	struct cu_seg *s = calloc(1, sizeof *s);
	uint32_t *idx = calloc(sg->n_gpus, sizeof *idx);
	if (!s || !idx) {
		free(s);
		free(idx);
		snprintf(err, errlen, "out of memory");
		return -SIM_ENOMEM;
	}
	s->job = sg->job;
	s->seq = sg->seq;
	s->n = sg->n_gpus;
	s->slots = idx;
	struct gx_plan plan;
	gx_plan_segment(sg, slow, &plan);
	s->iter_ns = slow;
	s->total = plan.total;
	s->from_iter = plan.from_iter;
	s->ckpt_iters = plan.ckpt_iters;
	pthread_mutex_lock(&x->mu);
	int rc = slots_take(x, s->n, idx);
	for (uint32_t i = 0; !rc && i < s->n; i++) {
		struct cu_slot *k = &x->slots[idx[i]];
		k->seg = s;
		k->vgpu = sg->gpus[i];
		x->words[idx[i]].progress = s->from_iter;
		x->words[idx[i]].saved = s->from_iter;
		x->words[idx[i]].slow_ns = 0; /* full speed */
	}
	pthread_mutex_unlock(&x->mu);
	if (rc) {
		snprintf(err, errlen, "job %u: out of mapped slots (%u in use)", sg->job, x->n_slots);
		free(idx);
		free(s);
		return -SIM_ENOMEM;
	}
	uint32_t i;
	CUresult crc = CUDA_SUCCESS;
	const char *call = NULL;
	int queued = 0; /* kernel i is on its stream (a failure after it must stop it) */
	for (i = 0; i < s->n; i++) {
		struct cu_slot *k = &x->slots[idx[i]];
		struct cu_vgpu *vg = &x->vgpus[k->vgpu];
		queued = 0;
		call = "cuCtxSetCurrent";
		if ((crc = cu->cuCtxSetCurrent(vg->ctx)) != CUDA_SUCCESS)
			break;
		call = "cuEventCreate";
		crc = cu->cuEventCreate(&k->ev, CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING);
		if (crc != CUDA_SUCCESS) {
			k->ev = NULL;
			break;
		}
		call = "cuLaunchKernel";
		crc = kernel_enqueue(x, k->vgpu, idx[i], s->from_iter, s->total, s->ckpt_iters,
				     sg->ckpt_cost_ns, sg->restore_ns);
		if (crc != CUDA_SUCCESS)
			break;
		queued = 1;
		call = "cuStreamAddCallback";
		pthread_mutex_lock(&x->mu);
		k->cb_pending = 1;
		pthread_mutex_unlock(&x->mu);
		if ((crc = cu->cuStreamAddCallback(vg->stream, on_kernel_end, k, 0)) != CUDA_SUCCESS) {
			pthread_mutex_lock(&x->mu);
			k->cb_pending = 0;
			pthread_mutex_unlock(&x->mu);
			break;
		}
		call = "cuEventRecord";
		if ((crc = cu->cuEventRecord(k->ev, vg->stream)) != CUDA_SUCCESS)
			break;
	}
	s->start_ns = now_ns();
	if (crc == CUDA_SUCCESS) {
		x->segs[x->n_segs++] = s;
		return 0;
	}
	rc = cu_fail(x, err, errlen, crc, call, "job %u, virtual GPU %u", sg->job, sg->gpus[i]);
	/* Leave nothing running: stop the kernels queued so far and wait for them. */
	pthread_mutex_lock(&x->mu);
	s->preempting = 1;
	for (uint32_t j = 0; j < s->n; j++)
		x->words[idx[j]].flag = 1;
	pthread_mutex_unlock(&x->mu);
	for (uint32_t j = 0; j < i || (j == i && queued); j++) {
		struct cu_slot *k = &x->slots[idx[j]];
		struct cu_vgpu *vg = &x->vgpus[k->vgpu];
		cu->cuCtxSetCurrent(vg->ctx);
		if (j < i)
			cu->cuEventSynchronize(k->ev);
		else
			cu->cuStreamSynchronize(vg->stream);
	}
	for (uint32_t j = 0; j < s->n; j++) { /* not under mu: no CUDA call under mu */
		struct cu_slot *k = &x->slots[idx[j]];
		if (k->ev)
			cu->cuEventDestroy(k->ev);
		k->ev = NULL;
	}
	pthread_mutex_lock(&x->mu);
	for (uint32_t j = 0; j < s->n; j++)
		slot_release(&x->slots[idx[j]]);
	pthread_mutex_unlock(&x->mu);
	free(idx);
	free(s);
	return rc;
}

static int cuda_preempt(void *priv, uint32_t job, struct gx_report *r)
{
	return seg_finish(priv, job, r, 1);
}

/* A hung job (exec.h, gx_hang): every kernel of the gang holds at its next poll of
 * the flag, so progress and saved stay where the hang found them; at_ns is not
 * used (the kernel, not the host, decides which iteration was its last). A flag
 * already raised to stop (a failed gang member) stays so. */
static int cuda_hang(void *priv, uint32_t job, int64_t at_ns)
{
	(void)at_ns;
	struct cu_exec *x = priv;
	pthread_mutex_lock(&x->mu);
	struct cu_seg *s = seg_find(x, job, NULL);
	for (uint32_t i = 0; s && i < s->n; i++)
		if (x->words[s->slots[i]].flag == 0)
			x->words[s->slots[i]].flag = GX_FLAG_HANG;
	pthread_mutex_unlock(&x->mu);
	return s ? 0 : -SIM_ESTATE;
}

/* A slowed-down job (exec.h, gx_slow): every kernel of the gang waits iter x (1 /
 * rate - 1) more per iteration from its next one, so its counter advances at rate;
 * at_ns is not used (the kernel applies it at its next iteration). */
static int cuda_slow(void *priv, uint32_t job, int64_t at_ns, double rate)
{
	(void)at_ns;
	struct cu_exec *x = priv;
	pthread_mutex_lock(&x->mu);
	struct cu_seg *s = seg_find(x, job, NULL);
	int64_t extra = s && rate < 1.0 ? (int64_t)llround(s->iter_ns * (1.0 / rate - 1.0)) : 0;
	for (uint32_t i = 0; s && i < s->n; i++)
		x->words[s->slots[i]].slow_ns = extra;
	pthread_mutex_unlock(&x->mu);
	return s ? 0 : -SIM_ESTATE;
}

static int cuda_reap(void *priv, uint32_t job, struct gx_report *r)
{
	return seg_finish(priv, job, r, 0);
}

static const struct gx_calibration *cuda_calibration(void *priv)
{
	struct cu_exec *x = priv;
	return &x->cal;
}

static const char *cuda_describe(void *priv)
{
	struct cu_exec *x = priv;
	return x->describe;
}

/* Also the cleanup of a failed open: every field may be partly set. */
static void cuda_close(void *priv)
{
	struct cu_exec *x = priv;
	if (!x)
		return;
	const struct cu_api *cu = &x->api;
	while (x->n_segs) {
		struct gx_report r;
		seg_finish(x, x->segs[x->n_segs - 1]->job, &r, 1);
	}
	free(x->segs);
	for (uint32_t v = 0; x->vgpus && v < x->n_vgpus; v++) {
		struct cu_vgpu *vg = &x->vgpus[v];
		if (!vg->ctx)
			continue;
		cu->cuCtxSetCurrent(vg->ctx);
		if (vg->stream)
			cu->cuStreamSynchronize(vg->stream);
		if (vg->scratch)
			cu->cuMemFree(vg->scratch);
		if (vg->stream)
			cu->cuStreamDestroy(vg->stream);
	}
	if (cu->cuCtxSetCurrent)
		cu->cuCtxSetCurrent(NULL);
	for (uint32_t v = 0; x->vgpus && v < x->n_vgpus; v++)
		if (x->vgpus[v].green)
			cu->cuGreenCtxDestroy(x->vgpus[v].green);
	if (x->library)
		cu->cuLibraryUnload(x->library);
	if (x->words) {
		for (int d = 0; d < x->n_devs; d++)
			if (x->devs[d].primary) {
				cu->cuCtxSetCurrent(x->devs[d].primary);
				break;
			}
		cu->cuMemFreeHost(x->words);
		cu->cuCtxSetCurrent(NULL);
	}
	for (int d = 0; x->devs && d < x->n_devs; d++) {
		if (x->devs[d].primary)
			cu->cuDevicePrimaryCtxRelease(x->devs[d].h);
		free(x->devs[d].units);
	}
	if (x->lib)
		dlclose(x->lib);
	free(x->devs);
	free(x->vgpus);
	free(x->group_sms);
	free(x->slots);
	free(x->cal.iter_ns);
	free(x->cal.vgpu_iter_ns);
	free(x->cal.vgpu_spread);
	free(x->cal.vgpu_sms);
	free(x->cal.vgpu_group);
	pthread_mutex_destroy(&x->mu);
	free(x);
}

static const struct gx_backend_ops cuda_ops = {
	.name = "cuda",
	.open = cuda_open,
	.launch = cuda_launch,
	.preempt = cuda_preempt,
	.hang = cuda_hang,
	.slow = cuda_slow,
	.reap = cuda_reap,
	.calibration = cuda_calibration,
	.describe = cuda_describe,
	.close = cuda_close,
};

const struct gx_backend_ops *const gx_cuda_backend = &cuda_ops;
