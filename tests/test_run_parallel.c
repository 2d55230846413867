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
#include <dirent.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../experiments/config.h"
#include "../experiments/runner.h"
#include "outtmp.h"
#include "testutil.h"

static int init_par(void) { return 0; }
static int clean_par(void) { return 0; }

/* ---- a whole-file comparison: every object, attribute and dataset's bytes ---- */

/* Attributes whose values are measured or clock-dependent, and the dimension scales'
 * links (schema 1.5), object references: file addresses, read raw as pointers
 * (test_export checks that the merged file's scales resolve). */
static int skipped_attr(const char *name)
{
	return strcmp(name, "wall_s") == 0 || strcmp(name, "created_utc") == 0 ||
	       strcmp(name, "DIMENSION_LIST") == 0 || strcmp(name, "REFERENCE_LIST") == 0;
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

/* Variable-length strings (attributes since schema 1.5) compared as strings: read in
 * their file type they are pointers. 1 same, 0 not, -1 not such strings. */
static int same_vlen_strings(hid_t a, hid_t b, int is_attr)
{
	hid_t ta = is_attr ? H5Aget_type(a) : H5Dget_type(a), tb = is_attr ? H5Aget_type(b) : H5Dget_type(b);
	int vl = H5Tis_variable_str(ta) > 0, same = -1;
	if (vl && H5Tis_variable_str(tb) > 0) {
		hid_t sa = is_attr ? H5Aget_space(a) : H5Dget_space(a), sb = is_attr ? H5Aget_space(b) : H5Dget_space(b);
		hssize_t na = H5Sget_simple_extent_npoints(sa), nb = H5Sget_simple_extent_npoints(sb);
		same = 0;
		if (na == nb && na >= 0) {
			char **va = calloc((size_t)na + 1, sizeof *va), **vb = calloc((size_t)na + 1, sizeof *vb);
			int ok = va && vb &&
				 (is_attr ? H5Aread(a, ta, va) >= 0 && H5Aread(b, tb, vb) >= 0 :
					    H5Dread(a, ta, H5S_ALL, H5S_ALL, H5P_DEFAULT, va) >= 0 &&
						    H5Dread(b, tb, H5S_ALL, H5S_ALL, H5P_DEFAULT, vb) >= 0);
			same = ok;
			for (hssize_t i = 0; ok && i < na; i++)
				same = same && va[i] && vb[i] && strcmp(va[i], vb[i]) == 0;
			if (ok) {
				H5Dvlen_reclaim(ta, sa, H5P_DEFAULT, va);
				H5Dvlen_reclaim(tb, sb, H5P_DEFAULT, vb);
			}
			free(va);
			free(vb);
		}
		H5Sclose(sa);
		H5Sclose(sb);
	} else if (vl) {
		same = 0;
	}
	H5Tclose(ta);
	H5Tclose(tb);
	return same;
}

static int same_raw(hid_t a, hid_t b, int is_attr)
{
	int vs = same_vlen_strings(a, b, is_attr);
	if (vs >= 0)
		return vs;
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

/* Complete parts NNNNNN.h5 of out's 6 runs. */
static int count_parts(const char *out)
{
	char path[700];
	int n = 0;
	for (int i = 0; i < 6; i++) {
		snprintf(path, sizeof path, "%s.parts/%06d.h5", out, i);
		n += tu_exists(path);
	}
	return n;
}

/* 1 when some complete part NNNNNN.h5 of out exists. */
static int some_part(const char *out)
{
	return count_parts(out) > 0;
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
	CU_ASSERT(!tu_exists(out));
	CU_ASSERT_EQUAL(count_out_tmps(out, NULL), 0);
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

/* Names in dir ending in ".tmp" (0 when dir does not exist). */
static int count_tmp_in(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		n += len > 4 && strcmp(e->d_name + len - 4, ".tmp") == 0;
	}
	closedir(d);
	return n;
}

/* Every temporary a run of OUT may make: OUT's (any name) and the parts' (none may
 * survive). */
static int count_tmp_of(const char *out)
{
	char path[700];
	snprintf(path, sizeof path, "%s.parts", out);
	return count_out_tmps(out, NULL) + count_tmp_in(path);
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
	char *txt = NULL, args[2048];
	CU_ASSERT_EQUAL(count_tmp_of(out), 0); /* SIGTERM removed the files being written */
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

/* ---- a full disk, simulated: RLIMIT_FSIZE makes writes past the limit fail ---- */

/* Runs gpusched run CFG -q -o OUT -j JOBS with every file it writes limited to
 * limit_bytes (writes past it fail with EFBIG, SIGXFSZ ignored, as a full disk's
 * fail with ENOSPC); its stderr goes to err_path. Returns the wait status. */
static int run_limited(const char *cfg, const char *out, const char *jobs, long limit_bytes, const char *err_path)
{
	pid_t pid = fork();
	if (pid == 0) {
		struct rlimit rl = { (rlim_t)limit_bytes, (rlim_t)limit_bytes };
		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &rl) || !freopen(err_path, "w", stderr))
			_exit(126);
		execl(GPUSCHED_BIN, GPUSCHED_BIN, "run", cfg, "-q", "-o", out, "-j", jobs, (char *)NULL);
		_exit(127);
	}
	int status = -1;
	waitpid(pid, &status, 0);
	return status;
}

static long file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* Parts fit under the limit, the merged file does not: the merge fails cleanly
 * (exit 1, no crash, the cause named, no OUT and no .tmp), with -j 1 and -j 2. */
static void test_full_disk_fails_cleanly(void)
{
	write_trace("full.csv", 3000);
	const char *cfg = write_sweep("full.json", "full.csv", 8);
	const char *ref = tmp_path("full-ref.h5");
	CU_ASSERT_EQUAL_FATAL(run_cmd(cfg, ref, "-j 1"), 0);
	long merged = file_size(ref);
	CU_ASSERT_FATAL(merged > 60000);
	const char *jobs[] = { "1", "2" };
	for (int k = 0; k < 2; k++) {
		char name[64];
		snprintf(name, sizeof name, "full-j%s.h5", jobs[k]);
		const char *out = tmp_path(name), *err = tmp_path("full.err");
		int status = run_limited(cfg, out, jobs[k], merged / 2, err);
		char *txt = tu_read_file(err, NULL);
		CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 1);
		CU_ASSERT(txt && strstr(txt, "file too large"));
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 1)
			fprintf(stderr, "-j %s: status %d:\n%s", jobs[k], status, txt ? txt : "");
		free(txt);
		CU_ASSERT(!tu_exists(out));
		CU_ASSERT_EQUAL(count_tmp_of(out), 0);
	}
}

