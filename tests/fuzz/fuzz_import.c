/* tests/fuzz/fuzz_import.c: the importer targets' shared body (fuzz_import.h). */
#include "fuzz_import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "sim/job.h"
#include "traces/import.h"
#include "traces/native.h"

/* The importer's output must be a trace the native reader accepts, with the job
 * count the importer reported: `gpusched run` reads exactly this file. */
static void check_output(const char *format, const char *out, const struct trace_import_result *res)
{
	struct sim_diag d;
	struct sim_trace *t = NULL;
	sim_diag_init(&d, 5);
	int rc = trace_native_read(out, &t, &d);
	if (rc || t->n_jobs != res->rows_written) {
		fprintf(stderr, "fuzz_import %s: output does not read back (rc %d, %zu rows written, %zu read)\n",
			format, rc, res->rows_written, t ? t->n_jobs : 0);
		sim_diag_print(&d, stderr);
		abort();
	}
	sim_trace_destroy(t);
	sim_diag_fini(&d);
}

static void import(const char *format, const char *in, const struct trace_import_opts *opts)
{
	char out[512], tmp[520];
	struct trace_import_result res;
	struct sim_diag d;
	memset(&res, 0, sizeof res);
	sim_diag_init(&d, 20);
	fuzz_path("out.csv", out, sizeof out);
	int rc = trace_import(format, in, out, opts, &res, &d);
	if (rc == 0)
		check_output(format, out, &res);
	else if (access(out, F_OK) == 0) {
		/* import.h: "nothing is left on error". */
		fprintf(stderr, "fuzz_import %s: failed with %d but left %s\n", format, rc, out);
		abort();
	}
	snprintf(tmp, sizeof tmp, "%s.tmp", out);
	if (access(tmp, F_OK) == 0) {
		fprintf(stderr, "fuzz_import %s: left %s behind (rc %d)\n", format, tmp, rc);
		abort();
	}
	unlink(out);
	sim_diag_fini(&d);
}

void fuzz_import_one(const char *format, const char *in_name, const uint8_t *data, size_t size)
{
	char in[512];
	snprintf(in, sizeof in, "%s", fuzz_write(in_name, data, size));
	struct trace_import_opts strict = { 0 };
	import(format, in, &strict);
	struct trace_import_opts skip = {
		.skip_bad = 1,
		.top_queues = size % 3,
		.queue_from = (enum trace_queue_from)(size % 4),
	};
	import(format, in, &skip);
}
