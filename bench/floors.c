/* bench/floors.c: the floors of the phases of `gpusched run` on this machine (bench/README.md,
 * "Floors"): what each phase would cost if it did nothing but its core work.
 *
 *   floors TRACE.csv [--jobs N] [--bytes B]
 *
 * parse   a tight parse of TRACE (mapped): every line's submit_s and duration_s by strtod, the
 *         other fields skipped to the next comma; MB/s and seconds
 * heap    a bare binary heap doing 3 events a job (submit, start, end: 3N pushes and pops of
 *         16-byte entries, N from the trace's rows or --jobs), the floor the issue sets for the
 *         simulation
 * pages   fresh memory for N jobs as the trace reader takes it: malloc of N x 256 bytes (the
 *         job record, sim/job.h) and N x 64 (one option a job), each byte written once
 *         (memset), then freed: the kernel's page faults and zeroing, which the load
 *         phase pays on top of the parse
 * sort    qsort of N doubles, 3 times (the summary sorts waits, JCTs and slowdowns)
 * write   fwrite of B bytes (default 100 MB, the jobs table of 1M jobs before compression) to a
 *         new file beside TRACE, then close and remove it (page cache, no fsync)
 * h5      the same B bytes as one contiguous, unfiltered HDF5 dataset (create, H5Dwrite, close):
 *         HDF5's own floor for the jobs table, without shuffle or deflate
 * Times are wall seconds (CLOCK_MONOTONIC), one run each; run it 3 times for medians.
 */
#include <fcntl.h>
#include <hdf5.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Parses every data line of the mapped file; returns the rows, *sum the sum of the
 * numbers (printed, so the parse is not optimized away). */
static size_t parse_floor(const char *p, size_t len, double *sum)
{
	const char *end = p + len;
	size_t rows = 0;
	double s = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if (*p != '#' && *p != 'i' && nl > p) { /* comments and the header "id,..." */
			const char *c = memchr(p, ',', (size_t)(nl - p));
			if (c) {
				char *q;
				s += strtod(c + 1, &q);
				if (*q == ',')
					s += strtod(q + 1, &q);
				rows++;
			}
		}
		p = nl + 1;
	}
	*sum = s;
	return rows;
}

struct ev {
	double t;
	uint32_t job, kind; /* kind 0 submit, 1 start, 2 end */
};

static void heap_push(struct ev *h, size_t *n, struct ev e)
{
	size_t i = (*n)++;
	while (i > 0 && h[(i - 1) / 2].t > e.t) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = e;
}

static struct ev heap_pop(struct ev *h, size_t *n)
{
	struct ev top = h[0], last = h[--*n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= *n)
			break;
		if (c + 1 < *n && h[c + 1].t < h[c].t)
			c++;
		if (h[c].t >= last.t)
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n)
		h[i] = last;
	return top;
}

/* 3 events a job: submits at a Poisson rate, each started on arrival and ended after
 * an exponential duration (mean 3600 s). Returns the events popped. */
static size_t heap_floor(size_t jobs)
{
	struct ev *h = malloc((jobs + 1) * sizeof *h);
	if (!h)
		return 0;
	size_t n = 0, popped = 0;
	uint64_t x = 88172645463325252ull;
	double t = 0;
	for (size_t j = 0; j < jobs; j++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		t += 1.8 * (double)(x >> 11) / 9007199254740992.0; /* mean gap 0.9 s */
		heap_push(h, &n, (struct ev){ t, (uint32_t)j, 0 });
	}
	while (n) {
		struct ev e = heap_pop(h, &n);
		popped++;
		if (e.kind == 0) {
			heap_push(h, &n, (struct ev){ e.t, e.job, 1 });
		} else if (e.kind == 1) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			double u = ((double)(x >> 11) + 0.5) / 9007199254740992.0;
			heap_push(h, &n, (struct ev){ e.t + 3600.0 * -__builtin_log(u), e.job, 2 });
		}
	}
	free(h);
	return popped;
}