/* ---- a killed parent takes its workers with it ---- */

/* The pids whose parent is ppid (from /proc), up to max; returns how many. */
static int children_of(pid_t ppid, pid_t *out, int max)
{
	DIR *d = opendir("/proc");
	if (!d)
		return 0;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) && n < max) {
		char path[300], buf[512];
		snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		size_t got = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
		buf[got] = 0;
		const char *close_paren = strrchr(buf, ')');
		int pp = 0;
		char state = 0;
		if (close_paren && sscanf(close_paren + 1, " %c %d", &state, &pp) == 2 && pp == ppid)
			out[n++] = (pid_t)atoi(e->d_name);
	}
	closedir(d);
	return n;
}

/* 1 while pid runs (a zombie no longer does: nobody may reap it here). */
static int alive(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t got = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[got] = 0;
	const char *close_paren = strrchr(buf, ')');
	return close_paren && close_paren[1] == ' ' && close_paren[2] != 'Z' && close_paren[2] != 'X';
}

/* Polls (up to limit_s) until f(arg) holds; returns whether it did. Generous limits:
 * what is checked is that it happens, not how fast. */
static int wait_until(int (*f)(const void *), const void *arg, double limit_s)
{
	struct timespec ms = { 0, 10000000 };
	for (double t = 0; t < limit_s; t += 0.01) {
		if (f(arg))
			return 1;
		nanosleep(&ms, NULL);
	}
	return f(arg);
}

