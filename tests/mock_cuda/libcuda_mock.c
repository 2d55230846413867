/* tests/mock_cuda/libcuda_mock.c: a fake CUDA driver (libcuda.so.1) for CI, where no
 * GPU exists. gpu_exec/cuda.cmake builds it as mock_cuda/libcuda.so.1 in the build
 * folder; tests/test_exec_cuda.c points GPUSCHED_LIBCUDA at it, so the cuda backend's
 * host code (gpu_exec/exec_cuda.c) runs for real: open, SM split, calibration,
 * launch, preempt, resume, reap, failure, close.
 *
 * What it emulates, and how:
 *   - every entry point exec_cuda.c fetches through cuGetProcAddress (its CU_REQUIRED
 *     and CU_GREEN lists). Each one is defined under its cuda.h name, so the compiler
 *     checks its type against the cuda.h prototype exec_cuda.c is typed from;
 *   - devices: MOCK_NDEV of them (default 1), "NVIDIA H200", 132 SMs, compute 9.0,
 *     SM partitions in units of 8 (the documented minimum for 9.0);
 *   - a stream is a thread running its queue in order: memsets, kernels, callbacks
 *     and event records. A callback runs on that thread, as the driver's do, and any
 *     CUDA call it makes is refused with CUDA_ERROR_NOT_PERMITTED and counted
 *     (mock_cuda_violations);
 *   - the gx_job kernel (gpu_exec/workload.cu) is emulated on the mapped words it is
 *     given: progress, checkpoints, restore, the flag polled once per iteration
 *     (GX_FLAG_HANG: it stops as for a stop, then holds its stream, polling, until
 *     the flag turns GX_FLAG_STOP, as workload.cu's kernel holds its SMs), and the
 *     slow_ns word read every iteration (a slowed-down job: each iteration lasts
 *     that much longer, as workload.cu's blocks wait it out). An
 *     iteration lasts chunk x MOCK_STEP_NS of wall time, so the backend's
 *     calibration, which sizes `chunk`, converges as on a GPU; a partition
 *     of half the SMs gets twice the chunk and is twice as slow;
 *   - a kernel error is sticky on its stream: the callback gets it, the events after
 *     it and cuStreamSynchronize return it, and later work on that stream is refused.
 *     (A real device fault poisons the whole context; a stream is enough here.)
 *
 * Knobs (environment, read on the calling thread when the call is made):
 *   MOCK_NDEV=N         devices cuDeviceGetCount reports, read at every cuInit
 *                       (default 1; 0: cuInit fails with CUDA_ERROR_NO_DEVICE)
 *   MOCK_FAIL_TOTAL=N   a kernel of exactly N iterations (a segment's `total`) fails
 *                       with CUDA_ERROR_ILLEGAL_ADDRESS half-way through its work
 *   MOCK_FAIL_EVENT_RECORD=N  the N-th cuEventRecord since the variable was set
 *                       fails with CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES (a launch
 *                       that cannot be completed)
 *   MOCK_DRV_VER=V      the version cuDriverGetVersion reports (default CUDA_VERSION)
 *   MOCK_NO_GREEN=1     the green-context entry points are missing (an old driver)
 *   MOCK_TRACE=1        every launch is printed on stderr
 *
 * Contract checks: a launch whose shape or parameters exec_cuda.c could not mean
 * (grid larger than the stream's partition, block not 256 x 1 x 1, a words pointer
 * outside mapped host memory, ...) is refused with CUDA_ERROR_INVALID_VALUE and
 * counted (mock_cuda_misuse), with a line on stderr saying what was wrong.
 *
 * The driver is a process-wide singleton, so its state is file-scope here; it is
 * loaded RTLD_NODELETE by exec_cuda.c and stays until the process exits.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <cuda.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../gpu_exec/cuda_api.h"

#define MOCK_MAX_DEV 16
#define MOCK_SMS 132u              /* H200 */
#define MOCK_SM_UNIT 8u            /* minimum partition and co-scheduling alignment, cc 9.0 */
#define MOCK_CC_MAJOR 9
#define MOCK_STEP_NS 50            /* wall ns of one per-thread 4-FMA step of an iteration */
#define MOCK_POLL_NS 20000         /* how often a waiting kernel looks at its flag */
#define MOCK_FATBIN_MAGIC 0xBA55ED50u
#define MOCK_PAGE 4096u
/* Shared memory of an H200's SM (228 KiB), the most one block may opt in to (227 KiB),
 * and what the system reserves per block (1 KiB). MOCK_SMEM_PER_SM=B overrides the
 * first, read when a launch or an occupancy query is made (a larger one lets two of
 * gx_job's blocks share an SM). */
#define MOCK_SMEM_PER_SM 233472
#define MOCK_SMEM_OPTIN 232448
#define MOCK_SMEM_RESERVED 1024
#define MOCK_THREADS_PER_SM 2048

/* The test's view of the fake (exported; read with dlsym). */
int mock_cuda_violations(void);  /* CUDA calls refused inside a stream callback */
int mock_cuda_misuse(void);      /* calls refused for breaking the API's contract */
unsigned mock_cuda_chunk_of(unsigned sms); /* chunk of the last kernel launched on a partition of sms SMs */

_Static_assert(sizeof(void *) == sizeof(void (*)(void)), "function pointers fit in void *");

/* ---- driver state ---- */

/* A context: the SMs its kernels may use (a whole device, or a green partition). */
struct mock_ctx {
	int dev;
	unsigned sms;
};

struct mock_green {
	struct mock_ctx ctx;
};

/* Memory the fake handed out, so launches and frees can be checked against it. */
enum mock_mem_kind { MEM_HOST_MAPPED, MEM_HOST, MEM_DEVICE };
struct mock_mem {
	struct mock_mem *next;
	unsigned char *p;
	size_t bytes;
	enum mock_mem_kind kind;
};

static struct {
	pthread_mutex_t mu;        /* guards every field below */
	int initialized;
	int n_devs;
	struct mock_ctx primary[MOCK_MAX_DEV];
	int primary_refs[MOCK_MAX_DEV];
	struct mock_mem *mem;
} drv = { .mu = PTHREAD_MUTEX_INITIALIZER };

static atomic_int violations;
static atomic_int misuse;
static _Thread_local int in_callback;             /* this thread runs a stream callback */
static _Thread_local const struct mock_ctx *current;

/* Handles that are not objects: only their identity matters. */
static char library_token, kernel_token, function_token;

int mock_cuda_violations(void)
{
	return atomic_load(&violations);
}

int mock_cuda_misuse(void)
{
	return atomic_load(&misuse);
}

static CUresult refuse(const char *call, const char *why)
{
	atomic_fetch_add(&misuse, 1);
	fprintf(stderr, "mock libcuda: %s: %s\n", call, why);
	return CUDA_ERROR_INVALID_VALUE;
}

