/* tests/test_run_parallel.c: gpusched run -j N, --resume and MPI (experiments/parallel.h):
 * the merged file equals a -j 1 run in every dataset and attribute (the measured
 * wall_s and created_utc aside), a sweep killed with SIGKILL leaves no OUT.h5 and
 * no half-written file and --resume completes it identically, parts of another
 * config are refused, exit codes. */
#include <CUnit/CUnit.h>
#include <hdf5.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

static int init_par(void) { return 0; }
static int clean_par(void) { return 0; }

/* ---- a whole-file comparison: every object, attribute and dataset's bytes ---- */

/* Attributes whose values are measured or clock-dependent. */
static int skipped_attr(const char *name)
{
	return strcmp(name, "wall_s") == 0 || strcmp(name, "created_utc") == 0;
}

struct cmp {
	hid_t other;  /* file compared against */
	int diffs;    /* differences found */
	size_t objects;
};

static void note(struct cmp *c, const char *obj, const char *what)
{
	if (c->diffs++ < 5)
		fprintf(stderr, "h5 compare: %s: %s\n", obj, what);
}

/* Reads an attribute or dataset in its file type into a fresh buffer. */
static void *read_raw(hid_t obj, int is_attr, hid_t *type_out, size_t *bytes_out)
{
	hid_t t = is_attr ? H5Aget_type(obj) : H5Dget_type(obj);
	hid_t s = is_attr ? H5Aget_space(obj) : H5Dget_space(obj);
	hssize_t n = H5Sget_simple_extent_npoints(s);
	size_t bytes = (size_t)(n > 0 ? n : 0) * H5Tget_size(t);
	void *buf = calloc(1, bytes ? bytes : 1);
	if (buf && bytes && (is_attr ? H5Aread(obj, t, buf) : H5Dread(obj, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf)) < 0) {
		free(buf);
		buf = NULL;
	}
	H5Sclose(s);
	*type_out = t;
	*bytes_out = bytes;
	return buf;
}

static int same_raw(hid_t a, hid_t b, int is_attr)
{
	hid_t ta, tb;
	size_t na, nb;
	void *ba = read_raw(a, is_attr, &ta, &na), *bb = read_raw(b, is_attr, &tb, &nb);
	int same = ba && bb && H5Tequal(ta, tb) > 0 && na == nb && memcmp(ba, bb, na) == 0;
	free(ba);
	free(bb);
	H5Tclose(ta);
	H5Tclose(tb);
	return same;
}

static void compare_attrs(struct cmp *c, hid_t a, hid_t b, const char *obj)
{
	H5O_info_t ia, ib;
	H5Oget_info2(a, &ia, H5O_INFO_NUM_ATTRS);
	H5Oget_info2(b, &ib, H5O_INFO_NUM_ATTRS);
	if (ia.num_attrs != ib.num_attrs)
		note(c, obj, "different number of attributes");
	for (hsize_t k = 0; k < ia.num_attrs; k++) {
		char name[256];
		H5Aget_name_by_idx(a, ".", H5_INDEX_NAME, H5_ITER_INC, k, name, sizeof name, H5P_DEFAULT);
		if (skipped_attr(name))
			continue;
		hid_t xa = H5Aopen(a, name, H5P_DEFAULT);
		hid_t xb = H5Aexists(b, name) > 0 ? H5Aopen(b, name, H5P_DEFAULT) : -1;
		if (xb < 0 || !same_raw(xa, xb, 1))
			note(c, obj, name);
		H5Aclose(xa);
		if (xb >= 0)
			H5Aclose(xb);
	}
}

static herr_t visit_one(hid_t root, const char *name, const H5O_info_t *info, void *arg)
{
	struct cmp *c = arg;
	c->objects++;
	hid_t a = H5Oopen(root, name, H5P_DEFAULT);
	hid_t b = H5Oopen(c->other, name, H5P_DEFAULT);
	if (b < 0) {
		note(c, name, "missing in the other file");
	} else {
		compare_attrs(c, a, b, name);
		if (info->type == H5O_TYPE_DATASET && !same_raw(a, b, 0))
			note(c, name, "dataset differs");
		if (info->type == H5O_TYPE_GROUP) {
			H5G_info_t ga, gb;
			H5Gget_info(a, &ga);
			H5Gget_info(b, &gb);
			if (ga.nlinks != gb.nlinks)
				note(c, name, "different number of members");
			/* Creation order (the order runs were written) must match too. */
			for (hsize_t k = 0; k < ga.nlinks && k < gb.nlinks; k++) {
				char la[256] = "", lb[256] = "";
				H5_index_t idx = H5_INDEX_CRT_ORDER; /* where tracked, else by name */
				if (H5Lget_name_by_idx(a, ".", idx, H5_ITER_INC, k, la, sizeof la, H5P_DEFAULT) < 0)
					idx = H5_INDEX_NAME;
				H5Lget_name_by_idx(a, ".", idx, H5_ITER_INC, k, la, sizeof la, H5P_DEFAULT);
				H5Lget_name_by_idx(b, ".", idx, H5_ITER_INC, k, lb, sizeof lb, H5P_DEFAULT);
				if (strcmp(la, lb))
					note(c, name, "members differ");
			}
		}
		H5Oclose(b);
	}
	H5Oclose(a);
	return 0;
}