struct pids {
	pid_t *v;
	int n;
};

static int none_alive(const void *arg)
{
	const struct pids *p = arg;
	for (int k = 0; k < p->n; k++)
		if (alive(p->v[k]))
			return 0;
	return 1;
}

static int has_part(const void *out)
{
	return some_part(out);
}


static void test_sigkill_parent_stops_workers(void)
{
	/* Runs long enough that each worker has more than one left when the first part
	 * is written: workers that outlived the parent would complete all six. */
	write_trace("orphan.csv", 100000);
	const char *cfg = write_sweep("orphan.json", "orphan.csv", 24);
	const char *ref = tmp_path("orphan-ref.h5"), *out = tmp_path("orphan.h5");
	CU_ASSERT_EQUAL_FATAL(run_cmd(cfg, ref, "-j 2"), 0);
	pid_t pid = spawn(cfg, out, "2");
	CU_ASSERT(wait_until(has_part, out, 60));
	pid_t kids[8];
	int n_kids = children_of(pid, kids, 8);
	kill(pid, SIGKILL);
	int status;
	waitpid(pid, &status, 0);
	int finished_first = WIFEXITED(status); /* the sweep beat the kill: nothing to test */
	CU_ASSERT(!finished_first);
	if (finished_first)
		return;
	CU_ASSERT(n_kids >= 2); /* the workers (and whatever else the sweep forked) */
	struct pids kp = { kids, n_kids };
	CU_ASSERT(wait_until(none_alive, &kp, 60));
	CU_ASSERT(count_parts(out) < 6);
	/* Nothing named .tmp survives the processes that wrote it. */
	CU_ASSERT_EQUAL(count_tmp_of(out), 0);
	char *txt = NULL, args[2048];
	snprintf(args, sizeof args, "run %s -o %s --no-progress -j 2 --resume", cfg, out);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 0);
	if (txt && !strstr(txt, "wrote "))
		fprintf(stderr, "%s", txt);
	free(txt);
	CU_ASSERT(h5_same(ref, out));
	CU_ASSERT_EQUAL(count_tmp_of(out), 0);
}

/* ---- a config of one run: written in place (experiments/runner.c) ---- */

/* A config of one run: fifo, seed 1, on nodes nodes of 8 GPUs. */
static const char *write_single(const char *name, const char *trace, int nodes)
{
	char buf[2048];
	snprintf(buf, sizeof buf,
		 "{\"name\": \"one\", \"trace\": {\"path\": \"%s\", \"format\": \"native\"},\n"
		 " \"cluster\": {\"flavors\": [{\"name\": \"v100\", \"nodes\": %d, \"node\": {\"gpu\": 8},\n"
		 "                \"speed\": 1.0, \"price_per_node_hour\": 24.0}]},\n"
		 " \"policies\": {\"order\": \"fifo\"}, \"seeds\": [1], \"output\": \"never.h5\"}\n",
		 trace, nodes);
	return tu_write_file(name, buf);
}

/* exp_run_config of cfg into out, through the part file and the merge (via_parts)
 * or in place; log: --log (NULL: none). Returns its result. */
static int run_api(const char *cfg_path, const char *out, const char *log, int via_parts)
{
	struct exp_run_opts opts = { .output = out, .quiet = 1, .log_path = log, .via_parts = via_parts };
	return tu_run_config_opts(cfg_path, &opts);
}

/* The stored bytes and filter masks of every chunk of every column of
 * /runs/RUN/jobs, concatenated in the columns' creation order (malloc'd; NULL when
 * the table cannot be read). */