/* Every entry point starts here: no CUDA call from a stream callback (the driver
 * refuses them, and exec_cuda.c promises not to make any). */
static CUresult enter(const char *call)
{
	if (!in_callback)
		return CUDA_SUCCESS;
	atomic_fetch_add(&violations, 1);
	fprintf(stderr, "mock libcuda: %s called from a stream callback\n", call);
	return CUDA_ERROR_NOT_PERMITTED;
}

/* Entry points that need cuInit first. */
static CUresult enter_init(const char *call)
{
	CUresult rc = enter(call);
	if (rc != CUDA_SUCCESS)
		return rc;
	pthread_mutex_lock(&drv.mu);
	int ok = drv.initialized;
	pthread_mutex_unlock(&drv.mu);
	return ok ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}

/* Entry points that also need a current context (allocations, streams, events). */
static CUresult enter_ctx(const char *call)
{
	CUresult rc = enter_init(call);
	if (rc == CUDA_SUCCESS && !current)
		rc = CUDA_ERROR_INVALID_CONTEXT;
	return rc;
}

#define ENTER(check)                                   \
	do {                                           \
		CUresult enter_rc_ = check(__func__);  \
		if (enter_rc_ != CUDA_SUCCESS)         \
			return enter_rc_;              \
	} while (0)

static int env_int(const char *name, int dflt)
{
	const char *v = getenv(name);
	return v && v[0] ? atoi(v) : dflt;
}

static int dev_valid(CUdevice d)
{
	pthread_mutex_lock(&drv.mu);
	int ok = d >= 0 && d < drv.n_devs;
	pthread_mutex_unlock(&drv.mu);
	return ok;
}

/* ---- time ---- */

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Sleeps to an absolute CLOCK_MONOTONIC time: a late wake-up does not delay the
 * next iteration, so a kernel's length stays chunk x steps even on a loaded CI. */
