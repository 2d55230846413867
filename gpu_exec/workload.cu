/* gpu_exec/workload.cu: the device code of the cuda executor (exec_cuda.c is the host side).
 *
 * One kernel, gx_job, is a job segment on one virtual GPU: one block per SM of the
 * partition, each block doing `total - from` iterations of a fixed FMA chunk. It is
 * also the calibration workload (from 0, no checkpoints, flag never raised).
 *
 * Memory (layouts mirrored for the host side in cuda_api.h, keep them in sync):
 *   - struct gx_words, mapped host memory, one per kernel: the flag (host writes:
 *     1 stop, 2 hang; the kernel polls it once per iteration and while it waits,
 *     and holds while it reads 2), the progress and saved counters
 *     (iterations of the whole job, kernel writes, host reads at any time), and
 *     slow_ns (host writes: extra wall time every iteration waits, a slowed-down
 *     job's pace; 0 = full speed);
 *   - struct gx_scratch, device memory of the virtual GPU, zeroed on the stream
 *     before each launch: arrival rings that tell when every block has finished
 *     iteration k (and checkpoint j), with no grid barrier.
 *
 * Why rings: blocks run unsynchronised; "all blocks finished iteration k" is the
 * block whose atomicAdd on ring[k % RING] brings it to gridDim.x. That block resets
 * the slot and publishes k (pub_it). A block may use slot k % RING only once
 * pub_it >= k - RING, i.e. once its previous user was complete and reset; all
 * blocks are resident (grid = SM count), so that wait ends.
 * Times are wall ns from %globaltimer.
 */

#define GX_RING 32u
#define GX_THREADS 256
#define GX_FLAG_HANG 2u

struct gx_words {
	unsigned int flag;             /* host: 1 = stop at the next iteration, 2 = hang (hold until 1) */
	unsigned int ckpts;            /* kernel: checkpoints completed by this segment */
	unsigned long long progress;   /* kernel: iterations done, of the whole job */
	unsigned long long saved;      /* kernel: progress at the last checkpoint */
	long long slow_ns;             /* host: extra ns each iteration waits (a fail-slow node), 0 = none */
	unsigned long long pad[4];     /* 64 bytes: one cache line per kernel */
};

struct gx_scratch {
	unsigned int ring_it[GX_RING];
	unsigned int ring_ck[GX_RING];
	unsigned long long pub_it;     /* last iteration (of this segment) all blocks finished */
	unsigned long long pub_ck;     /* last checkpoint (of this segment) all blocks saved */
	float sink;                    /* keeps the FMA chains alive */
	unsigned int pad[3];
};