static unsigned char *jobs_chunks(const char *path, const char *run, size_t *len)
{
	unsigned char *all = NULL;
	*len = 0;
	char gp[256];
	snprintf(gp, sizeof gp, "/runs/%s/jobs", run);
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	hid_t g = file >= 0 ? H5Gopen2(file, gp, H5P_DEFAULT) : -1;
	H5G_info_t gi;
	int ok = g >= 0 && H5Gget_info(g, &gi) >= 0 && gi.nlinks > 0;
	for (hsize_t k = 0; ok && k < gi.nlinks; k++) {
		char nm[64];
		H5Lget_name_by_idx(g, ".", H5_INDEX_CRT_ORDER, H5_ITER_INC, k, nm, sizeof nm, H5P_DEFAULT);
		hid_t d = H5Dopen2(g, nm, H5P_DEFAULT), sp = H5Dget_space(d);
		hsize_t nch = 0;
		ok = d >= 0 && H5Dget_num_chunks(d, sp, &nch) >= 0 && nch > 0;
		for (hsize_t c = 0; ok && c < nch; c++) {
			hsize_t off, size;
			unsigned mask;
			haddr_t addr;
			uint32_t fm = 0;
			unsigned char *grown = NULL;
			ok = H5Dget_chunk_info(d, sp, c, &off, &mask, &addr, &size) >= 0 &&
			     (grown = realloc(all, *len + size + sizeof fm)) != NULL;
			if (grown)
				all = grown;
			ok = ok && H5Dread_chunk(d, H5P_DEFAULT, &off, &fm, all + *len) >= 0;
			if (ok) {
				memcpy(all + *len + size, &fm, sizeof fm);
				*len += size + sizeof fm;
			}
		}
		H5Sclose(sp);
		H5Dclose(d);
	}
	if (g >= 0)
		H5Gclose(g);
	if (file >= 0)
		H5Fclose(file);
	if (!ok) {
		free(all);
		all = NULL;
	}
	return all;
}

/* One run written in place holds what the part path writes: every object,
 * attribute and value (h5_same), and the jobs columns' stored chunks byte for byte;
 * no parts folder is left; --log gives the same log. */