static void sleep_until(int64_t t_ns)
{
	struct timespec ts = { .tv_sec = (time_t)(t_ns / 1000000000), .tv_nsec = (long)(t_ns % 1000000000) };
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* ---- memory bookkeeping ---- */

static CUresult mem_add(void *p, size_t bytes, enum mock_mem_kind kind)
{
	struct mock_mem *m = malloc(sizeof *m);
	if (!m)
		return CUDA_ERROR_OUT_OF_MEMORY;
	m->p = p;
	m->bytes = bytes;
	m->kind = kind;
	pthread_mutex_lock(&drv.mu);
	m->next = drv.mem;
	drv.mem = m;
	pthread_mutex_unlock(&drv.mu);
	return CUDA_SUCCESS;
}

/* Forgets the allocation that starts at p; 0 when there is none of that kind. */
static int mem_remove(const void *p, enum mock_mem_kind kind)
{
	int found = 0;
	pthread_mutex_lock(&drv.mu);
	for (struct mock_mem **m = &drv.mem; *m; m = &(*m)->next) {
		const int same = (*m)->kind == kind || (kind == MEM_HOST && (*m)->kind == MEM_HOST_MAPPED);
		if ((*m)->p == p && same) {
			struct mock_mem *dead = *m;
			*m = dead->next;
			free(dead);
			found = 1;
			break;
		}
	}
	pthread_mutex_unlock(&drv.mu);
	return found;
}

/* 1 when [p, p + bytes) lies inside one allocation of that kind, at an offset
 * that is a multiple of `align` from its start. */
static int mem_holds(const void *p, size_t bytes, size_t align, enum mock_mem_kind kind)
{
	const uintptr_t q = (uintptr_t)p;
	int ok = 0;
	pthread_mutex_lock(&drv.mu);
	for (const struct mock_mem *m = drv.mem; m && !ok; m = m->next) {
		const uintptr_t base = (uintptr_t)m->p;
		ok = m->kind == kind && q >= base && bytes <= m->bytes && q - base <= m->bytes - bytes &&
		     (q - base) % align == 0;
	}
	pthread_mutex_unlock(&drv.mu);
	return ok;
}

/* ---- streams: a thread each ---- */

struct mock_event {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int recorded;              /* cuEventRecord was called at least once */
	int pending;               /* records its stream has not reached yet */
	int64_t t_ns;              /* when its stream reached it */
	CUresult status;           /* the stream's error when reached */
	unsigned flags;
};

/* The arguments of one gx_job launch (workload.cu), decoded. */
struct mock_kernel {
	struct gx_words *w;
	uint64_t from, total, ckpt_iters;
	uint32_t chunk;
	int64_t ckpt_cost_ns, restore_ns;
	int fail;                  /* MOCK_FAIL_TOTAL matched: fail half-way */
	int ramp_ms, slow, drift_pct; /* MOCK_CLOCK_RAMP_MS, MOCK_CLOCK_SLOW, MOCK_CLOCK_DRIFT at launch */
};

enum mock_op_kind { OP_MEMSET, OP_KERNEL, OP_CALLBACK, OP_EVENT };
struct mock_op {
	struct mock_op *next;
	enum mock_op_kind kind;
	int64_t queued_ns;         /* host time it was queued */
	union {
		struct { uint32_t *dst; uint32_t value; size_t n; } set;
		struct mock_kernel k;
		struct { CUstreamCallback fn; void *arg; } cb;
		struct mock_event *ev;
	} u;
};

struct mock_stream {
	pthread_mutex_t mu;
	pthread_cond_t cv;         /* work queued, work done, or quit */
	struct mock_op *head, *tail;
	size_t pending;            /* queued plus running */
	CUresult err;              /* sticky kernel error */
	int quit;                  /* destroyed: exit once the queue is empty */
	unsigned sms;              /* of the context it was made in */
	int64_t dev_ns;            /* the device timeline: when its last op ended (stream thread) */
	double drift;              /* MOCK_CLOCK_DRIFT's factor for its next kernel */
	pthread_t thread;
};

static int stop_asked(const struct gx_words *w)
{
	return __atomic_load_n(&w->flag, __ATOMIC_ACQUIRE) != 0;
}

/* Waits on the device's timeline until *due + ns, polling the flag as the kernel
 * does; 1 when asked to stop (*due is then the time the stop was seen, on the
 * timeline: never before *due). */
static int wait_or_stop(const struct gx_words *w, int64_t *due, int64_t ns)
{
	const int64_t end = *due + (ns > 0 ? ns : 0);
	for (;;) {
		if (stop_asked(w)) {
			int64_t t = now_ns();
			*due = t > *due ? (t < end ? t : end) : *due;
			return 1;
		}
		const int64_t left = end - now_ns();
		if (left <= 0) {
			*due = end;
			return 0;
		}
		sleep_until(now_ns() + (left < MOCK_POLL_NS ? left : MOCK_POLL_NS));
	}
}

/* The device's clock (MOCK_CLOCK_RAMP_MS, MOCK_CLOCK_SLOW): an iteration at device
 * time t lasts `slow` times its nominal length when the device starts working, and
 * that factor falls linearly to 1 over ramp ms from the first kernel's start, as a
 * GPU's SM clock climbs from idle under load. MOCK_CLOCK_DRIFT=P: every kernel a
 * stream runs is P% slower than the one before (a clock that never settles). */
static int64_t first_kernel_ns; /* device time of the first kernel's start, 0 = none yet */
static double clock_factor(const struct mock_kernel *k, int64_t t, double drift)
{
	double f = drift;
	const int ramp_ms = k->ramp_ms, slow = k->slow;
	if (ramp_ms > 0) {
		int64_t t0 = __atomic_load_n(&first_kernel_ns, __ATOMIC_ACQUIRE);
		double x = 1.0 - (double)(t - t0) / (ramp_ms * 1e6);
		if (x > 0)
			f *= 1.0 + (slow - 1) * x;
	}
	return f;
}

/* gx_job on the mapped words: iterations from+1 .. total, the flag polled once per
 * iteration, a checkpoint every ckpt_iters (not at the end). It runs on the
 * stream's device timeline from *t (its start), which it advances to its end:
 * iterations are paced on that timeline (sleep_until their due times), so a stream
 * thread that the host runs late catches up, and the kernel's length, as events
 * time it, is what the device would take, whatever the host's load. A stop is
 * seen at a wall time (stop_at): the iterations and checkpoints due by then count
 * even when the thread comes to them late, as a device would have done them. */
static CUresult kernel_work(const struct mock_kernel *k, int64_t *t, double drift)
{
	const double iter_ns = (double)k->chunk * MOCK_STEP_NS;
	const uint64_t fail_at = k->from + (k->total - k->from) / 2;
	int64_t zero = 0, stop_at = INT64_MAX;
	__atomic_compare_exchange_n(&first_kernel_ns, &zero, *t, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
	if (k->from > 0 ? wait_or_stop(k->w, t, k->restore_ns) : stop_asked(k->w))
		return CUDA_SUCCESS;
	for (uint64_t it = k->from + 1; it <= k->total; it++) {
		const int64_t extra = __atomic_load_n(&k->w->slow_ns, __ATOMIC_ACQUIRE); /* gx_slow */
		const int64_t next = *t + (int64_t)(iter_ns * clock_factor(k, *t, drift) + 0.5) + (extra > 0 ? extra : 0);
		if (next > stop_at)
			break; /* not reached when the stop was seen */
		if (stop_at == INT64_MAX) {
			sleep_until(next);
			if (stop_asked(k->w))
				stop_at = now_ns(); /* >= next: iteration it is done */
		}
		*t = next;
		if (k->fail && it > fail_at)
			return CUDA_ERROR_ILLEGAL_ADDRESS;
		__atomic_store_n(&k->w->progress, it, __ATOMIC_RELEASE);
		if (k->ckpt_iters && it % k->ckpt_iters == 0 && it < k->total) {
			if (stop_at != INT64_MAX) {
				if (*t + k->ckpt_cost_ns > stop_at)
					break; /* being paid when the stop was seen: lost */
				*t += k->ckpt_cost_ns;
			} else if (wait_or_stop(k->w, t, k->ckpt_cost_ns)) {
				return CUDA_SUCCESS;
			}
			__atomic_store_n(&k->w->saved, it, __ATOMIC_RELEASE);
			__atomic_store_n(&k->w->ckpts, (uint32_t)(it / k->ckpt_iters - k->from / k->ckpt_iters),
					 __ATOMIC_RELEASE);
		}
	}
	if (stop_at != INT64_MAX && stop_at > *t)
		*t = stop_at;
	return CUDA_SUCCESS;
}

/* The kernel: its work (kernel_work), then, when a hang stopped it before its end,
 * the hold: no more progress or checkpoints, the stream busy, until the host's
 * kill raises the flag to stop; *t is then when the kill was seen. */
static CUresult kernel_run(const struct mock_kernel *k, int64_t *t, double drift)
{
	CUresult rc = kernel_work(k, t, drift);
	if (rc != CUDA_SUCCESS || __atomic_load_n(&k->w->progress, __ATOMIC_ACQUIRE) >= k->total)
		return rc;
	while (__atomic_load_n(&k->w->flag, __ATOMIC_ACQUIRE) == GX_FLAG_HANG)
		sleep_until(now_ns() + MOCK_POLL_NS);
	const int64_t seen = now_ns();
	*t = seen > *t ? seen : *t;
	return rc;
}

static void event_reach(struct mock_event *ev, CUresult status, int64_t t)
{
	pthread_mutex_lock(&ev->mu);
	/* Recorded again before reached: it completes at the last record's point. */
	if (ev->pending > 0)
		ev->pending--;
	ev->t_ns = t;
	ev->status = status;
	pthread_cond_broadcast(&ev->cv);
	pthread_mutex_unlock(&ev->mu);
}

/* Runs one op on the stream's thread; returns the stream's error after it. The
 * stream keeps a device timeline (dev_ns): an op starts when the one before it
 * ended on that timeline, or when the host queued it if the stream was idle by
 * then; a memset and an event take no time, a kernel its iterations, a callback
 * the host time it runs (it holds the stream). Events are stamped on the timeline. */
static CUresult op_run(struct mock_stream *s, struct mock_op *op, CUresult err)
{
	int64_t t = s->dev_ns > op->queued_ns ? s->dev_ns : op->queued_ns;
	switch (op->kind) {
	case OP_MEMSET:
		if (err == CUDA_SUCCESS)
			for (size_t i = 0; i < op->u.set.n; i++)
				op->u.set.dst[i] = op->u.set.value;
		break;
	case OP_KERNEL:
		if (err == CUDA_SUCCESS) {
			err = kernel_run(&op->u.k, &t, s->drift);
			if (op->u.k.drift_pct > 0)
				s->drift *= 1.0 + op->u.k.drift_pct / 100.0;
		}
		break;
	case OP_CALLBACK:
		/* The driver runs callbacks with the stream's error, also after a fault. */
		in_callback = 1;
		op->u.cb.fn((CUstream)s, err, op->u.cb.arg);
		in_callback = 0;
		t = now_ns() > t ? now_ns() : t;
		break;
	case OP_EVENT:
		event_reach(op->u.ev, err, t);
		break;
	}
	s->dev_ns = t;
	return err;
}

static void *stream_main(void *arg)
{
	struct mock_stream *s = arg;
	pthread_mutex_lock(&s->mu);
	for (;;) {
		while (!s->head && !s->quit)
			pthread_cond_wait(&s->cv, &s->mu);
		if (!s->head)
			break;
		struct mock_op *op = s->head;
		s->head = op->next;
		if (!s->head)
			s->tail = NULL;
		CUresult err = s->err;
		pthread_mutex_unlock(&s->mu);
		err = op_run(s, op, err);
		free(op);
		pthread_mutex_lock(&s->mu);
		s->err = err;
		s->pending--;
		pthread_cond_broadcast(&s->cv);
	}
	pthread_mutex_unlock(&s->mu);
	/* Destroyed and drained: the stream frees itself (cuStreamDestroy does not wait). */
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
	free(s);
	return NULL;
}

static CUresult stream_new(CUstream *out, unsigned sms)
{
	struct mock_stream *s = calloc(1, sizeof *s);
	if (!s)
		return CUDA_ERROR_OUT_OF_MEMORY;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	s->sms = sms;
	s->drift = 1.0;
	if (pthread_create(&s->thread, NULL, stream_main, s)) {
		pthread_cond_destroy(&s->cv);
		pthread_mutex_destroy(&s->mu);
		free(s);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	pthread_detach(s->thread);
	*out = (CUstream)s;
	return CUDA_SUCCESS;
}

/* Queues op (consumed either way); a stream with a sticky error takes no more work. */
static CUresult stream_push(CUstream hs, struct mock_op *op)
{
	struct mock_stream *s = (struct mock_stream *)hs;
	pthread_mutex_lock(&s->mu);
	CUresult err = s->err;
	if (err == CUDA_SUCCESS) {
		op->next = NULL;
		op->queued_ns = now_ns();
		if (s->tail)
			s->tail->next = op;
		else
			s->head = op;
		s->tail = op;
		s->pending++;
		pthread_cond_broadcast(&s->cv);
	}
	pthread_mutex_unlock(&s->mu);
	if (err != CUDA_SUCCESS)
		free(op);
	return err;
}

static struct mock_op *op_new(enum mock_op_kind kind)
{
	struct mock_op *op = calloc(1, sizeof *op);
	if (op)
		op->kind = kind;
	return op;
}

/* ---- errors and versions ---- */

#define MOCK_ERRORS(X)                                                                  \
	X(CUDA_SUCCESS, "no error")                                                     \
	X(CUDA_ERROR_INVALID_VALUE, "invalid argument")                                 \
	X(CUDA_ERROR_OUT_OF_MEMORY, "out of memory")                                    \
	X(CUDA_ERROR_NOT_INITIALIZED, "initialization error")                           \
	X(CUDA_ERROR_NO_DEVICE, "no CUDA-capable device is detected")                   \
	X(CUDA_ERROR_INVALID_DEVICE, "invalid device ordinal")                          \
	X(CUDA_ERROR_INVALID_CONTEXT, "invalid device context")                         \
	X(CUDA_ERROR_INVALID_HANDLE, "invalid resource handle")                         \
	X(CUDA_ERROR_NOT_FOUND, "named symbol not found")                               \
	X(CUDA_ERROR_NOT_READY, "device not ready")                                     \
	X(CUDA_ERROR_ILLEGAL_ADDRESS, "an illegal memory access was encountered")       \
	X(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "too many resources requested for launch") \
	X(CUDA_ERROR_NOT_PERMITTED, "operation not permitted")                          \
	X(CUDA_ERROR_NOT_SUPPORTED, "operation not supported")                          \
	X(CUDA_ERROR_INVALID_RESOURCE_TYPE, "invalid resource type")                    \
	X(CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION, "invalid resource configuration")

CUresult CUDAAPI cuGetErrorName(CUresult error, const char **pStr)
{
	ENTER(enter);
#define MOCK_NAME(code, text) if (error == code) { *pStr = #code; return CUDA_SUCCESS; }
	MOCK_ERRORS(MOCK_NAME)
#undef MOCK_NAME
	*pStr = NULL;
	return CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuGetErrorString(CUresult error, const char **pStr)
{
	ENTER(enter);
#define MOCK_TEXT(code, text) if (error == code) { *pStr = text; return CUDA_SUCCESS; }
	MOCK_ERRORS(MOCK_TEXT)
#undef MOCK_TEXT
	*pStr = NULL;
	return CUDA_ERROR_INVALID_VALUE;
}

/* Exported unversioned too: exec_cuda.c checks it with dlsym before anything else. */
CUresult CUDAAPI cuDriverGetVersion(int *driverVersion)
{
	ENTER(enter);
	if (!driverVersion)
		return CUDA_ERROR_INVALID_VALUE;
	*driverVersion = env_int("MOCK_DRV_VER", CUDA_VERSION);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuInit(unsigned int Flags)
{
	ENTER(enter);
	if (Flags)
		return CUDA_ERROR_INVALID_VALUE;
	int n = env_int("MOCK_NDEV", 1);
	if (n <= 0)
		return CUDA_ERROR_NO_DEVICE;
	/* The device has been idle: its clock ramps again from the next kernel. */
	__atomic_store_n(&first_kernel_ns, 0, __ATOMIC_RELEASE);
	pthread_mutex_lock(&drv.mu);
	/* Unlike the driver's, the count is read again at every cuInit, so one test
	 * process can open 1 device, then 2. Contexts are set once (never freed). */
	drv.n_devs = n < MOCK_MAX_DEV ? n : MOCK_MAX_DEV;
	if (!drv.initialized)
		for (int d = 0; d < MOCK_MAX_DEV; d++)
			drv.primary[d] = (struct mock_ctx){ .dev = d, .sms = MOCK_SMS };
	drv.initialized = 1;
	pthread_mutex_unlock(&drv.mu);
	return CUDA_SUCCESS;
}

/* ---- devices and contexts ---- */

CUresult CUDAAPI cuDeviceGetCount(int *count)
{
	ENTER(enter_init);
	pthread_mutex_lock(&drv.mu);
	*count = drv.n_devs;
	pthread_mutex_unlock(&drv.mu);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal)
{
	ENTER(enter_init);
	if (!dev_valid(ordinal))
		return CUDA_ERROR_INVALID_DEVICE;
	*device = ordinal;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice dev)
{
	ENTER(enter_init);
	if (!dev_valid(dev))
		return CUDA_ERROR_INVALID_DEVICE;
	if (!name || len <= 0)
		return CUDA_ERROR_INVALID_VALUE;
	snprintf(name, (size_t)len, "NVIDIA H200");
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
	ENTER(enter_init);
	if (!dev_valid(dev))
		return CUDA_ERROR_INVALID_DEVICE;
	switch (attrib) {
	case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
		*pi = (int)MOCK_SMS;
		return CUDA_SUCCESS;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
		*pi = MOCK_CC_MAJOR;
		return CUDA_SUCCESS;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
		*pi = 0;
		return CUDA_SUCCESS;
	case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR:
		*pi = env_int("MOCK_SMEM_PER_SM", MOCK_SMEM_PER_SM);
		return CUDA_SUCCESS;
	case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
		*pi = MOCK_SMEM_OPTIN;
		return CUDA_SUCCESS;
	case CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK:
		*pi = MOCK_SMEM_RESERVED;
		return CUDA_SUCCESS;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
}

CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
	ENTER(enter_init);
	if (!dev_valid(dev))
		return CUDA_ERROR_INVALID_DEVICE;
	pthread_mutex_lock(&drv.mu);
	drv.primary_refs[dev]++;
	*pctx = (CUcontext)&drv.primary[dev];
	pthread_mutex_unlock(&drv.mu);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice dev)
{
	ENTER(enter_init);
	if (!dev_valid(dev))
		return CUDA_ERROR_INVALID_DEVICE;
	pthread_mutex_lock(&drv.mu);
	int refs = drv.primary_refs[dev];
	if (refs > 0)
		drv.primary_refs[dev]--;
	pthread_mutex_unlock(&drv.mu);
	return refs > 0 ? CUDA_SUCCESS : refuse(__func__, "primary context released more than retained");
}

CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx)
{
	ENTER(enter_init);
	current = (const struct mock_ctx *)ctx;
	return CUDA_SUCCESS;
}

/* ---- green contexts: SM partitions ---- */

CUresult CUDAAPI cuDeviceGetDevResource(CUdevice device, CUdevResource *resource, CUdevResourceType type)
{
	ENTER(enter_init);
	if (!dev_valid(device))
		return CUDA_ERROR_INVALID_DEVICE;
	if (type != CU_DEV_RESOURCE_TYPE_SM)
		return CUDA_ERROR_INVALID_RESOURCE_TYPE;
	memset(resource, 0, sizeof *resource);
	resource->type = CU_DEV_RESOURCE_TYPE_SM;
	resource->sm.smCount = MOCK_SMS;
	resource->sm.minSmPartitionSize = MOCK_SM_UNIT;
	resource->sm.smCoscheduledAlignment = MOCK_SM_UNIT;
	return CUDA_SUCCESS;
}

/* Equal groups of minCount SMs (rounded up to the granularity), as many as fit or as
 * *nbGroups allows; the rest goes to `remaining`. */
CUresult CUDAAPI cuDevSmResourceSplitByCount(CUdevResource *result, unsigned int *nbGroups,
					     const CUdevResource *input, CUdevResource *remaining,
					     unsigned int useFlags, unsigned int minCount)
{
	ENTER(enter_init);
	if (!nbGroups || !input || input->type != CU_DEV_RESOURCE_TYPE_SM || useFlags)
		return CUDA_ERROR_INVALID_VALUE;
	unsigned unit = minCount < MOCK_SM_UNIT ? MOCK_SM_UNIT : minCount;
	unit += (MOCK_SM_UNIT - unit % MOCK_SM_UNIT) % MOCK_SM_UNIT;
	unsigned n = input->sm.smCount / unit;
	if (result && *nbGroups < n)
		n = *nbGroups;
	if (n == 0)
		return CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION;
	for (unsigned i = 0; result && i < n; i++) {
		memset(&result[i], 0, sizeof result[i]);
		result[i].type = CU_DEV_RESOURCE_TYPE_SM;
		result[i].sm.smCount = unit;
		result[i].sm.minSmPartitionSize = MOCK_SM_UNIT;
		result[i].sm.smCoscheduledAlignment = MOCK_SM_UNIT;
	}
	if (remaining) {
		memset(remaining, 0, sizeof *remaining);
		remaining->type = CU_DEV_RESOURCE_TYPE_SM;
		remaining->sm.smCount = input->sm.smCount - (result ? n * unit : 0);
	}
	*nbGroups = n;
	return CUDA_SUCCESS;
}

/* A descriptor has no destroy call, so it is not an allocation: the handle's value
 * is its SM count. */
CUresult CUDAAPI cuDevResourceGenerateDesc(CUdevResourceDesc *phDesc, CUdevResource *resources,
					   unsigned int nbResources)
{
	ENTER(enter_init);
	unsigned sms = 0;
	for (unsigned i = 0; resources && i < nbResources; i++) {
		if (resources[i].type != CU_DEV_RESOURCE_TYPE_SM)
			return CUDA_ERROR_INVALID_RESOURCE_TYPE;
		sms += resources[i].sm.smCount;
	}
	if (!phDesc || sms == 0 || sms > MOCK_SMS)
		return CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION;
	*phDesc = (CUdevResourceDesc)(uintptr_t)sms;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGreenCtxCreate(CUgreenCtx *phCtx, CUdevResourceDesc desc, CUdevice dev, unsigned int flags)
{
	ENTER(enter_init);
	if (!dev_valid(dev))
		return CUDA_ERROR_INVALID_DEVICE;
	if (flags != CU_GREEN_CTX_DEFAULT_STREAM)
		return refuse(__func__, "flags must be CU_GREEN_CTX_DEFAULT_STREAM (required)");
	uintptr_t sms = (uintptr_t)desc;
	if (sms == 0 || sms > MOCK_SMS)
		return refuse(__func__, "not a descriptor from cuDevResourceGenerateDesc");
	struct mock_green *g = calloc(1, sizeof *g);
	if (!g)
		return CUDA_ERROR_OUT_OF_MEMORY;
	g->ctx.dev = dev;
	g->ctx.sms = (unsigned)sms;
	*phCtx = (CUgreenCtx)g;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGreenCtxDestroy(CUgreenCtx hCtx)
{
	ENTER(enter_init);
	struct mock_green *g = (struct mock_green *)hCtx;
	if (!g)
		return CUDA_ERROR_INVALID_HANDLE;
	if (current == &g->ctx)
		current = NULL;
	free(g);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxFromGreenCtx(CUcontext *pContext, CUgreenCtx hCtx)
{
	ENTER(enter_init);
	if (!hCtx)
		return CUDA_ERROR_INVALID_HANDLE;
	*pContext = (CUcontext)&((struct mock_green *)hCtx)->ctx;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGreenCtxStreamCreate(CUstream *phStream, CUgreenCtx greenCtx, unsigned int flags,
				       int priority)
{
	ENTER(enter_init);
	(void)priority;
	if (!greenCtx)
		return CUDA_ERROR_INVALID_HANDLE;
	if (flags != CU_STREAM_NON_BLOCKING)
		return refuse(__func__, "flags must be CU_STREAM_NON_BLOCKING (required)");
	return stream_new(phStream, ((struct mock_green *)greenCtx)->ctx.sms);
}

CUresult CUDAAPI cuGreenCtxGetDevResource(CUgreenCtx hCtx, CUdevResource *resource, CUdevResourceType type)
{
	ENTER(enter_init);
	if (!hCtx)
		return CUDA_ERROR_INVALID_HANDLE;
	if (type != CU_DEV_RESOURCE_TYPE_SM)
		return CUDA_ERROR_INVALID_RESOURCE_TYPE;
	memset(resource, 0, sizeof *resource);
	resource->type = CU_DEV_RESOURCE_TYPE_SM;
	resource->sm.smCount = ((struct mock_green *)hCtx)->ctx.sms;
	resource->sm.minSmPartitionSize = MOCK_SM_UNIT;
	resource->sm.smCoscheduledAlignment = MOCK_SM_UNIT;
	return CUDA_SUCCESS;
}

/* ---- streams and callbacks ---- */

CUresult CUDAAPI cuStreamCreate(CUstream *phStream, unsigned int Flags)
{
	ENTER(enter_ctx);
	(void)Flags;
	return stream_new(phStream, current->sms);
}

/* Returns at once, as the driver does; the stream's thread finishes its queue and
 * frees the stream. */
CUresult CUDAAPI cuStreamDestroy(CUstream hStream)
{
	ENTER(enter_init);
	struct mock_stream *s = (struct mock_stream *)hStream;
	if (!s)
		return CUDA_ERROR_INVALID_HANDLE;
	pthread_mutex_lock(&s->mu);
	s->quit = 1;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamSynchronize(CUstream hStream)
{
	ENTER(enter_init);
	struct mock_stream *s = (struct mock_stream *)hStream;
	if (!s)
		return CUDA_ERROR_INVALID_HANDLE;
	pthread_mutex_lock(&s->mu);
	while (s->pending)
		pthread_cond_wait(&s->cv, &s->mu);
	CUresult err = s->err;
	pthread_mutex_unlock(&s->mu);
	return err;
}

CUresult CUDAAPI cuStreamAddCallback(CUstream hStream, CUstreamCallback callback, void *userData,
				     unsigned int flags)
{
	ENTER(enter_init);
	if (!hStream || !callback || flags)
		return CUDA_ERROR_INVALID_VALUE;
	struct mock_op *op = op_new(OP_CALLBACK);
	if (!op)
		return CUDA_ERROR_OUT_OF_MEMORY;
	op->u.cb.fn = callback;
	op->u.cb.arg = userData;
	return stream_push(hStream, op);
}

/* ---- the workload library ---- */

CUresult CUDAAPI cuLibraryLoadData(CUlibrary *library, const void *code, CUjit_option *jitOptions,
				   void **jitOptionsValues, unsigned int numJitOptions,
				   CUlibraryOption *libraryOptions, void **libraryOptionValues,
				   unsigned int numLibraryOptions)
{
	ENTER(enter_init);
	(void)jitOptions;
	(void)jitOptionsValues;
	(void)libraryOptions;
	(void)libraryOptionValues;
	if (!library || !code)
		return CUDA_ERROR_INVALID_VALUE;
	if (numJitOptions || numLibraryOptions)
		return refuse(__func__, "expected no options");
	uint32_t magic;
	memcpy(&magic, code, sizeof magic);
	if (magic != MOCK_FATBIN_MAGIC)
		return refuse(__func__, "code is not a fatbin (no 0xBA55ED50 magic)");
	*library = (CUlibrary)&library_token;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLibraryUnload(CUlibrary library)
{
	ENTER(enter_init);
	return library == (CUlibrary)&library_token ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult CUDAAPI cuLibraryGetKernel(CUkernel *pKernel, CUlibrary library, const char *name)
{
	ENTER(enter_init);
	if (library != (CUlibrary)&library_token)
		return CUDA_ERROR_INVALID_HANDLE;
	if (!name || strcmp(name, "gx_job") != 0)
		return CUDA_ERROR_NOT_FOUND;
	*pKernel = (CUkernel)&kernel_token;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuKernelGetFunction(CUfunction *pFunc, CUkernel kernel)
{
	ENTER(enter_ctx);
	if (kernel != (CUkernel)&kernel_token)
		return CUDA_ERROR_INVALID_HANDLE;
	*pFunc = (CUfunction)&function_token;
	return CUDA_SUCCESS;
}

static atomic_uint last_chunk[MOCK_SMS + 1]; /* by partition size: the last kernel's chunk */

unsigned mock_cuda_chunk_of(unsigned sms)
{
	return sms <= MOCK_SMS ? atomic_load(&last_chunk[sms]) : 0;
}

/* gx_job's MAX_DYNAMIC_SHARED_SIZE_BYTES (one function handle for every context here). */
static atomic_int max_dyn_smem;

CUresult CUDAAPI cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value)
{
	ENTER(enter_ctx);
	if (hfunc != (CUfunction)&function_token)
		return CUDA_ERROR_INVALID_HANDLE;
	if (attrib != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)
		return refuse("cuFuncSetAttribute", "only MAX_DYNAMIC_SHARED_SIZE_BYTES is expected");
	if (value < 0 || value > MOCK_SMEM_OPTIN)
		return CUDA_ERROR_INVALID_VALUE;
	atomic_store(&max_dyn_smem, value);
	return CUDA_SUCCESS;
}

/* Blocks of gx_job that fit on one SM: by threads (2048 an SM) and by shared
 * memory (each block takes its dynamic bytes plus the reserved KiB). Registers
 * are not modelled (gx_job's few registers never limit it before threads do). */
static int blocks_per_sm(int threads, size_t smem)
{
	int by_threads = MOCK_THREADS_PER_SM / (threads > 0 ? threads : 1);
	long per_sm = env_int("MOCK_SMEM_PER_SM", MOCK_SMEM_PER_SM);
	long by_smem = per_sm / ((long)smem + MOCK_SMEM_RESERVED);
	return by_smem < by_threads ? (int)by_smem : by_threads;
}

CUresult CUDAAPI cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, CUfunction func, int blockSize,
							     size_t dynamicSMemSize)
{
	ENTER(enter_ctx);
	if (!numBlocks || func != (CUfunction)&function_token || blockSize <= 0)
		return CUDA_ERROR_INVALID_VALUE;
	*numBlocks = blocks_per_sm(blockSize, dynamicSMemSize);
	return CUDA_SUCCESS;
}

/* kernelParams as gx_job's signature (workload.cu): words, scratch, from, total,
 * ckpt_iters, chunk, ckpt_cost_ns, restore_ns. */
static CUresult kernel_decode(struct mock_kernel *k, void **p)
{
	CUdeviceptr w, sc;
	unsigned long long from, total, ckpt;
	unsigned int chunk;
	long long cost, restore;
	memcpy(&w, p[0], sizeof w);
	memcpy(&sc, p[1], sizeof sc);
	memcpy(&from, p[2], sizeof from);
	memcpy(&total, p[3], sizeof total);
	memcpy(&ckpt, p[4], sizeof ckpt);
	memcpy(&chunk, p[5], sizeof chunk);
	memcpy(&cost, p[6], sizeof cost);
	memcpy(&restore, p[7], sizeof restore);
	k->w = (struct gx_words *)(uintptr_t)w;
	if (!mem_holds(k->w, sizeof *k->w, sizeof *k->w, MEM_HOST_MAPPED))
		return refuse("cuLaunchKernel", "words: not a 64-byte slot of mapped host memory");
	if (!mem_holds((void *)(uintptr_t)sc, sizeof(struct gx_scratch), 1, MEM_DEVICE))
		return refuse("cuLaunchKernel", "scratch: not device memory of gx_scratch's size");
	if (total == 0 || from >= total || chunk == 0 || cost < 0 || restore < 0 || ckpt > total)
		return refuse("cuLaunchKernel", "from/total/ckpt_iters/chunk/costs out of range");
	k->from = from;
	k->total = total;
	k->ckpt_iters = ckpt;
	k->chunk = chunk;
	k->ckpt_cost_ns = cost;
	k->restore_ns = restore;
	k->fail = total == (unsigned long long)env_int("MOCK_FAIL_TOTAL", -1);
	k->ramp_ms = env_int("MOCK_CLOCK_RAMP_MS", 0);
	k->slow = env_int("MOCK_CLOCK_SLOW", 3);
	k->drift_pct = env_int("MOCK_CLOCK_DRIFT", 0);
	return CUDA_SUCCESS;
}

/* The workload needs every block resident at once (its rings have no grid barrier):
 * one 256-thread block per SM of the stream's partition at most. */
static CUresult launch_check(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
			     unsigned by, unsigned bz, unsigned shared, const struct mock_stream *s,
			     void **params, void **extra)
{
	if (f != (CUfunction)&function_token)
		return refuse("cuLaunchKernel", "not the gx_job function of cuKernelGetFunction");
	if (!s)
		return refuse("cuLaunchKernel", "the legacy default stream (exec_cuda.c uses its own)");
	if (gx == 0 || gx > s->sms || gy != 1 || gz != 1)
		return refuse("cuLaunchKernel", "grid must be 1 to the partition's SMs blocks, x only");
	if (bx != GX_THREADS || by != 1 || bz != 1)
		return refuse("cuLaunchKernel", "block must be 256 x 1 x 1");
	if ((int)shared > atomic_load(&max_dyn_smem) && shared > 48 * 1024)
		return CUDA_ERROR_INVALID_VALUE; /* as the driver: above 48 KiB needs the attribute */
	/* One block an SM, or a doubled-up block would halve its virtual GPU's pace. */
	if (blocks_per_sm(GX_THREADS, shared) != 1)
		return refuse("cuLaunchKernel", "shared memory must keep gx_job to one block an SM");
	if (!params || extra)
		return refuse("cuLaunchKernel", "expected kernelParams and no extra");
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
				unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
				unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
				void **kernelParams, void **extra)
{
	ENTER(enter_init);
	const struct mock_stream *s = (const struct mock_stream *)hStream;
	CUresult rc = launch_check(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
				   sharedMemBytes, s, kernelParams, extra);
	if (rc != CUDA_SUCCESS)
		return rc;
	/* MOCK_LAUNCH_DELAY_US: a host that is late queuing (a busy machine). */
	const int delay_us = env_int("MOCK_LAUNCH_DELAY_US", 0);
	if (delay_us > 0)
		sleep_until(now_ns() + (int64_t)delay_us * 1000);
	struct mock_op *op = op_new(OP_KERNEL);
	if (!op)
		return CUDA_ERROR_OUT_OF_MEMORY;
	if ((rc = kernel_decode(&op->u.k, kernelParams)) != CUDA_SUCCESS) {
		free(op);
		return rc;
	}
	if (s->sms <= MOCK_SMS)
		atomic_store(&last_chunk[s->sms], op->u.k.chunk);
	if (getenv("MOCK_TRACE"))
		fprintf(stderr, "mock libcuda: launch %u blocks (partition %u SMs): from %llu total %llu "
			"ckpt %llu chunk %u%s\n", gridDimX, s->sms, (unsigned long long)op->u.k.from,
			(unsigned long long)op->u.k.total, (unsigned long long)op->u.k.ckpt_iters,
			op->u.k.chunk, op->u.k.fail ? " (will fail)" : "");
	return stream_push(hStream, op);
}

/* ---- memory ---- */

CUresult CUDAAPI cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
{
	ENTER(enter_ctx);
	if (!pp || !bytesize)
		return CUDA_ERROR_INVALID_VALUE;
	/* Page-aligned, as the driver's pinned memory is. */
	const size_t rounded = (bytesize + MOCK_PAGE - 1) / MOCK_PAGE * MOCK_PAGE;
	void *p = aligned_alloc(MOCK_PAGE, rounded);
	if (!p)
		return CUDA_ERROR_OUT_OF_MEMORY;
	memset(p, 0, rounded);
	CUresult rc = mem_add(p, bytesize, Flags & CU_MEMHOSTALLOC_DEVICEMAP ? MEM_HOST_MAPPED : MEM_HOST);
	if (rc != CUDA_SUCCESS) {
		free(p);
		return rc;
	}
	*pp = p;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemFreeHost(void *p)
{
	ENTER(enter_init);
	if (!mem_remove(p, MEM_HOST))
		return refuse(__func__, "not memory of cuMemHostAlloc");
	free(p);
	return CUDA_SUCCESS;
}

/* Unified addressing: a mapped host buffer has the same address on the device. */
CUresult CUDAAPI cuMemHostGetDevicePointer(CUdeviceptr *pdptr, void *p, unsigned int Flags)
{
	ENTER(enter_init);
	if (Flags)
		return CUDA_ERROR_INVALID_VALUE;
	if (!mem_holds(p, 1, 1, MEM_HOST_MAPPED))
		return refuse(__func__, "not host memory allocated with CU_MEMHOSTALLOC_DEVICEMAP");
	*pdptr = (CUdeviceptr)(uintptr_t)p;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemAlloc(CUdeviceptr *dptr, size_t bytesize)
{
	ENTER(enter_ctx);
	if (!dptr || !bytesize)
		return CUDA_ERROR_INVALID_VALUE;
	void *p = malloc(bytesize);
	if (!p)
		return CUDA_ERROR_OUT_OF_MEMORY;
	CUresult rc = mem_add(p, bytesize, MEM_DEVICE);
	if (rc != CUDA_SUCCESS) {
		free(p);
		return rc;
	}
	*dptr = (CUdeviceptr)(uintptr_t)p;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemFree(CUdeviceptr dptr)
{
	ENTER(enter_init);
	void *p = (void *)(uintptr_t)dptr;
	if (!mem_remove(p, MEM_DEVICE))
		return refuse(__func__, "not memory of cuMemAlloc");
	free(p);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream)
{
	ENTER(enter_init);
	uint32_t *dst = (uint32_t *)(uintptr_t)dstDevice;
	if (!hStream || !mem_holds(dst, N * 4, 4, MEM_DEVICE))
		return refuse(__func__, "not N words of device memory on a stream");
	struct mock_op *op = op_new(OP_MEMSET);
	if (!op)
		return CUDA_ERROR_OUT_OF_MEMORY;
	op->u.set.dst = dst;
	op->u.set.value = ui;
	op->u.set.n = N;
	return stream_push(hStream, op);
}

/* ---- events ---- */

/* MOCK_FAIL_EVENT_RECORD=N: counts records while it is set (the engine's thread is
 * the only caller, but the counter is atomic all the same). */
static int record_should_fail(void)
{
	static atomic_int records;
	const int n = env_int("MOCK_FAIL_EVENT_RECORD", 0);
	if (n <= 0) {
		atomic_store(&records, 0);
		return 0;
	}
	return atomic_fetch_add(&records, 1) + 1 == n;
}

CUresult CUDAAPI cuEventCreate(CUevent *phEvent, unsigned int Flags)
{
	ENTER(enter_ctx);
	struct mock_event *ev = calloc(1, sizeof *ev);
	if (!ev)
		return CUDA_ERROR_OUT_OF_MEMORY;
	pthread_mutex_init(&ev->mu, NULL);
	pthread_cond_init(&ev->cv, NULL);
	ev->flags = Flags;
	*phEvent = (CUevent)ev;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventRecord(CUevent hEvent, CUstream hStream)
{
	ENTER(enter_init);
	struct mock_event *ev = (struct mock_event *)hEvent;
	if (!ev || !hStream)
		return CUDA_ERROR_INVALID_HANDLE;
	if (record_should_fail())
		return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
	struct mock_op *op = op_new(OP_EVENT);
	if (!op)
		return CUDA_ERROR_OUT_OF_MEMORY;
	op->u.ev = ev;
	/* Marked pending before it is queued: the stream may reach it at once. */
	pthread_mutex_lock(&ev->mu);
	int was_recorded = ev->recorded, was_pending = ev->pending;
	ev->recorded = 1;
	ev->pending++;
	pthread_mutex_unlock(&ev->mu);
	CUresult rc = stream_push(hStream, op);
	if (rc != CUDA_SUCCESS) {
		pthread_mutex_lock(&ev->mu);
		ev->recorded = was_recorded;
		ev->pending = was_pending;
		pthread_mutex_unlock(&ev->mu);
	}
	return rc;
}

/* An event never recorded is complete, as the driver documents. */
CUresult CUDAAPI cuEventSynchronize(CUevent hEvent)
{
	ENTER(enter_init);
	struct mock_event *ev = (struct mock_event *)hEvent;
	if (!ev)
		return CUDA_ERROR_INVALID_HANDLE;
	pthread_mutex_lock(&ev->mu);
	while (ev->pending)
		pthread_cond_wait(&ev->cv, &ev->mu);
	CUresult rc = ev->status;
	pthread_mutex_unlock(&ev->mu);
	return rc;
}

CUresult CUDAAPI cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
	ENTER(enter_init);
	struct mock_event *a = (struct mock_event *)hStart, *b = (struct mock_event *)hEnd;
	if (!a || !b || !pMilliseconds)
		return CUDA_ERROR_INVALID_HANDLE;
	if ((a->flags | b->flags) & CU_EVENT_DISABLE_TIMING)
		return refuse(__func__, "an event created with CU_EVENT_DISABLE_TIMING");
	pthread_mutex_lock(&a->mu);
	int ready = a->recorded && !a->pending;
	int64_t t0 = a->t_ns;
	pthread_mutex_unlock(&a->mu);
	pthread_mutex_lock(&b->mu);
	ready = ready && b->recorded && !b->pending;
	int64_t t1 = b->t_ns;
	pthread_mutex_unlock(&b->mu);
	if (!ready)
		return CUDA_ERROR_NOT_READY;
	*pMilliseconds = (float)((double)(t1 - t0) / 1e6);
	return CUDA_SUCCESS;
}

/* Destroying an event its stream has not reached yet is allowed: the driver frees it
 * once reached. Here the destroy waits for that moment instead, which is the same
 * for the caller (it never touches the event again). */
CUresult CUDAAPI cuEventDestroy(CUevent hEvent)
{
	ENTER(enter_init);
	struct mock_event *ev = (struct mock_event *)hEvent;
	if (!ev)
		return CUDA_ERROR_INVALID_HANDLE;
	pthread_mutex_lock(&ev->mu);
	while (ev->pending)
		pthread_cond_wait(&ev->cv, &ev->mu);
	pthread_mutex_unlock(&ev->mu);
	pthread_cond_destroy(&ev->cv);
	pthread_mutex_destroy(&ev->mu);
	free(ev);
	return CUDA_SUCCESS;
}

/* ---- cuGetProcAddress ---- */

/* Names are the unversioned ones callers ask for (#fn is not macro-expanded); the
 * functions are the versions cuda.h maps them to (cuMemAlloc -> cuMemAlloc_v2).
 * void (*)(void) is C's generic function pointer: every entry point converts to it
 * and back. */
struct mock_entry {
	const char *name;
	void (*fn)(void);
	int green;
};
#define MOCK_ENTRY(fn) { #fn, (void (*)(void))fn, 0 },
#define MOCK_ENTRY_GREEN(fn) { #fn, (void (*)(void))fn, 1 },
static const struct mock_entry entries[] = {
	CU_REQUIRED(MOCK_ENTRY)
	CU_GREEN(MOCK_ENTRY_GREEN)
};
#undef MOCK_ENTRY
#undef MOCK_ENTRY_GREEN

CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
				  CUdriverProcAddressQueryResult *symbolStatus)
{
	ENTER(enter);
	(void)flags;
	if (!symbol || !pfn)
		return CUDA_ERROR_INVALID_VALUE;
	*pfn = NULL;
	if (symbolStatus)
		*symbolStatus = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	if (cudaVersion > env_int("MOCK_DRV_VER", CUDA_VERSION)) {
		if (symbolStatus)
			*symbolStatus = CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
		return CUDA_ERROR_INVALID_VALUE;
	}
	const int no_green = env_int("MOCK_NO_GREEN", 0);
	for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
		if (strcmp(entries[i].name, symbol) != 0 || (entries[i].green && no_green))
			continue;
		memcpy(pfn, &entries[i].fn, sizeof *pfn);
		if (symbolStatus)
			*symbolStatus = CU_GET_PROC_ADDRESS_SUCCESS;
		return CUDA_SUCCESS;
	}
	return CUDA_ERROR_NOT_FOUND;
}