static __device__ __forceinline__ unsigned long long gx_clock_ns(void)
{
	unsigned long long t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

/* Thread 0 only. 1 when asked to stop. A hung job (flag GX_FLAG_HANG) stops
 * here, at whatever poll sees the flag: no more iterations, no checkpoint, the
 * block resident on its SM (so the GPU stays held), polling every ~10 us until
 * the host's kill turns the flag to stop; the other threads wait at the block's
 * next barrier and the other blocks at their own polls. */
static __device__ int gx_stop_asked(const struct gx_words *w)
{
	unsigned int f = *(const volatile unsigned int *)&w->flag;
	while (f == GX_FLAG_HANG) {
		__nanosleep(10000);
		f = *(const volatile unsigned int *)&w->flag;
	}
	return f != 0;
}

/* Thread 0 only. Waits ns of wall time, polling the flag; 1 when asked to stop.
 * The flag lives in host memory: every poll is a PCIe round trip, from every block
 * of every running kernel at once. Polling every ~10 us (nanosleep sleeps up to
 * twice what it is asked) keeps that traffic small and a stop still well inside one
 * iteration (200 us by default). */
static __device__ int gx_wait_ns(const struct gx_words *w, long long ns)
{
	if (ns <= 0)
		return gx_stop_asked(w);
	unsigned long long t0 = gx_clock_ns();
	for (;;) {
		if (gx_stop_asked(w))
			return 1;
		const long long left = ns - (long long)(gx_clock_ns() - t0);
		if (left <= 0)
			return 0;
		__nanosleep(left < 10000 ? (unsigned int)left : 10000u);
	}
}

/* Thread 0 only, after its block finished event idx (1-based). Returns 1 when this
 * block completed the event for the whole grid (and published it), 0 when others
 * still have to, -1 when asked to stop while waiting for its ring slot. */
static __device__ int gx_arrive(unsigned int *ring, unsigned long long *pub,
				unsigned long long idx, unsigned int nblocks,
				const struct gx_words *w)
{
	while (idx > GX_RING && *(volatile unsigned long long *)pub < idx - GX_RING) {
		if (gx_stop_asked(w))
			return -1;
		__nanosleep(200);
	}
	__threadfence();
	unsigned int *slot = &ring[idx % GX_RING];
	if (atomicAdd(slot, 1u) + 1u != nblocks)
		return 0;
	atomicExch(slot, 0u);
	__threadfence();
	*(volatile unsigned long long *)pub = idx;
	return 1;
}

/* A job segment: iterations from+1 .. total of the job. Every ckpt_iters
 * iterations (k % ckpt_iters == 0, k < total) each block pays ckpt_cost_ns and the
 * checkpoint counts once all blocks paid it; a stop during it loses it (as in the
 * cpu backend). `chunk` is the per-thread number of 4-FMA steps per iteration. */
extern "C" __global__ void __launch_bounds__(GX_THREADS)
gx_job(struct gx_words *w, struct gx_scratch *sc, unsigned long long from,
       unsigned long long total, unsigned long long ckpt_iters, unsigned int chunk,
       long long ckpt_cost_ns, long long restore_ns)
{
	__shared__ int s_stop;
	const unsigned int nb = gridDim.x;
	const unsigned long long n = total > from ? total - from : 0;
	float a0 = 1.0f + (float)threadIdx.x * 1e-6f;
	float a1 = a0 + 0.25f, a2 = a0 + 0.5f, a3 = a0 + 0.75f;
	const float m = 0.9999999f, c = 1e-7f;

	if (threadIdx.x == 0)
		s_stop = from > 0 ? gx_wait_ns(w, restore_ns) : gx_stop_asked(w);
	__syncthreads();
	for (unsigned long long l = 1; l <= n; l++) {
		const int stop = s_stop;
		__syncthreads(); /* everyone read s_stop before thread 0 writes it again */
		if (stop)
			break;
#pragma unroll 4
		for (unsigned int i = 0; i < chunk; i++) {
			a0 = fmaf(a0, m, c);
			a1 = fmaf(a1, m, c);
			a2 = fmaf(a2, m, c);
			a3 = fmaf(a3, m, c);
		}
		__syncthreads(); /* the block's share of iteration l is done */
		if (threadIdx.x == 0) {
			const unsigned long long k = from + l;
			/* A slowed-down job: each block's share of the iteration takes slow_ns
			 * longer before it counts (a stop during that wait loses it). */
			const long long sl = *(const volatile long long *)&w->slow_ns;
			int st = sl > 0 && gx_wait_ns(w, sl);
			int r = st ? -1 : gx_arrive(sc->ring_it, &sc->pub_it, l, nb, w);
			if (r < 0) {
				st = 1;
			} else if (r == 1) {
				*(volatile unsigned long long *)&w->progress = k;
				__threadfence_system();
			}
			if (!st && ckpt_iters && k % ckpt_iters == 0 && k < total) {
				if (gx_wait_ns(w, ckpt_cost_ns)) {
					st = 1;
				} else {
					const unsigned long long j = k / ckpt_iters - from / ckpt_iters;
					r = gx_arrive(sc->ring_ck, &sc->pub_ck, j, nb, w);
					if (r < 0) {
						st = 1;
					} else if (r == 1) {
						*(volatile unsigned long long *)&w->saved = k;
						*(volatile unsigned int *)&w->ckpts = (unsigned int)j;
						__threadfence_system();
					}
				}
			}
			s_stop = st || gx_stop_asked(w);
		}
		__syncthreads();
	}
	/* Never true in practice; the compiler cannot know, so the chains stay. */
	if (a0 + a1 + a2 + a3 == -1.0f)
		sc->sink = a0;
}