static void test_single_run_in_place_equals_parts(void)
{
	/* 40,000 jobs: the jobs columns are chunked (more than one chunk of 16,384 rows). */
	write_trace("one.csv", 40000);
	const char *cfg = write_single("one.json", "one.csv", 64);
	char in_place[512], parts[512], log_a[512], log_b[512], dir[600];
	snprintf(in_place, sizeof in_place, "%s", tmp_path("one-in-place.h5"));
	snprintf(parts, sizeof parts, "%s", tmp_path("one-parts.h5"));
	CU_ASSERT_EQUAL_FATAL(run_api(cfg, parts, NULL, 1), 0);
	CU_ASSERT_EQUAL_FATAL(run_api(cfg, in_place, NULL, 0), 0);
	CU_ASSERT(h5_same(parts, in_place));
	/* The CLI takes the in-place path too. */
	const char *cli = tmp_path("one-cli.h5");
	CU_ASSERT_EQUAL(run_cmd(cfg, cli, ""), 0);
	CU_ASSERT(h5_same(parts, cli));
	size_t la = 0, lb = 0;
	unsigned char *ca = jobs_chunks(parts, "fifo-s1", &la), *cb = jobs_chunks(in_place, "fifo-s1", &lb);
	/* 29 columns of 3 chunks each (40,000 rows), each chunk at least a few bytes. */
	CU_ASSERT(ca && cb && la > 29 * 3 * 8 && la == lb && memcmp(ca, cb, la) == 0);
	free(ca);
	free(cb);
	/* The one run: 40,000 jobs, one summary row; j0 (submitted at 0 s, 50 s long, 1
	 * GPU on an empty cluster) ran from 0 to 50 s. */
	struct tu_result r;
	tu_result_open(&r, in_place, "fifo-s1");
	CU_ASSERT_EQUAL(r.jobs.n, 40000);
	CU_ASSERT(r.sum.n_rows == 1 && strcmp(r.sum.run[0], "fifo-s1") == 0);
	int j0 = tu_job_row(&r.jobs, "j0");
	CU_ASSERT(j0 >= 0 && r.jobs.start_s[j0] == 0.0 && r.jobs.end_s[j0] == 50.0);
	tu_result_close(&r);
	snprintf(dir, sizeof dir, "%s.parts", in_place);
	CU_ASSERT(!tu_exists(dir));
	CU_ASSERT_EQUAL(count_tmp_of(in_place), 0);
	/* --log: the part's log joined as before. */
	snprintf(log_a, sizeof log_a, "%s", tmp_path("one-parts.log"));
	snprintf(log_b, sizeof log_b, "%s", tmp_path("one-in-place.log"));
	CU_ASSERT_EQUAL(run_api(cfg, parts, log_a, 1), 0);
	CU_ASSERT_EQUAL(run_api(cfg, in_place, log_b, 0), 0);
	CU_ASSERT(h5_same(parts, in_place));
	char *a = tu_read_file(log_a, NULL), *b = tu_read_file(log_b, NULL);
	/* One submit, start and finish line a job after the run's line. */
	size_t lines = 0;
	for (const char *p = b; p && *p; p++)
		lines += *p == '\n';
	CU_ASSERT(a && b && strcmp(a, b) == 0 && strncmp(b, "# run fifo-s1\n", 14) == 0);
	CU_ASSERT_EQUAL(lines, 1 + 3 * 40000);
	free(a);
	free(b);
	CU_ASSERT(!tu_exists(dir));
}

/* The temporary of a run written in place: the merge's own, OUT.parts/merged.h5.XXXXXX.tmp
 * (a part would be 000000.h5.XXXXXX.tmp), and no part file. */
static int in_place_tmp(const void *out)
{
	char dir[700];
	snprintf(dir, sizeof dir, "%s.parts", (const char *)out);
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	int merged = 0, part = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		merged |= strncmp(e->d_name, "merged.h5.", 10) == 0;
		part |= strncmp(e->d_name, "000000.", 7) == 0;
	}
	closedir(d);
	return merged && !part;
}

static int no_tmp_left(const void *out)
{
	return count_tmp_of(out) == 0;
}

/* A run written in place that fails or is stopped leaves no OUT, no temporary and
 * no parts folder: bad input (exit 2, before any output), a full disk (exit 1),
 * SIGTERM and SIGKILL while it runs (the guard's handler, the cleaner). */
