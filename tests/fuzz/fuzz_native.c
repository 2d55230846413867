/* tests/fuzz/fuzz_native.c: the native CSV trace reader (traces/native.c).
 *
 * Parses the input from memory; a trace that parses is written back with
 * trace_native_write and parsed again, which must succeed with the same job count (the
 * writer's output is what every importer and the generator produce, so the reader
 * must accept all of it). The input is also parsed with the fast pass split in two
 * halves on two threads (trace_native_set_split_min(0)), which must give the same
 * result: the same return code and messages, and a trace equal byte for byte. A
 * mismatch aborts, which libFuzzer reports as a crash.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "sim/job.h"
#include "traces/native.h"

/* The written trace parsed again; aborts when it does not read back. */
static void round_trip(const struct sim_trace *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		abort();
	int wrc = trace_native_write(t, f);
	if (fclose(f) != 0)
		abort();
	if (wrc == 0) {
		struct sim_diag d;
		struct sim_trace *back = NULL;
		sim_diag_init(&d, 5);
		int rc = trace_native_parse("round-trip", buf, len, &back, &d);
		if (rc || back->n_jobs != t->n_jobs) {
			fprintf(stderr, "fuzz_native: written trace does not read back (rc %d, %zu jobs in):\n%.*s\n",
				rc, t->n_jobs, (int)(len > 4000 ? 4000 : len), buf);
			sim_diag_print(&d, stderr);
			abort();
		}
		sim_trace_destroy(back);
		sim_diag_fini(&d);
	}
	free(buf);
}

static int names_equal(char **a, size_t na, char **b, size_t nb)
{
	if (na != nb)
		return 0;
	for (size_t i = 0; i < na; i++)
		if (strcmp(a[i], b[i]) != 0)
			return 0;
	return 1;
}

/* The serial parse (rc, t, d) against the split one of the same bytes. */
static void same_when_split(const uint8_t *data, size_t size, int rc, const struct sim_trace *t,
			    const struct sim_diag *d)
{
	struct sim_diag d2;
	struct sim_trace *u = NULL;
	sim_diag_init(&d2, 20);
	trace_native_set_split_min(0);
	int rc2 = trace_native_parse("fuzz.csv", (const char *)data, size, &u, &d2);
	trace_native_set_split_min((size_t)4 << 20);
	int same = rc2 == rc && d2.count == d->count;
	for (size_t i = 0; same && i < d->count && i < d->limit; i++)
		same = strcmp(d->lines[i], d2.lines[i]) == 0;
	if (same && rc == 0)
		same = u->n_jobs == t->n_jobs && u->n_opts == t->n_opts && u->strings_len == t->strings_len &&
		       memcmp(u->jobs, t->jobs, t->n_jobs * sizeof *t->jobs) == 0 &&
		       memcmp(u->opts, t->opts, t->n_opts * sizeof *t->opts) == 0 &&
		       memcmp(u->strings, t->strings, t->strings_len) == 0 &&
		       names_equal(u->queues, u->n_queues, t->queues, t->n_queues) &&
		       names_equal(u->users, u->n_users, t->users, t->n_users) &&
		       names_equal(u->flavors, u->n_flavors, t->flavors, t->n_flavors) && u->res.n == t->res.n;
	for (int k = 0; same && rc == 0 && k < t->res.n; k++)
		same = strcmp(u->res.names[k], t->res.names[k]) == 0;
	if (!same) {
		fprintf(stderr, "fuzz_native: the split parse differs (rc %d against %d)\n", rc2, rc);
		abort();
	}
	sim_trace_destroy(u);
	sim_diag_fini(&d2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sim_diag d;
	struct sim_trace *t = NULL;
	sim_diag_init(&d, 20);
	trace_native_set_split_min(SIZE_MAX);
	int rc = trace_native_parse("fuzz.csv", (const char *)data, size, &t, &d);
	trace_native_set_split_min((size_t)4 << 20);
	same_when_split(data, size, rc, t, &d);
	if (rc == 0) {
		round_trip(t);
		sim_trace_destroy(t);
	}
	sim_diag_fini(&d);
	return 0;
}