/* 1 if both files hold the same objects, attributes and data (both ways). */
static int h5_same(const char *pa, const char *pb)
{
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	hid_t fa = H5Fopen(pa, H5F_ACC_RDONLY, H5P_DEFAULT), fb = H5Fopen(pb, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (fa < 0 || fb < 0) {
		fprintf(stderr, "h5 compare: cannot open %s or %s\n", pa, pb);
		return 0;
	}
	struct cmp ab = { .other = fb }, ba = { .other = fa };
	H5Ovisit2(fa, H5_INDEX_NAME, H5_ITER_INC, visit_one, &ab, H5O_INFO_BASIC);
	H5Ovisit2(fb, H5_INDEX_NAME, H5_ITER_INC, visit_one, &ba, H5O_INFO_BASIC);
	H5Fclose(fa);
	H5Fclose(fb);
	return ab.diffs == 0 && ba.diffs == 0 && ab.objects > 5 && ab.objects == ba.objects;
}

/* ---- fixtures ---- */

/* A trace of n jobs on 8-GPU nodes (a mix of sizes and lengths, two queues). */
static void write_trace(const char *name, int n)
{
	size_t cap = (size_t)n * 48 + 128;
	char *buf = malloc(cap), *p = buf;
	p += sprintf(p, "id,submit_s,duration_s,queue,priority,request\n");
	for (int i = 0; i < n; i++)
		p += sprintf(p, "j%d,%d,%d,%c,%d,v100:gpu=%d\n", i, i * 7, 50 + (i * 37) % 900, 'a' + i % 2, i % 3,
			     1 << (i % 4));
	tu_write_file(name, buf);
	free(buf);
}

/* A sweep of 3 order policies x 2 seeds = 6 runs. */
static const char *write_sweep(const char *name, const char *trace, int nodes)
{
	char buf[2048];
	snprintf(buf, sizeof buf,
		 "{\"name\": \"par\", \"trace\": {\"path\": \"%s\", \"format\": \"native\"},\n"
		 " \"cluster\": {\"flavors\": [{\"name\": \"v100\", \"nodes\": %d, \"node\": {\"gpu\": 8},\n"
		 "                \"speed\": 1.0, \"price_per_node_hour\": 24.0}]},\n"
		 " \"policies\": {\"order\": \"fifo\"}, \"seeds\": [1, 2], \"output\": \"never.h5\",\n"
		 " \"sweep\": {\"policies.order\": [\"fifo\", \"priority\", \"easy_backfill\"]}}\n",
		 trace, nodes);
	return tu_write_file(name, buf);
}

static const char *tmp_path(const char *name)
{
	static char buf[4][512];
	static int slot;
	char *p = buf[slot++ % 4];
	snprintf(p, 512, "%s/%s", tu_tmpdir(), name);
	return p;
}

/* gpusched run CFG -q -o OUT EXTRA; prints the output on failure. */
static int run_cmd(const char *cfg, const char *out, const char *extra)
{
	char args[4096];
	snprintf(args, sizeof args, "run %s -q -o %s %s", cfg, out, extra);
	char *txt = NULL;
	int rc = tu_run_gpusched(args, &txt);
	if (rc && txt)
		fprintf(stderr, "gpusched %s:\n%s", args, txt);
	free(txt);
	return rc;
}

/* ---- tests ---- */

static void test_j3_equals_j1(void)
{
	write_trace("small.csv", 300);
	const char *cfg = write_sweep("small.json", "small.csv", 4);
	const char *o1 = tmp_path("j1.h5"), *o3 = tmp_path("j3.h5");
	CU_ASSERT_EQUAL(run_cmd(cfg, o1, "-j 1"), 0);
	CU_ASSERT_EQUAL(run_cmd(cfg, o3, "-j 3"), 0);
	CU_ASSERT(h5_same(o1, o3));
	char parts[600];
	snprintf(parts, sizeof parts, "%s.parts", o3);
	CU_ASSERT(!tu_exists(parts)); /* removed after the merge */
	/* --log: the same event log whatever -j. */
	const char *l1 = tmp_path("j1.log"), *l3 = tmp_path("j3.log");
	char extra[600];
	snprintf(extra, sizeof extra, "-j 1 --log %s", l1);
	CU_ASSERT_EQUAL(run_cmd(cfg, o1, extra), 0);
	snprintf(extra, sizeof extra, "-j 3 --log %s", l3);
	CU_ASSERT_EQUAL(run_cmd(cfg, o3, extra), 0);
	char *a = tu_read_file(l1, NULL), *b = tu_read_file(l3, NULL);
	CU_ASSERT(a && b && strlen(a) > 1000 && strcmp(a, b) == 0);
	CU_ASSERT(a && strncmp(a, "# run fifo-s1\n", 14) == 0);
	free(a);
	free(b);
}

/* Starts gpusched in the background; returns its pid. */
static pid_t spawn(const char *cfg, const char *out, const char *jobs)
{
	pid_t pid = fork();
	if (pid == 0) {
		freopen("/dev/null", "w", stderr);
		execl(GPUSCHED_BIN, GPUSCHED_BIN, "run", cfg, "-q", "-o", out, "-j", jobs, (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* 1 when some complete part NNNNNN.h5 of out exists. */
static int some_part(const char *out)
{
	char path[700];
	for (int i = 0; i < 6; i++) {
		snprintf(path, sizeof path, "%s.parts/%06d.h5", out, i);
		if (tu_exists(path))
			return 1;
	}
	return 0;
}

static void test_resume_after_sigkill(void)
{
	write_trace("big.csv", 20000);
	const char *cfg = write_sweep("big.json", "big.csv", 24);
	const char *ref = tmp_path("ref.h5"), *out = tmp_path("killed.h5");
	CU_ASSERT_EQUAL(run_cmd(cfg, ref, "-j 2"), 0);
	pid_t pid = spawn(cfg, out, "1");
	struct timespec ms = { 0, 5000000 };
	for (int k = 0; k < 6000 && !some_part(out); k++) /* up to 30 s */
		nanosleep(&ms, NULL);
	CU_ASSERT(some_part(out));
	kill(pid, SIGKILL);
	int status;
	waitpid(pid, &status, 0);
	int finished_first = WIFEXITED(status); /* the sweep beat the kill: nothing to test */
	CU_ASSERT(!finished_first);
	if (finished_first)
		return;
	char tmp[700];
	snprintf(tmp, sizeof tmp, "%s.tmp", out);
	CU_ASSERT(!tu_exists(out));
	CU_ASSERT(!tu_exists(tmp));
	/* Every complete part opens as HDF5. */
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	for (int i = 0; i < 6; i++) {
		snprintf(tmp, sizeof tmp, "%s.parts/%06d.h5", out, i);
		if (!tu_exists(tmp))
			continue;
		hid_t f = H5Fopen(tmp, H5F_ACC_RDONLY, H5P_DEFAULT);
		CU_ASSERT(f >= 0);
		if (f >= 0)
			H5Fclose(f);
	}
	char *txt = NULL, args[2048];
	snprintf(args, sizeof args, "run %s -o %s --no-progress -j 2 --resume", cfg, out);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 0);
	CU_ASSERT(txt && strstr(txt, "resuming: "));
	free(txt);
	CU_ASSERT(h5_same(ref, out));
	snprintf(tmp, sizeof tmp, "%s.parts", out);
	CU_ASSERT(!tu_exists(tmp));
}

/* Leaves a parts folder of cfg for out: a run stopped by SIGTERM after its first part. */
static void leave_parts(const char *cfg, const char *out)
{
	pid_t pid = spawn(cfg, out, "1");
	struct timespec ms = { 0, 5000000 };
	for (int k = 0; k < 6000 && !some_part(out); k++)
		nanosleep(&ms, NULL);
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
}

static void test_resume_refuses_other_config(void)
{
	write_trace("mid.csv", 20000);
	const char *cfg = write_sweep("mid.json", "mid.csv", 24);
	const char *other = write_sweep("other.json", "mid.csv", 25);
	const char *out = tmp_path("mixed.h5");
	leave_parts(cfg, out);
	char tmp[700], *txt = NULL, args[2048];
	snprintf(tmp, sizeof tmp, "%s.tmp", out);
	CU_ASSERT(!tu_exists(tmp)); /* SIGTERM removed the file being written */
	for (int i = 0; i < 6; i++) {
		snprintf(tmp, sizeof tmp, "%s.parts/%06d.h5.tmp", out, i);
		CU_ASSERT(!tu_exists(tmp));
	}
	snprintf(args, sizeof args, "run %s -q -o %s --resume", other, out);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 2);
	CU_ASSERT(txt && strstr(txt, "different config"));
	free(txt);
	CU_ASSERT(!tu_exists(out));
	/* Without --resume the old parts are dropped and the run starts over. */
	CU_ASSERT_EQUAL(run_cmd(other, out, "-j 2"), 0);
	CU_ASSERT(tu_exists(out));
	/* The comparison used above does see a difference (another cluster size). */
	const char *ref = tmp_path("mid-ref.h5");
	CU_ASSERT_EQUAL(run_cmd(cfg, ref, "-j 2"), 0);
	fprintf(stderr, "(differences expected below)\n");
	CU_ASSERT(!h5_same(ref, out));
}

/* mpirun -np 3: rank 0 gathers the other ranks' parts; the file equals -j 1's. */
static void test_mpirun_equals_j1(void)
{
#ifdef MPIEXEC_BIN
	write_trace("mpi.csv", 300);
	const char *cfg = write_sweep("mpi.json", "mpi.csv", 4);
	const char *o1 = tmp_path("mpi-j1.h5"), *on = tmp_path("mpi-np3.h5"), *l1 = tmp_path("mpi-j1.log"),
		   *ln = tmp_path("mpi-np3.log");
	char extra[700], cmd[4096];
	snprintf(extra, sizeof extra, "--log %s", l1);
	CU_ASSERT_EQUAL(run_cmd(cfg, o1, extra), 0);
	/* Leak checks are for gpusched, not for the MPI library's own allocations. */
	snprintf(cmd, sizeof cmd,
		 "ASAN_OPTIONS=detect_leaks=0 %s --allow-run-as-root --oversubscribe -np 3 %s run %s -q -o %s "
		 "--log %s 2>&1",
		 MPIEXEC_BIN, GPUSCHED_BIN, cfg, on, ln);
	int rc = system(cmd);
	CU_ASSERT(rc == 0);
	CU_ASSERT(h5_same(o1, on));
	char *a = tu_read_file(l1, NULL), *b = tu_read_file(ln, NULL);
	CU_ASSERT(a && b && strcmp(a, b) == 0);
	free(a);
	free(b);
	char parts[700];
	snprintf(parts, sizeof parts, "%s.parts", on);
	CU_ASSERT(!tu_exists(parts));
#endif
}

static void test_exit_codes(void)
{
	write_trace("tiny.csv", 40);
	const char *cfg = write_sweep("tiny.json", "tiny.csv", 4);
	const char *out = tmp_path("tiny.h5");
	char *txt = NULL, args[2048];
	snprintf(args, sizeof args, "run %s -q -o %s -j x", cfg, out);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 2);
	CU_ASSERT(txt && strstr(txt, "-j: expected"));
	free(txt);
	/* Bad input is found before any worker starts: exit 2, no file, no parts. */
	const char *bad = tu_write_file("bad.json", "{\"name\": \"b\", \"trace\": {\"path\": \"tiny.csv\", "
					"\"format\": \"native\"}, \"cluster\": {\"flavors\": [{\"name\": \"v100\", "
					"\"nodes\": 4, \"node\": {\"gpu\": 8}}]}, \"policies\": {\"order\": \"nope\"}, "
					"\"seeds\": [1, 2], \"output\": \"x.h5\"}\n");
	snprintf(args, sizeof args, "run %s -q -o %s -j 3", bad, out);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 2);
	CU_ASSERT(txt && strstr(txt, "nope"));
	free(txt);
	char parts[700];
	snprintf(parts, sizeof parts, "%s.parts", out);
	CU_ASSERT(!tu_exists(out));
	CU_ASSERT(!tu_exists(parts));
	/* -j 0: one worker a CPU; --resume with nothing to resume runs everything. */
	CU_ASSERT_EQUAL(run_cmd(cfg, out, "-j 0 --resume"), 0);
	CU_ASSERT(tu_exists(out));
	CU_ASSERT(!tu_exists(parts));
}

static CU_TestInfo run_parallel_tests[] = {
	{ "test_j3_equals_j1", test_j3_equals_j1 },
	{ "test_resume_after_sigkill", test_resume_after_sigkill },
	{ "test_resume_refuses_other_config", test_resume_refuses_other_config },
	{ "test_exit_codes", test_exit_codes },
	{ "test_mpirun_equals_j1", test_mpirun_equals_j1 },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo run_parallel_suite = { "run_parallel", init_par, clean_par, NULL, NULL, run_parallel_tests };