static void test_single_run_failure_leaves_nothing(void)
{
	char dir[700], *txt = NULL, args[2048];
	/* Bad input: exit 2, nothing written. */
	write_trace("one-bad.csv", 40);
	const char *bad = tu_write_file("one-bad.json", "{\"name\": \"b\", \"trace\": {\"path\": \"one-bad.csv\"}, "
					"\"cluster\": {\"flavors\": [{\"name\": \"v100\", \"nodes\": 4, \"node\": "
					"{\"gpu\": 8}}]}, \"policies\": {\"order\": \"nope\"}, \"seeds\": [1]}\n");
	const char *out = tmp_path("one-bad.h5");
	snprintf(args, sizeof args, "run %s -q -o %s", bad, out);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 2);
	CU_ASSERT(txt && strstr(txt, "$.policies.order: expected one of") && strstr(txt, "got 'nope'"));
	free(txt);
	snprintf(dir, sizeof dir, "%s.parts", out);
	CU_ASSERT(!tu_exists(out));
	CU_ASSERT(!tu_exists(dir));
	/* A flavor the cluster lacks, found by the check that builds the run's stack
	 * (binding the trace): exit 2, located at the trace's line, nothing written. */
	tu_write_file("one-a100.csv", "id,submit_s,duration_s,queue,priority,request\n"
				      "j0,0,10,a,0,v100:gpu=1\nj1,5,10,a,0,a100:gpu=1\n");
	const char *other = write_single("one-a100.json", "one-a100.csv", 2);
	snprintf(args, sizeof args, "run %s -q -o %s", other, out);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 2);
	CU_ASSERT(txt && strstr(txt, "one-a100.csv:3") && strstr(txt, "a100"));
	if (txt && !strstr(txt, "one-a100.csv:3"))
		fprintf(stderr, "%s", txt);
	free(txt);
	CU_ASSERT(!tu_exists(out));
	CU_ASSERT(!tu_exists(dir));

	/* A full disk: the file does not fit. */
	write_trace("one-full.csv", 3000);
	const char *cfg = write_single("one-full.json", "one-full.csv", 8);
	const char *ref = tmp_path("one-full-ref.h5");
	CU_ASSERT_EQUAL_FATAL(run_cmd(cfg, ref, ""), 0);
	long size = file_size(ref);
	CU_ASSERT_FATAL(size > 30000);
	out = tmp_path("one-full.h5");
	const char *err = tmp_path("one-full.err");
	int status = run_limited(cfg, out, "1", size / 2, err);
	txt = tu_read_file(err, NULL);
	/* It fails with the cause named, exit 1, no crash: the file whose close failed is
	 * not closed again by the HDF5 library at exit (sim/h5out.h, h5out_library_end). */
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 1);
	if (!WIFEXITED(status))
		fprintf(stderr, "one run, full disk: status %d\n", status);
	CU_ASSERT(txt && strstr(txt, "file too large"));
	free(txt);
	snprintf(dir, sizeof dir, "%s.parts", out);
	CU_ASSERT(!tu_exists(out));
	CU_ASSERT_EQUAL(count_tmp_of(out), 0);
	CU_ASSERT(!tu_exists(dir));

	/* Stopped while it runs: its temporary exists from the start of the run. */
	write_trace("one-long.csv", 100000);
	cfg = write_single("one-long.json", "one-long.csv", 24);
	const int sigs[] = { SIGTERM, SIGKILL };
	for (int k = 0; k < 2; k++) {
		char name[64];
		snprintf(name, sizeof name, "one-long-%d.h5", sigs[k]);
		out = tmp_path(name);
		pid_t pid = spawn(cfg, out, "1");
		CU_ASSERT(wait_until(in_place_tmp, out, 60));
		kill(pid, sigs[k]);
		waitpid(pid, &status, 0);
		int finished_first = WIFEXITED(status); /* the run beat the signal: nothing to test */
		CU_ASSERT(!finished_first);
		if (finished_first)
			continue;
		CU_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == sigs[k]);
		/* After SIGKILL the cleaner removes it once the run is gone. */
		CU_ASSERT(wait_until(no_tmp_left, out, 60));
		CU_ASSERT(!tu_exists(out));
	}
}

static CU_TestInfo run_parallel_tests[] = {
	{ "test_single_run_in_place_equals_parts", test_single_run_in_place_equals_parts },
	{ "test_single_run_failure_leaves_nothing", test_single_run_failure_leaves_nothing },
	{ "test_full_disk_fails_cleanly", test_full_disk_fails_cleanly },
	{ "test_sigkill_parent_stops_workers", test_sigkill_parent_stops_workers },
	{ "test_j3_equals_j1", test_j3_equals_j1 },
	{ "test_resume_after_sigkill", test_resume_after_sigkill },
	{ "test_resume_refuses_other_config", test_resume_refuses_other_config },
	{ "test_exit_codes", test_exit_codes },
	{ "test_mpirun_equals_j1", test_mpirun_equals_j1 },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo run_parallel_suite = { "run_parallel", init_par, clean_par, NULL, NULL, run_parallel_tests };
