/* tests/fuzz/fuzz_gen.c: the generator config (traces/gen.c), `gpusched trace gen`.
 *
 * A config that parses is run for at most GEN_FUZZ_JOBS jobs (the config's own count
 * or span could ask for a billion), written as native CSV into memory, and that text
 * must read back as a native trace with as many jobs as were written: the generator's
 * output is an input of `gpusched run`. Relative durations.trace paths resolve in the
 * scratch folder, which holds one small native trace, trace.csv, so the empirical law
 * is reachable (corpus/gen/empirical.json names it); inputs naming /dev, /proc or /sys
 * are skipped (fuzz_util.h). */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_util.h"
#include "sim/job.h"
#include "traces/gen.h"
#include "traces/native.h"

#define GEN_FUZZ_JOBS 64

static const char source_trace[] = "id,submit_s,duration_s,request\n"
				   "a,0,30,*:gpu=1\n"
				   "b,5,3600.5,*:gpu=8\n"
				   "c,9,0.001,*:gpu=2\n";

static void check_output(const char *buf, size_t len, uint64_t n_jobs)
{
	struct sim_diag d;
	struct sim_trace *t = NULL;
	sim_diag_init(&d, 5);
	int rc = trace_native_parse("gen-output", buf, len, &t, &d);
	if (rc || t->n_jobs != n_jobs) {
		fprintf(stderr, "fuzz_gen: output does not read back (rc %d, %llu jobs written):\n%.*s\n", rc,
			(unsigned long long)n_jobs, (int)(len > 4000 ? 4000 : len), buf);
		sim_diag_print(&d, stderr);
		abort();
	}
	sim_trace_destroy(t);
	sim_diag_fini(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int wrote_source;
	if (!wrote_source) {
		fuzz_write("trace.csv", (const uint8_t *)source_trace, sizeof source_trace - 1);
		wrote_source = 1;
	}
	if (fuzz_names_device(data, size))
		return 0;
	char *text = fuzz_text(data, size);
	struct sim_diag d;
	struct gen_config *cfg = NULL;
	sim_diag_init(&d, 20);
	if (gen_config_parse("fuzz.json", fuzz_dir(), text, size, &cfg, &d) == 0) {
		if (!cfg->jobs || cfg->jobs > GEN_FUZZ_JOBS)
			cfg->jobs = GEN_FUZZ_JOBS;
		char *buf = NULL;
		size_t len = 0;
		uint64_t n = 0;
		FILE *f = open_memstream(&buf, &len);
		if (!f)
			abort();
		int rc = gen_write(cfg, f, &n, &d);
		if (fclose(f) != 0)
			abort();
		if (rc == 0)
			check_output(buf, len, n);
		free(buf);
		gen_config_destroy(cfg);
	}
	sim_diag_fini(&d);
	free(text);
	return 0;
}