/* Writes n bytes of buf as one contiguous uint8 dataset of a new file; 0 or -1. */
static int h5_floor(const char *path, const unsigned char *buf, size_t n)
{
	hsize_t dim = n;
	hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	hid_t sp = f >= 0 ? H5Screate_simple(1, &dim, NULL) : -1;
	hid_t d = sp >= 0 ? H5Dcreate2(f, "jobs", H5T_NATIVE_UCHAR, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
	int bad = d < 0 || H5Dwrite(d, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0;
	if (d >= 0)
		H5Dclose(d);
	if (sp >= 0)
		H5Sclose(sp);
	if (f >= 0)
		bad |= H5Fclose(f) < 0;
	return bad ? -1 : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: floors TRACE.csv [--jobs N] [--bytes B]\n");
		return 2;
	}
	size_t jobs = 0, bytes = 100u << 20;
	for (int i = 2; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--jobs") == 0)
			jobs = strtoull(argv[i + 1], NULL, 10);
		else if (strcmp(argv[i], "--bytes") == 0)
			bytes = strtoull(argv[i + 1], NULL, 10);
	}
	int fd = open(argv[1], O_RDONLY);
	struct stat sb;
	if (fd < 0 || fstat(fd, &sb) != 0 || sb.st_size == 0) {
		perror(argv[1]);
		return 1;
	}
	size_t len = (size_t)sb.st_size;
	const char *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	double t0 = now_s(), sum = 0;
	size_t rows = parse_floor(map, len, &sum);
	double tp = now_s() - t0;
	munmap((void *)map, len);
	printf("parse  %zu rows, %.1f MB in %.3f s: %.0f MB/s (checksum %.6g)\n", rows, (double)len / 1e6, tp,
	       (double)len / 1e6 / tp, sum);
	if (!jobs)
		jobs = rows;

	t0 = now_s();
	size_t ev = heap_floor(jobs);
	double th = now_s() - t0;
	printf("heap   %zu jobs, %zu events in %.3f s: %.1f ns an event\n", jobs, ev, th, th * 1e9 / (double)ev);

	t0 = now_s();
	unsigned char *ja = malloc(jobs * 256 + 1), *oa = malloc(jobs * 64 + 1);
	if (!ja || !oa)
		return 1;
	memset(ja, 0x5a, jobs * 256 + 1); /* not 0: malloc + memset 0 may become a calloc that touches nothing */
	memset(oa, 0x5a, jobs * 64 + 1);
	/* the arrays escape here, so the compiler keeps the allocation and the stores */
	__asm__ volatile("" : : "r"(ja), "r"(oa) : "memory");
	double tg = now_s() - t0;
	free(oa);
	free(ja);
	printf("pages  %.1f MB of fresh job and option arrays in %.3f s\n", (double)jobs * 320 / 1e6, tg);

	double *v = malloc((jobs + 1) * sizeof *v);
	if (!v)
		return 1;
	double ts = 0;
	for (int k = 0; k < 3; k++) {
		uint64_t x = 2463534242ull + (uint64_t)k;
		for (size_t i = 0; i < jobs; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			v[i] = (double)(x >> 11);
		}
		t0 = now_s();
		qsort(v, jobs, sizeof *v, cmp_double);
		ts += now_s() - t0;
	}
	free(v);
	printf("sort   3 x qsort of %zu doubles in %.3f s\n", jobs, ts);

	char path[4096];
	snprintf(path, sizeof path, "%s.floors.tmp", argv[1]);
	char *buf = calloc(1, 1 << 20);
	FILE *f = buf ? fopen(path, "wb") : NULL;
	if (!f) {
		perror(path);
		free(buf);
		return 1;
	}
	t0 = now_s();
	for (size_t done = 0; done < bytes; done += 1 << 20)
		fwrite(buf, 1, bytes - done < (1u << 20) ? bytes - done : 1u << 20, f);
	int bad = fclose(f) != 0;
	double tw = now_s() - t0;
	unlink(path);
	free(buf);
	printf("write  %.1f MB in %.3f s: %.0f MB/s%s\n", (double)bytes / 1e6, tw, (double)bytes / 1e6 / tw,
	       bad ? " (write failed)" : "");

	/* bytes that are not all zero, so no layer can skip them */
	unsigned char *big = malloc(bytes ? bytes : 1);
	if (!big)
		return 1;
	for (size_t i = 0; i < bytes; i++)
		big[i] = (unsigned char)(i * 2654435761u >> 13);
	snprintf(path, sizeof path, "%s.floors.h5.tmp", argv[1]);
	t0 = now_s();
	int hbad = h5_floor(path, big, bytes);
	double t5 = now_s() - t0;
	unlink(path);
	free(big);
	printf("h5     %.1f MB, one unfiltered dataset, in %.3f s: %.0f MB/s%s\n", (double)bytes / 1e6, t5,
	       (double)bytes / 1e6 / t5, hbad ? " (write failed)" : "");
	return bad || hbad;
}
