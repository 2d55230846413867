/* analysis/h5read.c: the results-file reader (see h5read.h).
 *
 * HDF5 is in return-code mode; every hid_t / herr_t is checked. Compound tables are
 * read through a memory type built from the fields this reader knows, matched by
 * name, so HDF5 converts types and skips fields it does not know. The job table is
 * read in blocks of READ_BLOCK_ROWS rows, so memory is the columns plus one block.
 */
#include "h5read.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <hdf5.h>

#include "../sim/h5diag.h"

#define READ_BLOCK_ROWS 65536u
#define N_ROOT_ATTRS 8

static const char *const root_attr_names[N_ROOT_ATTRS] = {
	"schema_version", "software", "software_version", "created_utc", "experiment_json", "config_path",
	"mode", "backend", /* 1.4 */
};

struct h5read_file {
	char *path;
	hid_t file;
	char *root_attr[N_ROOT_ATTRS]; /* NULL when absent */
	char **runs;                   /* run names, creation order */
	size_t n_runs, cap_runs;
};

/* ---- small helpers ---- */

static char *dup_n(const char *s, size_t n)
{
	char *p = malloc(n + 1);
	if (p) {
		memcpy(p, s, n);
		p[n] = 0;
	}
	return p;
}

static char *dup_str(const char *s)
{
	return dup_n(s, strlen(s));
}

/* Adds "where: what (HDF5: innermost message)" and returns -SIM_EPARSE. The reader
 * only reads, and only a file that exists, is a regular file and starts with the
 * HDF5 signature gets this far; so an HDF5 failure means the file is truncated,
 * damaged or not laid out as gpusched writes it: bad input (exit 2), not a runtime
 * failure. */
static int h5err(struct sim_diag *diag, const char *where, const char *what)
{
	sim_h5_diag(diag, where, what);
	return -SIM_EPARSE;
}

/* Reads a 1-D string array attribute into a NULL-terminated array. 0, 1 absent, -1 error. */
static int read_str_array_attr(hid_t obj, const char *name, char ***out, size_t *n_out)
{
	htri_t ex = H5Aexists(obj, name);
	if (ex == 0)
		return 1;
	if (ex < 0)
		return -1;
	hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
	if (a < 0)
		return -1;
	int r = -1;
	hid_t ft = H5Aget_type(a), sp = H5Aget_space(a), mt = H5Tcopy(H5T_C_S1);
	if (ft < 0 || sp < 0 || mt < 0 || H5Tget_class(ft) != H5T_STRING || H5Tset_cset(mt, H5Tget_cset(ft)) < 0)
		goto out_close;
	hssize_t np = H5Sget_simple_extent_npoints(sp);
	if (np < 0)
		goto out_close;
	size_t n = (size_t)np;
	char **res = calloc(n + 1, sizeof *res);
	if (!res)
		goto out_close;
	htri_t vl = H5Tis_variable_str(ft);
	if (vl > 0) {
		char **p = calloc(n ? n : 1, sizeof *p);
		if (p && H5Tset_size(mt, H5T_VARIABLE) >= 0 && H5Aread(a, mt, p) >= 0) {
			r = 0;
			for (size_t i = 0; i < n; i++)
				if (!(res[i] = dup_str(p[i] ? p[i] : "")))
					r = -1;
			H5Dvlen_reclaim(mt, sp, H5P_DEFAULT, p);
		}
		free(p);
	} else if (vl == 0) {
		size_t w = H5Tget_size(ft);
		char *buf = calloc(n ? n : 1, w);
		if (buf && H5Tset_size(mt, w) >= 0 && H5Aread(a, mt, buf) >= 0) {
			r = 0;
			for (size_t i = 0; i < n; i++)
				if (!(res[i] = dup_n(buf + i * w, strnlen(buf + i * w, w))))
					r = -1;
		}
		free(buf);
	}
	if (r == 0) {
		*out = res;
		*n_out = n;
	} else {
		h5read_strings_free(res);
	}
out_close:
	if (mt >= 0)
		H5Tclose(mt);
	if (sp >= 0)
		H5Sclose(sp);
	if (ft >= 0)
		H5Tclose(ft);
	H5Aclose(a);
	return r;
}

void h5read_strings_free(char **s)
{
	if (!s)
		return;
	for (size_t i = 0; s[i]; i++)
		free(s[i]);
	free(s);
}

/* Reads a scalar string attribute (fixed or variable length): a string array of
 * one element. Returns 0, 1 when absent, -1 on error (or more than one element). */
static int read_str_attr(hid_t obj, const char *name, char **out)
{
	char **arr = NULL;
	size_t n = 0;
	int r = read_str_array_attr(obj, name, &arr, &n);
	if (r != 0)
		return r;
	if (n != 1) {
		h5read_strings_free(arr);
		return -1;
	}
	*out = arr[0];
	free(arr);
	return 0;
}


/* ---- open ---- */

static herr_t collect_run(hid_t g, const char *name, const H5L_info_t *info, void *arg)
{
	(void)g;
	(void)info;
	struct h5read_file *f = arg;
	if (f->n_runs == f->cap_runs) {
		size_t cap = f->cap_runs ? 2 * f->cap_runs : 16;
		char **nr = realloc(f->runs, cap * sizeof *nr);
		if (!nr)
			return -1;
		f->runs = nr;
		f->cap_runs = cap;
	}
	if (!(f->runs[f->n_runs] = dup_str(name)))
		return -1;
	f->n_runs++;
	return 0;
}

int h5read_open(const char *path, struct h5read_file **out, struct sim_diag *diag)
{
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	*out = NULL;
	struct stat st;
	if (stat(path, &st) != 0) {
		sim_diag_add(diag, path, "cannot open results file: %s", strerror(errno));
		return errno == ENOENT ? -SIM_ENOENT : -SIM_EIO;
	}
	/* A file we may not read is a runtime failure, not "not an HDF5 file". */
	FILE *probe = S_ISREG(st.st_mode) ? fopen(path, "rb") : NULL;
	if (S_ISREG(st.st_mode) && !probe) {
		sim_diag_add(diag, path, "cannot open results file: %s", strerror(errno));
		return -SIM_EIO;
	}
	if (probe)
		fclose(probe);
	if (!S_ISREG(st.st_mode) || H5Fis_hdf5(path) <= 0) {
		H5Eclear2(H5E_DEFAULT);
		sim_diag_add(diag, path, "not an HDF5 file (expected a results file written by gpusched run)");
		return -SIM_EPARSE;
	}
	struct h5read_file *f = calloc(1, sizeof *f);
	if (!f || !(f->path = dup_str(path))) {
		free(f);
		sim_diag_add(diag, path, "out of memory");
		return -SIM_ENOMEM;
	}
	int r;
	f->file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (f->file < 0) {
		r = h5err(diag, path, "not a readable results file: truncated or damaged");
		goto out_close;
	}
	for (int i = 0; i < N_ROOT_ATTRS; i++) {
		if (read_str_attr(f->file, root_attr_names[i], &f->root_attr[i]) < 0) {
			r = h5err(diag, path, "cannot read root attributes");
			goto out_close;
		}
	}
	const char *sv = f->root_attr[0];
	if (!sv) {
		sim_diag_add(diag, path, "not a gpusched results file (no schema_version attribute)");
		r = -SIM_EPARSE;
		goto out_close;
	}
	char *end;
	long major = strtol(sv, &end, 10);
	if (end == sv || (*end != '.' && *end != 0) || major < 1 || major > H5READ_SCHEMA_MAJOR) {
		sim_diag_add(diag, path,
			     "schema_version '%s' is not supported (this gpusched reads 1.x to %d.x)", sv,
			     H5READ_SCHEMA_MAJOR);
		r = -SIM_EPARSE;
		goto out_close;
	}
	htri_t ex = H5Lexists(f->file, "runs", H5P_DEFAULT);
	if (ex <= 0) {
		H5Eclear2(H5E_DEFAULT);
		sim_diag_add(diag, path, "not a gpusched results file (no /runs group)");
		r = -SIM_EPARSE;
		goto out_close;
	}
	hid_t g = H5Gopen2(f->file, "runs", H5P_DEFAULT);
	if (g < 0) {
		r = h5err(diag, path, "cannot open /runs");
		goto out_close;
	}
	/* Creation order when the file tracks it (gpusched files do), else by name. */
	hsize_t idx = 0;
	herr_t it = H5Literate(g, H5_INDEX_CRT_ORDER, H5_ITER_INC, &idx, collect_run, f);
	if (it < 0 && f->n_runs == 0) {
		H5Eclear2(H5E_DEFAULT);
		idx = 0;
		it = H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, &idx, collect_run, f);
	}
	H5Gclose(g);
	if (it < 0) {
		r = h5err(diag, path, "cannot list /runs");
		goto out_close;
	}
	*out = f;
	return 0;
out_close:
	h5read_close(f);
	return r;
}

void h5read_close(struct h5read_file *f)
{
	if (!f)
		return;
	if (f->file > 0)
		H5Fclose(f->file);
	for (int i = 0; i < N_ROOT_ATTRS; i++)
		free(f->root_attr[i]);
	for (size_t i = 0; i < f->n_runs; i++)
		free(f->runs[i]);
	free(f->runs);
	free(f->path);
	free(f);
}

const char *h5read_path(const struct h5read_file *f)
{
	return f->path;
}

const char *h5read_root_attr(const struct h5read_file *f, const char *name)
{
	for (int i = 0; i < N_ROOT_ATTRS; i++)
		if (strcmp(root_attr_names[i], name) == 0)
			return f->root_attr[i];
	return NULL;
}

const char *h5read_mode(const struct h5read_file *f)
{
	const char *m = h5read_root_attr(f, "mode");
	return m && m[0] ? m : "simulation";
}

size_t h5read_n_runs(const struct h5read_file *f)
{
	return f->n_runs;
}

const char *h5read_run_name(const struct h5read_file *f, size_t i)
{
	return i < f->n_runs ? f->runs[i] : NULL;
}

int h5read_run_find(const struct h5read_file *f, const char *name)
{
	for (size_t i = 0; i < f->n_runs; i++)
		if (strcmp(f->runs[i], name) == 0)
			return (int)i;
	return -1;
}

/* Opens /runs/<run>/<sub> (dataset 1: a dataset, 0: a group, -1: either, close it
 * with H5Oclose) or reports that the run is absent. */
static hid_t open_in_run(const struct h5read_file *f, const char *run, const char *sub, int dataset,
			 struct sim_diag *diag, int *err)
{
	char p[1024];
	if (h5read_run_find(f, run) < 0) {
		sim_diag_add(diag, f->path, "no run named '%s'", run);
		*err = -SIM_ENOENT;
		return -1;
	}
	snprintf(p, sizeof p, "/runs/%s%s%s", run, sub[0] ? "/" : "", sub);
	htri_t ex = H5Lexists(f->file, p, H5P_DEFAULT);
	if (ex <= 0) {
		H5Eclear2(H5E_DEFAULT);
		sim_diag_add(diag, f->path, "%s is missing", p);
		*err = -SIM_EPARSE;
		return -1;
	}
	hid_t h = dataset < 0 ? H5Oopen(f->file, p, H5P_DEFAULT)
		  : dataset   ? H5Dopen2(f->file, p, H5P_DEFAULT)
			      : H5Gopen2(f->file, p, H5P_DEFAULT);
	if (h < 0)
		*err = h5err(diag, f->path, "cannot open object");
	return h;
}

int h5read_run_attr_num(const struct h5read_file *f, const char *run, const char *name, double *out,
			struct sim_diag *diag)
{
	int err = 0;
	hid_t g = open_in_run(f, run, "", 0, diag, &err);
	if (g < 0)
		return err;
	int r = 0;
	htri_t ex = H5Aexists(g, name);
	if (ex <= 0) {
		H5Eclear2(H5E_DEFAULT);
		sim_diag_add(diag, f->path, "/runs/%s has no attribute '%s'", run, name);
		r = -SIM_ENOENT;
	} else {
		hid_t a = H5Aopen(g, name, H5P_DEFAULT);
		if (a < 0 || H5Aread(a, H5T_NATIVE_DOUBLE, out) < 0)
			r = h5err(diag, f->path, "cannot read run attribute");
		if (a >= 0)
			H5Aclose(a);
	}
	H5Gclose(g);
	return r;
}

int h5read_run_attr_str(const struct h5read_file *f, const char *run, const char *name, char **out,
			struct sim_diag *diag)
{
	int err = 0;
	*out = NULL;
	hid_t g = open_in_run(f, run, "", 0, diag, &err);
	if (g < 0)
		return err;
	int r = read_str_attr(g, name, out);
	H5Gclose(g);
	if (r == 1) {
		sim_diag_add(diag, f->path, "/runs/%s has no attribute '%s'", run, name);
		return -SIM_ENOENT;
	}
	return r < 0 ? h5err(diag, f->path, "cannot read run attribute") : 0;
}

int h5read_strings_attr(const struct h5read_file *f, const char *obj_path, const char *attr,
			char ***out, size_t *n, struct sim_diag *diag)
{
	htri_t ex = H5Lexists(f->file, obj_path, H5P_DEFAULT);
	if (ex <= 0 && strcmp(obj_path, "/") != 0) {
		H5Eclear2(H5E_DEFAULT);
		sim_diag_add(diag, f->path, "%s is missing", obj_path);
		return -SIM_ENOENT;
	}
	hid_t o = H5Oopen(f->file, obj_path, H5P_DEFAULT);
	if (o < 0)
		return h5err(diag, f->path, "cannot open object");
	int r = read_str_array_attr(o, attr, out, n);
	H5Oclose(o);
	if (r == 1) {
		sim_diag_add(diag, f->path, "%s has no attribute '%s'", obj_path, attr);
		return -SIM_ENOENT;
	}
	if (r < 0)
		return h5err(diag, f->path, "cannot read string attribute");
	return 0;
}

/* ---- summary ---- */

void h5read_summary_free(struct h5read_summary *s)
{
	if (!s)
		return;
	for (size_t i = 0; s->field && i < s->n_fields; i++)
		free(s->field[i]);
	for (size_t i = 0; s->unit && i < s->n_fields; i++)
		free(s->unit[i]);
	for (size_t i = 0; s->run && i < s->n_rows; i++)
		free(s->run[i]);
	for (size_t i = 0; s->policy && i < s->n_rows; i++)
		free(s->policy[i]);
	for (size_t i = 0; s->variant && i < s->n_rows; i++)
		free(s->variant[i]);
	for (size_t i = 0; s->param_str && i < s->n_rows * s->n_params; i++)
		free(s->param_str[i]);
	h5read_strings_free(s->param);
	free(s->field);
	free(s->unit);
	free(s->run);
	free(s->policy);
	free(s->seed);
	free(s->v);
	free(s->variant);
	free(s->param_numeric);
	free(s->param_str);
	free(s->param_num);
	memset(s, 0, sizeof *s);
}

/* Index of `name` in a table's field names, or -1. */
static int field_index(char *const *field, size_t n_fields, const char *name)
{
	for (size_t i = 0; i < n_fields; i++)
		if (strcmp(field[i], name) == 0)
			return (int)i;
	return -1;
}

/* Value of field `name` in row `row` of a row-major table of doubles, or NaN. */
static double table_get(const double *v, char *const *field, size_t n_fields, size_t n_rows, size_t row,
			const char *name)
{
	int k = field_index(field, n_fields, name);
	if (k < 0 || row >= n_rows)
		return NAN;
	return v[row * n_fields + (size_t)k];
}

int h5read_summary_field(const struct h5read_summary *s, const char *name)
{
	return field_index(s->field, s->n_fields, name);
}

double h5read_summary_get(const struct h5read_summary *s, size_t row, const char *name)
{
	return table_get(s->v, s->field, s->n_fields, s->n_rows, row, name);
}

double h5read_summary_lost_other_gpu_s(const struct h5read_summary *s, size_t row)
{
	double spike = h5read_summary_get(s, row, "lost_loss_spike_gpu_s"); /* NaN in files before 2.1 */
	double v = h5read_summary_get(s, row, "lost_gpu_s") - h5read_summary_get(s, row, "lost_node_failed_gpu_s") -
		   h5read_summary_get(s, row, "lost_crashed_gpu_s") - h5read_summary_get(s, row, "lost_hang_gpu_s") -
		   (isnan(spike) ? 0 : spike);
	return v > 1e-6 ? v : 0;
}

int h5read_summary_row(const struct h5read_summary *s, const char *run)
{
	for (size_t i = 0; i < s->n_rows; i++)
		if (strcmp(s->run[i], run) == 0)
			return (int)i;
	return -1;
}

/* Fixed-length string member size, or 0 when the member is not a fixed string. */
static size_t fixed_str_size(hid_t mtype)
{
	if (H5Tget_class(mtype) != H5T_STRING || H5Tis_variable_str(mtype) != 0)
		return 0;
	return H5Tget_size(mtype);
}

/* A memory string type of w bytes in the character set of file type ft (HDF5 does
 * not convert between ASCII and UTF-8). */
static hid_t fixed_str_mem(size_t w, hid_t ft)
{
	hid_t t = H5Tcopy(H5T_C_S1);
	if (t >= 0 && (H5Tset_size(t, w) < 0 || H5Tset_cset(t, H5Tget_cset(ft)) < 0)) {
		H5Tclose(t);
		return -1;
	}
	return t;
}

/* ---- summary key fields (1.5) ---- */

char *h5read_variant_from_name(const char *run, uint64_t seed)
{
	/* As report_variant_len: only the exact suffix "-s<seed>" is stripped. */
	char suffix[32];
	int k = snprintf(suffix, sizeof suffix, "-s%llu", (unsigned long long)seed);
	size_t n = strlen(run);
	if (k > 0 && (size_t)k < n && strcmp(run + n - (size_t)k, suffix) == 0)
		n -= (size_t)k;
	return dup_n(run, n);
}

/* Reads field `name` of every row of /summary (d, file type ft) as text into
 * str[i * stride] and, for a number, into num[i * stride] (NaN for a string).
 * Returns 0, -SIM_EPARSE or -SIM_ENOMEM. */
static int read_key_column(hid_t d, hid_t ft, const char *name, size_t n, size_t stride, char **str, double *num,
			   int *numeric)
{
	int mi = H5Tget_member_index(ft, name);
	if (mi < 0)
		return -SIM_EPARSE;
	hid_t memb = H5Tget_member_type(ft, (unsigned)mi);
	size_t w = memb >= 0 ? fixed_str_size(memb) : 0;
	H5T_class_t cl = memb >= 0 ? H5Tget_class(memb) : H5T_NO_CLASS;
	*numeric = cl == H5T_INTEGER || cl == H5T_FLOAT;
	hid_t el = w ? fixed_str_mem(w, memb) : *numeric ? H5Tcopy(H5T_NATIVE_DOUBLE) : -1;
	size_t size = w ? w : sizeof(double);
	hid_t mt = el >= 0 ? H5Tcreate(H5T_COMPOUND, size) : -1;
	char *buf = calloc(n ? n : 1, size);
	int r = -SIM_EPARSE;
	if (mt >= 0 && buf && H5Tinsert(mt, name, 0, el) >= 0 &&
	    (n == 0 || H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0)) {
		r = 0;
		for (size_t i = 0; i < n && r == 0; i++) {
			char text[64];
			double x = NAN;
			if (!w) {
				memcpy(&x, buf + i * size, sizeof x);
				snprintf(text, sizeof text, "%.17g", x);
			}
			str[i * stride] = w ? dup_n(buf + i * size, strnlen(buf + i * size, w)) : dup_str(text);
			if (num)
				num[i * stride] = x;
			if (!str[i * stride])
				r = -SIM_ENOMEM;
		}
	} else if (!buf) {
		r = -SIM_ENOMEM;
	}
	free(buf);
	if (mt >= 0)
		H5Tclose(mt);
	if (el >= 0)
		H5Tclose(el);
	if (memb >= 0)
		H5Tclose(memb);
	return r;
}

/* The key fields of a 1.5 /summary that are swept parameters: those after "seed". */
static size_t first_param_key(char *const *keys, size_t n_keys)
{
	int k = field_index(keys, n_keys, "seed");
	return k < 0 ? n_keys : (size_t)k + 1;
}

/* Fills out's variant and swept parameters (out's rows already read). */
static int read_summary_keys(hid_t d, hid_t ft, char *const *keys, size_t n_keys, struct h5read_summary *out)
{
	size_t n = out->n_rows, p0 = keys ? first_param_key(keys, n_keys) : n_keys, np = n_keys - p0;
	int numeric = 0, r = 0;
	out->variant = calloc(n + 1, sizeof *out->variant);
	out->param = calloc(np + 1, sizeof *out->param);
	out->param_numeric = calloc(np + 1, sizeof *out->param_numeric);
	out->param_str = calloc(n * np + 1, sizeof *out->param_str);
	out->param_num = calloc(n * np + 1, sizeof *out->param_num);
	if (!out->variant || !out->param || !out->param_numeric || !out->param_str || !out->param_num)
		return -SIM_ENOMEM;
	if (keys && field_index(keys, n_keys, "variant") >= 0)
		r = read_key_column(d, ft, "variant", n, 1, out->variant, NULL, &numeric);
	/* Older files, and a writer that named no variant: the run name less -s<seed>. */
	for (size_t i = 0; i < n && r == 0; i++) {
		if (out->variant[i] && out->variant[i][0])
			continue;
		free(out->variant[i]);
		if (!(out->variant[i] = h5read_variant_from_name(out->run[i], out->seed[i])))
			r = -SIM_ENOMEM;
	}
	for (size_t k = 0; k < np && r == 0; k++) {
		if (!(out->param[k] = dup_str(keys[p0 + k])))
			return -SIM_ENOMEM;
		out->n_params = k + 1;
		r = read_key_column(d, ft, keys[p0 + k], n, np, out->param_str + k, out->param_num + k,
				    &out->param_numeric[k]);
	}
	return r;
}

int h5read_summary(const struct h5read_file *f, struct h5read_summary *out, struct sim_diag *diag)
{
	memset(out, 0, sizeof *out);
	if (H5Lexists(f->file, "summary", H5P_DEFAULT) <= 0) {
		H5Eclear2(H5E_DEFAULT);
		sim_diag_add(diag, f->path, "no /summary dataset (was the file written completely?)");
		return -SIM_EPARSE;
	}
	hid_t d = H5Dopen2(f->file, "summary", H5P_DEFAULT);
	if (d < 0)
		return h5err(diag, f->path, "cannot open /summary");
	int r = -SIM_ENOMEM;
	hid_t ft = H5Dget_type(d), sp = H5Dget_space(d), mt = -1;
	hid_t st_run = -1, st_pol = -1; /* memory string types for run and policy */
	char *buf = NULL;
	size_t *foff = NULL;
	int *fmember = NULL;
	char **units = NULL;
	size_t n_units = 0;
	char **keys = NULL; /* before the first goto: out_close frees it */
	size_t n_keys = 0;
	if (ft < 0 || sp < 0 || H5Tget_class(ft) != H5T_COMPOUND) {
		r = h5err(diag, f->path, "/summary is not a compound table");
		goto out_close;
	}
	int nm = H5Tget_nmembers(ft);
	hssize_t np = H5Sget_simple_extent_npoints(sp);
	if (nm < 0 || np < 0) {
		r = h5err(diag, f->path, "cannot read /summary shape");
		goto out_close;
	}
	size_t n = (size_t)np;
	if (read_str_array_attr(d, "units", &units, &n_units) < 0)
		units = NULL, n_units = 0;
	/* 1.5: fields that identify a run (names, seed, swept values) are no metrics. */
	if (read_str_array_attr(d, "key_fields", &keys, &n_keys) != 0)
		keys = NULL, n_keys = 0;
	/* Memory row: run string, policy string, seed, then the numeric fields. */
	size_t run_w = 0, pol_w = 0, size = 0;
	int run_i = H5Tget_member_index(ft, "run"), pol_i = H5Tget_member_index(ft, "policy");
	int seed_i = H5Tget_member_index(ft, "seed");
	H5Eclear2(H5E_DEFAULT);
	if (run_i >= 0) {
		hid_t t = H5Tget_member_type(ft, (unsigned)run_i);
		run_w = t >= 0 ? fixed_str_size(t) : 0;
		if (run_w)
			st_run = fixed_str_mem(run_w, t);
		if (t >= 0)
			H5Tclose(t);
	}
	if (pol_i >= 0) {
		hid_t t = H5Tget_member_type(ft, (unsigned)pol_i);
		pol_w = t >= 0 ? fixed_str_size(t) : 0;
		if (pol_w)
			st_pol = fixed_str_mem(pol_w, t);
		if (t >= 0)
			H5Tclose(t);
	}
	if (run_w == 0) {
		sim_diag_add(diag, f->path, "/summary: expected a fixed-length string field 'run'");
		r = -SIM_EPARSE;
		goto out_close;
	}
	foff = calloc((size_t)nm + 1, sizeof *foff);
	fmember = calloc((size_t)nm + 1, sizeof *fmember);
	out->field = calloc((size_t)nm + 1, sizeof *out->field);
	out->unit = calloc((size_t)nm + 1, sizeof *out->unit);
	if (!foff || !fmember || !out->field || !out->unit)
		goto out_close;
	size_t off_seed = run_w + pol_w;
	size = off_seed + sizeof(uint64_t);
	for (int i = 0; i < nm; i++) {
		if (i == run_i || i == pol_i || i == seed_i)
			continue;
		H5T_class_t cl = H5Tget_member_class(ft, (unsigned)i);
		if (cl != H5T_FLOAT && cl != H5T_INTEGER)
			continue;
		char *nmz = H5Tget_member_name(ft, (unsigned)i);
		if (!nmz) {
			r = h5err(diag, f->path, "cannot read /summary field names");
			goto out_close;
		}
		if (keys && field_index(keys, n_keys, nmz) >= 0) {
			H5free_memory(nmz);
			continue;
		}
		out->field[out->n_fields] = dup_str(nmz);
		H5free_memory(nmz);
		out->unit[out->n_fields] = dup_str((size_t)i < n_units ? units[i] : "");
		if (!out->field[out->n_fields] || !out->unit[out->n_fields]) {
			free(out->field[out->n_fields]);
			free(out->unit[out->n_fields]);
			goto out_close;
		}
		fmember[out->n_fields] = i;
		foff[out->n_fields] = size;
		size += sizeof(double);
		out->n_fields++;
	}
	mt = H5Tcreate(H5T_COMPOUND, size);
	int bad = mt < 0 || st_run < 0 || (pol_w && st_pol < 0) || H5Tinsert(mt, "run", 0, st_run) < 0 ||
		  (pol_w && H5Tinsert(mt, "policy", run_w, st_pol) < 0) ||
		  (seed_i >= 0 && H5Tinsert(mt, "seed", off_seed, H5T_NATIVE_UINT64) < 0);
	for (size_t k = 0; !bad && k < out->n_fields; k++)
		bad = H5Tinsert(mt, out->field[k], foff[k], H5T_NATIVE_DOUBLE) < 0;
	if (bad) {
		r = h5err(diag, f->path, "cannot build the /summary memory type");
		goto out_close;
	}
	buf = calloc(n ? n : 1, size);
	out->run = calloc(n + 1, sizeof *out->run);
	out->policy = calloc(n + 1, sizeof *out->policy);
	out->seed = calloc(n + 1, sizeof *out->seed);
	out->v = calloc((n ? n : 1) * (out->n_fields ? out->n_fields : 1), sizeof *out->v);
	if (!buf || !out->run || !out->policy || !out->seed || !out->v)
		goto out_close;
	if (n > 0 && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
		r = h5err(diag, f->path, "cannot read /summary");
		goto out_close;
	}
	out->n_rows = n;
	for (size_t i = 0; i < n; i++) {
		const char *row = buf + i * size;
		out->run[i] = dup_n(row, strnlen(row, run_w));
		out->policy[i] = pol_w ? dup_n(row + run_w, strnlen(row + run_w, pol_w)) : dup_str("");
		if (!out->run[i] || !out->policy[i])
			goto out_close;
		if (seed_i >= 0)
			memcpy(&out->seed[i], row + off_seed, sizeof(uint64_t));
		for (size_t k = 0; k < out->n_fields; k++)
			memcpy(&out->v[i * out->n_fields + k], row + foff[k], sizeof(double));
	}
	r = read_summary_keys(d, ft, keys, n_keys, out);
	if (r == -SIM_EPARSE)
		r = h5err(diag, f->path, "cannot read the /summary key fields");
out_close:
	h5read_strings_free(keys);
	if (r != 0)
		h5read_summary_free(out);
	if (st_run >= 0)
		H5Tclose(st_run);
	if (st_pol >= 0)
		H5Tclose(st_pol);
	free(buf);
	free(foff);
	free(fmember);
	h5read_strings_free(units);
	if (mt >= 0)
		H5Tclose(mt);
	if (sp >= 0)
		H5Sclose(sp);
	if (ft >= 0)
		H5Tclose(ft);
	H5Dclose(d);
	if (r == -SIM_ENOMEM)
		sim_diag_add(diag, f->path, "out of memory");
	return r;
}

/* ---- tables read column by column (jobs, decisions) ---- */

enum col_kind { COL_STR, COL_I32, COL_U32, COL_U8, COL_F64, COL_ENUM };

struct col {
	const char *name;
	enum col_kind kind;
	size_t field;  /* offsetof the column pointer in the output struct */
	int aux;       /* COL_STR: index into h5read_cols_.strbuf; COL_I32: the value of an absent field */
};

static size_t col_elem_size(enum col_kind k)
{
	switch (k) {
	case COL_F64:
		return sizeof(double);
	case COL_I32:
		return sizeof(int32_t);
	case COL_U32:
		return sizeof(uint32_t);
	case COL_U8:
		return sizeof(uint8_t);
	default:
		return sizeof(char *);
	}
}

static void **col_ptr(void *out, const struct col *c)
{
	return (void **)((char *)out + c->field);
}

/* Frees every column and the buffers behind them (out's other fields are the caller's). */
static void cols_free(const struct col *cols, size_t ncols, void *out, struct h5read_cols_ *p)
{
	for (size_t c = 0; c < ncols; c++) {
		free(*col_ptr(out, &cols[c]));
		*col_ptr(out, &cols[c]) = NULL;
	}
	for (size_t k = 0; k < H5READ_MAX_STR_COLS; k++)
		free(p->strbuf[k]);
	for (size_t k = 0; k < p->n_enum_names; k++)
		free(p->enum_names[k]);
	free(p->enum_names);
	memset(p, 0, sizeof *p);
}

/* Per-column read plan. */
struct plan {
	int present;
	size_t off;    /* in the memory row */
	size_t width;  /* COL_STR: file string size; COL_ENUM: value size */
	hid_t mtype;   /* memory type of the member (owned) */
};

/* Lower-cases the enum's member names and records their values, for lookup per row. */
static int enum_table(struct h5read_cols_ *p, hid_t et, unsigned char **values, size_t vsize)
{
	int nm = H5Tget_nmembers(et);
	if (nm < 0)
		return -1;
	p->enum_names = calloc((size_t)nm + 1, sizeof *p->enum_names);
	*values = calloc((size_t)nm + 1, vsize);
	if (!p->enum_names || !*values)
		return -1;
	for (int i = 0; i < nm; i++) {
		char *name = H5Tget_member_name(et, (unsigned)i);
		if (!name)
			return -1;
		char *low = dup_str(name);
		H5free_memory(name);
		if (!low)
			return -1;
		for (char *c = low; *c; c++)
			if (*c >= 'A' && *c <= 'Z')
				*c = (char)(*c - 'A' + 'a');
		p->enum_names[i] = low;
		p->n_enum_names = (size_t)i + 1;
		if (H5Tget_member_value(et, (unsigned)i, *values + (size_t)i * vsize) < 0)
			return -1;
	}
	return 0;
}

/* The memory type of a known field whose file type is memb (borrowed); fills pl.
 * Returns 0, or -1 when the field has a type this reader cannot take. */
static int plan_type(hid_t memb, const struct col *c, struct plan *pl)
{
	switch (c->kind) {
	case COL_STR:
		pl->width = fixed_str_size(memb);
		pl->mtype = pl->width ? fixed_str_mem(pl->width, memb) : -1;
		break;
	case COL_I32:
		pl->mtype = H5Tcopy(H5T_NATIVE_INT32);
		pl->width = 4;
		break;
	case COL_U32:
		pl->mtype = H5Tcopy(H5T_NATIVE_UINT32);
		pl->width = 4;
		break;
	case COL_U8:
		pl->mtype = H5Tcopy(H5T_NATIVE_UINT8);
		pl->width = 1;
		break;
	case COL_F64:
		pl->mtype = H5Tcopy(H5T_NATIVE_DOUBLE);
		pl->width = 8;
		break;
	case COL_ENUM:
		if (H5Tget_class(memb) == H5T_ENUM) {
			pl->mtype = H5Tget_native_type(memb, H5T_DIR_DEFAULT);
			pl->width = pl->mtype >= 0 ? H5Tget_size(pl->mtype) : 0;
		}
		break;
	}
	if (pl->mtype < 0 || pl->width == 0 || pl->width > 8 * 1024)
		return -1;
	pl->present = 1;
	return 0;
}

/* The memory type of one known field of compound file type ft; fills pl (mtype -1
 * when absent). Returns 0, or -1 when the field has a type this reader cannot take. */
static int plan_col(hid_t ft, const struct col *c, struct plan *pl)
{
	int mi = H5Tget_member_index(ft, c->name);
	if (mi < 0) {
		H5Eclear2(H5E_DEFAULT);
		return 0;
	}
	hid_t memb = H5Tget_member_type(ft, (unsigned)mi);
	if (memb < 0)
		return -1;
	int r = plan_type(memb, c, pl);
	H5Tclose(memb);
	return r;
}

/* Copies field c of a memory row into row i of its column. */
static void put_cell(void *out, const struct col *c, const struct plan *pl, struct h5read_cols_ *p,
		     const unsigned char *enum_vals, const char *row, size_t i)
{
	const char *src = row + pl->off;
	void *col = *col_ptr(out, c);
	switch (c->kind) {
	case COL_STR:
		if (pl->present)
			memcpy(p->strbuf[c->aux] + i * (pl->width + 1), src, strnlen(src, pl->width));
		break;
	case COL_I32: {
		int32_t v = c->aux;
		if (pl->present)
			memcpy(&v, src, sizeof v);
		((int32_t *)col)[i] = v;
		break;
	}
	case COL_U32: {
		uint32_t v = 0;
		if (pl->present)
			memcpy(&v, src, sizeof v);
		((uint32_t *)col)[i] = v;
		break;
	}
	case COL_U8: {
		uint8_t v = 0;
		if (pl->present)
			memcpy(&v, src, sizeof v);
		((uint8_t *)col)[i] = v;
		break;
	}
	case COL_F64: {
		double v = NAN;
		if (pl->present)
			memcpy(&v, src, sizeof v);
		((double *)col)[i] = v;
		break;
	}
	case COL_ENUM: {
		const char *name = "";
		for (size_t e = 0; pl->present && e < p->n_enum_names; e++)
			if (memcmp(enum_vals + e * pl->width, src, pl->width) == 0) {
				name = p->enum_names[e];
				break;
			}
		((const char **)col)[i] = name;
		break;
	}
	}
}

/* Column storage for n rows (string columns point into one buffer each) and the
 * enum's names. Returns 0, -SIM_ENOMEM or an HDF5 error (in diag). */
static int cols_alloc(const struct col *cols, size_t ncols, const struct plan *pl, size_t n, void *out,
		      struct h5read_cols_ *p, unsigned char **enum_vals, const char *where,
		      struct sim_diag *diag)
{
	for (size_t c = 0; c < ncols; c++) {
		void **col = col_ptr(out, &cols[c]);
		*col = calloc(n + 1, col_elem_size(cols[c].kind));
		if (!*col)
			return -SIM_ENOMEM;
		if (cols[c].kind == COL_STR) {
			size_t w = pl[c].present ? pl[c].width + 1 : 1;
			char *sb = calloc(n ? n : 1, w);
			if (!sb)
				return -SIM_ENOMEM;
			p->strbuf[cols[c].aux] = sb;
			for (size_t i = 0; i < n; i++)
				((char **)*col)[i] = sb + i * w;
		}
		if (cols[c].kind == COL_ENUM && pl[c].present &&
		    enum_table(p, pl[c].mtype, enum_vals, pl[c].width) < 0) {
			char what[128];
			snprintf(what, sizeof what, "cannot read the %s names", cols[c].name);
			return h5err(diag, where, what);
		}
	}
	return 0;
}

/* Reads compound dataset d into the columns of out (fields found by name; an absent
 * field reads as NaN, 0, the column's default or ""). At most one COL_ENUM column.
 * *n_out gets the rows. On failure the caller frees with cols_free. */
static int read_cols(hid_t d, const char *where, const struct col *cols, size_t ncols, void *out,
		     size_t *n_out, struct h5read_cols_ *p, struct sim_diag *diag)
{
	struct plan pl[32];
	assert(ncols <= sizeof pl / sizeof pl[0]);
	memset(pl, 0, sizeof pl);
	for (size_t c = 0; c < ncols; c++)
		pl[c].mtype = -1;
	int r = -SIM_ENOMEM;
	hid_t ft = H5Dget_type(d), sp = H5Dget_space(d), mt = -1;
	char *buf = NULL;
	unsigned char *enum_vals = NULL;
	if (ft < 0 || sp < 0 || H5Tget_class(ft) != H5T_COMPOUND) {
		r = h5err(diag, where, "not a compound table");
		goto out_close;
	}
	hssize_t np = H5Sget_simple_extent_npoints(sp);
	if (np < 0) {
		r = h5err(diag, where, "cannot read the table size");
		goto out_close;
	}
	size_t n = (size_t)np, size = 0;
	for (size_t c = 0; c < ncols; c++) {
		if (plan_col(ft, &cols[c], &pl[c]) < 0) {
			H5Eclear2(H5E_DEFAULT);
			sim_diag_add(diag, where, "field '%s' has an unexpected type", cols[c].name);
			r = -SIM_EPARSE;
			goto out_close;
		}
		pl[c].off = size;
		size += pl[c].present ? pl[c].width : 0;
	}
	if (size == 0) {
		sim_diag_add(diag, where, "no known field");
		r = -SIM_EPARSE;
		goto out_close;
	}
	mt = H5Tcreate(H5T_COMPOUND, size);
	if (mt < 0) {
		r = h5err(diag, where, "cannot build the memory type");
		goto out_close;
	}
	for (size_t c = 0; c < ncols; c++)
		if (pl[c].present && H5Tinsert(mt, cols[c].name, pl[c].off, pl[c].mtype) < 0) {
			r = h5err(diag, where, "cannot build the memory type");
			goto out_close;
		}

	*n_out = n;
	if ((r = cols_alloc(cols, ncols, pl, n, out, p, &enum_vals, where, diag)))
		goto out_close;
	r = -SIM_ENOMEM;

	size_t block = n < READ_BLOCK_ROWS ? n : READ_BLOCK_ROWS;
	buf = malloc((block ? block : 1) * size);
	if (!buf)
		goto out_close;
	for (size_t first = 0; first < n; first += block) {
		hsize_t start = first, cnt = n - first < block ? n - first : block;
		hid_t ms = H5Screate_simple(1, &cnt, NULL);
		int ok = ms >= 0 && H5Sselect_hyperslab(sp, H5S_SELECT_SET, &start, NULL, &cnt, NULL) >= 0 &&
			 H5Dread(d, mt, ms, sp, H5P_DEFAULT, buf) >= 0;
		if (ms >= 0)
			H5Sclose(ms);
		if (!ok) {
			r = h5err(diag, where, "cannot read rows");
			goto out_close;
		}
		for (size_t k = 0; k < cnt; k++)
			for (size_t c = 0; c < ncols; c++)
				put_cell(out, &cols[c], &pl[c], p, enum_vals, buf + k * size, first + k);
	}
	r = 0;
out_close:
	if (r == -SIM_ENOMEM)
		sim_diag_add(diag, where, "out of memory");
	free(buf);
	free(enum_vals);
	for (size_t c = 0; c < ncols; c++)
		if (pl[c].mtype >= 0)
			H5Tclose(pl[c].mtype);
	if (mt >= 0)
		H5Tclose(mt);
	if (sp >= 0)
		H5Sclose(sp);
	if (ft >= 0)
		H5Tclose(ft);
	return r;
}

/* Rows of a 1-D dataset, or -1 when it is not 1-D. */
static long long column_rows(hid_t d)
{
	hid_t sp = H5Dget_space(d);
	long long n = -1;
	hsize_t dim;
	if (sp >= 0 && H5Sget_simple_extent_ndims(sp) == 1 && H5Sget_simple_extent_dims(sp, &dim, NULL) == 1)
		n = (long long)dim;
	if (sp >= 0)
		H5Sclose(sp);
	return n;
}

/* Reads a column group (schema 2.0: one 1-D dataset a field, all of one length) into
 * the columns of out, as read_cols reads a compound table: fields found by name, an
 * absent one reads as its default. */
static int read_col_group(hid_t g, const char *where, const struct col *cols, size_t ncols, void *out,
			  size_t *n_out, struct h5read_cols_ *p, struct sim_diag *diag)
{
	struct plan pl[32];
	hid_t ds[32];
	assert(ncols <= sizeof pl / sizeof pl[0]);
	memset(pl, 0, sizeof pl);
	for (size_t c = 0; c < ncols; c++)
		pl[c].mtype = ds[c] = -1;
	int r = -SIM_EPARSE, have_n = 0;
	size_t n = 0;
	unsigned char *enum_vals = NULL, *buf = NULL;
	for (size_t c = 0; c < ncols; c++) {
		if (H5Lexists(g, cols[c].name, H5P_DEFAULT) <= 0) {
			H5Eclear2(H5E_DEFAULT);
			continue;
		}
		if ((ds[c] = H5Dopen2(g, cols[c].name, H5P_DEFAULT)) < 0) {
			r = h5err(diag, where, "cannot open a column");
			goto out_close;
		}
		hid_t ft = H5Dget_type(ds[c]);
		int bad = ft < 0 || plan_type(ft, &cols[c], &pl[c]) < 0;
		if (ft >= 0)
			H5Tclose(ft);
		long long rows = bad ? -1 : column_rows(ds[c]);
		if (rows < 0) {
			H5Eclear2(H5E_DEFAULT);
			sim_diag_add(diag, where, "column '%s' has an unexpected type or shape",
				     cols[c].name);
			goto out_close;
		}
		if (have_n && (size_t)rows != n) {
			sim_diag_add(diag, where,
				     "column '%s' has %lld rows, expected %zu as the columns before it",
				     cols[c].name, rows, n);
			goto out_close;
		}
		n = (size_t)rows;
		have_n = 1;
	}
	if (!have_n) {
		sim_diag_add(diag, where, "no known field");
		goto out_close;
	}
	*n_out = n;
	if ((r = cols_alloc(cols, ncols, pl, n, out, p, &enum_vals, where, diag)))
		goto out_close;
	for (size_t c = 0; c < ncols; c++) {
		if (!pl[c].present || n == 0)
			continue;
		free(buf);
		if (!(buf = malloc(n * pl[c].width))) {
			r = -SIM_ENOMEM;
			goto out_close;
		}
		if (H5Dread(ds[c], pl[c].mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
			r = h5err(diag, where, "cannot read a column");
			goto out_close;
		}
		pl[c].off = 0;
		for (size_t i = 0; i < n; i++)
			put_cell(out, &cols[c], &pl[c], p, enum_vals, (const char *)buf + i * pl[c].width, i);
	}
	r = 0;
out_close:
	if (r == -SIM_ENOMEM)
		sim_diag_add(diag, where, "out of memory");
	free(buf);
	free(enum_vals);
	for (size_t c = 0; c < ncols; c++) {
		if (pl[c].mtype >= 0)
			H5Tclose(pl[c].mtype);
		if (ds[c] >= 0)
			H5Dclose(ds[c]);
	}
	return r;
}

/* Reads /runs/<run>/<name>, a compound table (schema 1.x) or a column group (2.0). */
static int read_table_cols(const struct h5read_file *f, const char *run, const char *name,
			   const struct col *cols, size_t ncols, void *out, size_t *n_out,
			   struct h5read_cols_ *p, struct sim_diag *diag)
{
	int err = 0;
	hid_t h = open_in_run(f, run, name, -1, diag, &err);
	if (h < 0)
		return err;
	char where[512];
	snprintf(where, sizeof where, "%s: /runs/%s/%s", f->path, run, name);
	int r = H5Iget_type(h) == H5I_GROUP ? read_col_group(h, where, cols, ncols, out, n_out, p, diag)
					     : read_cols(h, where, cols, ncols, out, n_out, p, diag);
	H5Oclose(h);
	return r;
}

/* ---- jobs ---- */

static const struct col job_cols[] = {
	{ "id", COL_STR, offsetof(struct h5read_jobs, id), 0 },
	{ "queue", COL_STR, offsetof(struct h5read_jobs, queue), 1 },
	{ "user", COL_STR, offsetof(struct h5read_jobs, user), 2 },
	{ "flavor", COL_STR, offsetof(struct h5read_jobs, flavor), 3 },
	{ "option", COL_I32, offsetof(struct h5read_jobs, option), -1 },
	{ "gpus", COL_F64, offsetof(struct h5read_jobs, gpus), 0 },
	{ "alloc_gpus", COL_F64, offsetof(struct h5read_jobs, alloc_gpus), 0 },
	{ "submit_s", COL_F64, offsetof(struct h5read_jobs, submit_s), 0 },
	{ "start_s", COL_F64, offsetof(struct h5read_jobs, start_s), 0 },
	{ "end_s", COL_F64, offsetof(struct h5read_jobs, end_s), 0 },
	{ "wait_s", COL_F64, offsetof(struct h5read_jobs, wait_s), 0 },
	{ "jct_s", COL_F64, offsetof(struct h5read_jobs, jct_s), 0 },
	{ "runtime_s", COL_F64, offsetof(struct h5read_jobs, runtime_s), 0 },
	{ "bsld", COL_F64, offsetof(struct h5read_jobs, bsld), 0 },
	{ "priority", COL_I32, offsetof(struct h5read_jobs, priority), 0 },
	{ "preemptions", COL_U32, offsetof(struct h5read_jobs, preemptions), 0 },
	{ "preemptions_caused", COL_U32, offsetof(struct h5read_jobs, preemptions_caused), 0 },
	{ "lost_gpu_s", COL_F64, offsetof(struct h5read_jobs, lost_gpu_s), 0 },
	{ "restore_s", COL_F64, offsetof(struct h5read_jobs, restore_s), 0 },
	{ "ckpt_overhead_s", COL_F64, offsetof(struct h5read_jobs, ckpt_overhead_s), 0 },
	{ "cost", COL_F64, offsetof(struct h5read_jobs, cost), 0 },
	{ "n_options", COL_U8, offsetof(struct h5read_jobs, n_options), 0 },
	{ "fallback_evals", COL_U32, offsetof(struct h5read_jobs, fallback_evals), 0 },
	{ "interruptions", COL_U32, offsetof(struct h5read_jobs, interruptions), 0 },
	{ "pending_from_s", COL_F64, offsetof(struct h5read_jobs, pending_from_s), 0 },
	{ "final_state", COL_ENUM, offsetof(struct h5read_jobs, state), 0 },
};
#define N_JOB_COLS (sizeof job_cols / sizeof job_cols[0])

void h5read_jobs_free(struct h5read_jobs *j)
{
	if (!j)
		return;
	cols_free(job_cols, N_JOB_COLS, j, &j->priv_);
	memset(j, 0, sizeof *j);
}

int h5read_jobs(const struct h5read_file *f, const char *run, struct h5read_jobs *out, struct sim_diag *diag)
{
	memset(out, 0, sizeof *out);
	int r = read_table_cols(f, run, "jobs", job_cols, N_JOB_COLS, out, &out->n, &out->priv_, diag);
	if (r != 0)
		h5read_jobs_free(out);
	return r;
}

/* ---- decisions ---- */

static const struct col decision_cols[] = {
	{ "time_s", COL_F64, offsetof(struct h5read_decisions, time_s), 0 },
	{ "preemptor", COL_STR, offsetof(struct h5read_decisions, preemptor), 0 },
	{ "victim", COL_STR, offsetof(struct h5read_decisions, victim), 1 },
	{ "preemptor_queue", COL_STR, offsetof(struct h5read_decisions, preemptor_queue), 2 },
	{ "victim_queue", COL_STR, offsetof(struct h5read_decisions, victim_queue), 3 },
	{ "reason", COL_ENUM, offsetof(struct h5read_decisions, reason), 0 },
	{ "requeued", COL_U8, offsetof(struct h5read_decisions, requeued), 0 },
	{ "lost_gpu_s", COL_F64, offsetof(struct h5read_decisions, lost_gpu_s), 0 },
};
#define N_DECISION_COLS (sizeof decision_cols / sizeof decision_cols[0])

void h5read_decisions_free(struct h5read_decisions *ds)
{
	if (!ds)
		return;
	cols_free(decision_cols, N_DECISION_COLS, ds, &ds->priv_);
	memset(ds, 0, sizeof *ds);
}

/* 1 if /runs/<run>/<name> exists, 0 if not, -1 on error (run known to exist). */
static int run_has(const struct h5read_file *f, const char *run, const char *name)
{
	char p[1024];
	snprintf(p, sizeof p, "/runs/%s/%s", run, name);
	htri_t ex = H5Lexists(f->file, p, H5P_DEFAULT);
	if (ex < 0)
		H5Eclear2(H5E_DEFAULT);
	return ex > 0 ? 1 : ex == 0 ? 0 : -1;
}

int h5read_decisions(const struct h5read_file *f, const char *run, struct h5read_decisions *out,
		     struct sim_diag *diag)
{
	memset(out, 0, sizeof *out);
	if (h5read_run_find(f, run) < 0) {
		sim_diag_add(diag, f->path, "no run named '%s'", run);
		return -SIM_ENOENT;
	}
	if (run_has(f, run, "decisions") == 0)
		return 0; /* schema 1.1: no decisions recorded */
	int err = 0;
	hid_t d = open_in_run(f, run, "decisions", 1, diag, &err);
	if (d < 0)
		return err;
	char where[512];
	snprintf(where, sizeof where, "%s: /runs/%s/decisions", f->path, run);
	int r = read_cols(d, where, decision_cols, N_DECISION_COLS, out, &out->n, &out->priv_, diag);
	if (r != 0)
		h5read_decisions_free(out);
	else
		out->present = 1;
	H5Dclose(d);
	return r;
}

/* ---- numeric tables: queues, options ---- */

void h5read_table_free(struct h5read_table *t)
{
	if (!t)
		return;
	h5read_strings_free(t->field);
	h5read_strings_free(t->unit);
	h5read_strings_free(t->key);
	free(t->v);
	memset(t, 0, sizeof *t);
}

int h5read_table_field(const struct h5read_table *t, const char *name)
{
	return field_index(t->field, t->n_fields, name);
}

double h5read_table_get(const struct h5read_table *t, size_t row, const char *name)
{
	return table_get(t->v, t->field, t->n_fields, t->n_rows, row, name);
}

/* The memory layout of a row of a numeric table (queues, options): the string field
 * `key` (NULL: none), then every numeric field as a double. Fills out->field and
 * out->unit; returns the memory type or -1. */
static hid_t num_table_mtype(hid_t ft, hid_t d, const char *key, struct h5read_table *out, size_t *qw,
			     size_t *row_size)
{
	char **units = NULL;
	size_t n_units = 0;
	if (read_str_array_attr(d, "units", &units, &n_units) < 0)
		units = NULL, n_units = 0;
	int nm = H5Tget_nmembers(ft), qi = key ? H5Tget_member_index(ft, key) : -1;
	H5Eclear2(H5E_DEFAULT);
	hid_t mt = -1, st = -1;
	*qw = 0;
	if (nm < 0)
		goto out;
	if (qi >= 0) {
		hid_t t = H5Tget_member_type(ft, (unsigned)qi);
		*qw = t >= 0 ? fixed_str_size(t) : 0;
		if (*qw)
			st = fixed_str_mem(*qw, t);
		if (t >= 0)
			H5Tclose(t);
	}
	out->field = calloc((size_t)nm + 1, sizeof *out->field);
	out->unit = calloc((size_t)nm + 1, sizeof *out->unit);
	if (!out->field || !out->unit)
		goto out;
	for (int i = 0; i < nm; i++) {
		H5T_class_t cl = H5Tget_member_class(ft, (unsigned)i);
		if (i == qi || (cl != H5T_FLOAT && cl != H5T_INTEGER))
			continue;
		char *nmz = H5Tget_member_name(ft, (unsigned)i);
		if (!nmz)
			goto out;
		out->field[out->n_fields] = dup_str(nmz);
		H5free_memory(nmz);
		out->unit[out->n_fields] = dup_str((size_t)i < n_units ? units[i] : "");
		if (!out->field[out->n_fields] || !out->unit[out->n_fields])
			goto out;
		out->n_fields++;
	}
	*row_size = *qw + out->n_fields * sizeof(double);
	mt = H5Tcreate(H5T_COMPOUND, *row_size ? *row_size : 1);
	int bad = mt < 0 || (*qw && (st < 0 || H5Tinsert(mt, key, 0, st) < 0));
	for (size_t k = 0; !bad && k < out->n_fields; k++)
		bad = H5Tinsert(mt, out->field[k], *qw + k * sizeof(double), H5T_NATIVE_DOUBLE) < 0;
	if (bad) {
		if (mt >= 0)
			H5Tclose(mt);
		mt = -1;
	}
out:
	if (st >= 0)
		H5Tclose(st);
	h5read_strings_free(units);
	return mt;
}

/* Reads /runs/<run>/<name>, a table of a string field `key` (NULL: none, and out->key
 * stays NULL) and numeric fields, into out. A table the file does not have (an older
 * schema) leaves out->present 0. */
static int read_num_table(const struct h5read_file *f, const char *run, const char *name, const char *key,
			  struct h5read_table *out, struct sim_diag *diag)
{
	memset(out, 0, sizeof *out);
	if (h5read_run_find(f, run) < 0) {
		sim_diag_add(diag, f->path, "no run named '%s'", run);
		return -SIM_ENOENT;
	}
	if (run_has(f, run, name) == 0)
		return 0; /* an older schema */
	int err = 0;
	hid_t d = open_in_run(f, run, name, 1, diag, &err);
	if (d < 0)
		return err;
	char where[512];
	snprintf(where, sizeof where, "%s: /runs/%s/%s", f->path, run, name);
	int r = -SIM_ENOMEM;
	hid_t ft = H5Dget_type(d), sp = H5Dget_space(d), mt = -1;
	char *buf = NULL;
	size_t qw = 0, size = 0;
	if (ft < 0 || sp < 0 || H5Tget_class(ft) != H5T_COMPOUND) {
		r = h5err(diag, where, "not a compound table");
		goto out_close;
	}
	hssize_t np = H5Sget_simple_extent_npoints(sp);
	if (np < 0 || (mt = num_table_mtype(ft, d, key, out, &qw, &size)) < 0) {
		r = h5err(diag, where, "cannot read the table layout");
		goto out_close;
	}
	size_t n = (size_t)np;
	buf = calloc(n ? n : 1, size ? size : 1);
	out->key = key ? calloc(n + 1, sizeof *out->key) : NULL;
	out->v = calloc((n ? n : 1) * (out->n_fields ? out->n_fields : 1), sizeof *out->v);
	if (!buf || (key && !out->key) || !out->v)
		goto out_close;
	if (n > 0 && size > 0 && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
		r = h5err(diag, where, "cannot read rows");
		goto out_close;
	}
	for (size_t i = 0; i < n; i++) {
		const char *row = buf + i * size;
		if (key && !(out->key[i] = qw ? dup_n(row, strnlen(row, qw)) : dup_str("")))
			goto out_close;
		out->n_rows = i + 1;
		memcpy(&out->v[i * out->n_fields], row + qw, out->n_fields * sizeof(double));
	}
	out->n_rows = n;
	out->present = 1;
	r = 0;
out_close:
	if (r == -SIM_ENOMEM)
		sim_diag_add(diag, where, "out of memory");
	if (r != 0)
		h5read_table_free(out);
	free(buf);
	if (mt >= 0)
		H5Tclose(mt);
	if (sp >= 0)
		H5Sclose(sp);
	if (ft >= 0)
		H5Tclose(ft);
	H5Dclose(d);
	return r;
}

int h5read_queues(const struct h5read_file *f, const char *run, struct h5read_table *out,
		  struct sim_diag *diag)
{
	return read_num_table(f, run, "queues", "queue", out, diag);
}

int h5read_faults(const struct h5read_file *f, const char *run, struct h5read_table *out, struct sim_diag *diag)
{
	return read_num_table(f, run, "faults", "id", out, diag);
}

int h5read_options(const struct h5read_file *f, const char *run, struct h5read_table *out,
		   struct sim_diag *diag)
{
	return read_num_table(f, run, "options", NULL, out, diag);
}

/* ---- timeseries ---- */

void h5read_timeseries_free(struct h5read_timeseries *ts)
{
	if (!ts)
		return;
	free(ts->t_s);
	free(ts->gpus_busy);
	free(ts->jobs_queued);
	free(ts->nodes_down);
	free(ts->jobs_running);
	free(ts->gpus_busy_by_flavor);
	h5read_strings_free(ts->flavor_names);
	free(ts->queue_usage);
	free(ts->queue_nominal);
	free(ts->queue_borrowed);
	free(ts->queue_lent);
	h5read_strings_free(ts->queue_names);
	memset(ts, 0, sizeof *ts);
}

/* Reads a dataset of doubles; dims[1] is 1 for a 1-D dataset. */
static int read_doubles(hid_t g, const char *name, double **out, hsize_t dims[2])
{
	hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
	if (d < 0)
		return -1;
	int r = -1;
	hid_t sp = H5Dget_space(d);
	int rank = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
	dims[0] = 0;
	dims[1] = 1;
	if (rank == 1 || rank == 2) {
		if (H5Sget_simple_extent_dims(sp, dims, NULL) >= 0) {
			size_t cnt = (size_t)dims[0] * (size_t)dims[1];
			*out = calloc(cnt ? cnt : 1, sizeof **out);
			if (*out && (cnt == 0 || H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
							 *out) >= 0))
				r = 0;
		}
	}
	if (sp >= 0)
		H5Sclose(sp);
	H5Dclose(d);
	return r;
}

/* The optional per-queue series (schema 1.2): queue_usage (which names the columns
 * in queue_names), and queue_nominal / borrowed / lent when the run had quotas. Each
 * must have out->n rows and the same columns. */
static int read_queue_series(hid_t g, const char *where, struct h5read_timeseries *out, struct sim_diag *diag)
{
	static const char *const names[] = { "queue_usage", "queue_nominal", "queue_borrowed", "queue_lent" };
	double **dst[] = { &out->queue_usage, &out->queue_nominal, &out->queue_borrowed, &out->queue_lent };
	for (size_t k = 0; k < 4; k++) {
		htri_t ex = H5Lexists(g, names[k], H5P_DEFAULT);
		if (ex < 0)
			return h5err(diag, where, "cannot list the time series");
		if (ex == 0 || (k > 0 && !out->queue_usage))
			continue;
		hsize_t dims[2];
		if (read_doubles(g, names[k], dst[k], dims) < 0) {
			char what[128];
			snprintf(what, sizeof what, "dataset '%s' is unreadable", names[k]);
			return h5err(diag, where, what);
		}
		if (k == 0)
			out->n_queues = (size_t)dims[1];
		if ((size_t)dims[0] != out->n || (size_t)dims[1] != out->n_queues) {
			sim_diag_add(diag, where, "'%s' is %llu x %llu, expected %zu x %zu", names[k],
				     (unsigned long long)dims[0], (unsigned long long)dims[1], out->n,
				     out->n_queues);
			return -SIM_EPARSE;
		}
	}
	if (!out->queue_usage)
		return 0;
	hid_t d = H5Dopen2(g, "queue_usage", H5P_DEFAULT);
	size_t nn = 0;
	int r = 0;
	if (d < 0 || read_str_array_attr(d, "queue_names", &out->queue_names, &nn) != 0 ||
	    nn != out->n_queues)
		r = h5err(diag, where, "cannot read queue_names (or it does not match the columns)");
	if (d >= 0)
		H5Dclose(d);
	return r;
}

int h5read_timeseries(const struct h5read_file *f, const char *run, struct h5read_timeseries *out,
		      struct sim_diag *diag)
{
	memset(out, 0, sizeof *out);
	int err = 0;
	hid_t g = open_in_run(f, run, "timeseries", 0, diag, &err);
	if (g < 0)
		return err;
	char where[512];
	snprintf(where, sizeof where, "%s: /runs/%s/timeseries", f->path, run);
	static const char *const names[] = { "t_s", "gpus_busy", "jobs_queued", "jobs_running",
					     "gpus_busy_by_flavor" };
	double **dst[] = { &out->t_s, &out->gpus_busy, &out->jobs_queued, &out->jobs_running,
			   &out->gpus_busy_by_flavor };
	int r = 0;
	for (size_t k = 0; k < 5 && r == 0; k++) {
		hsize_t dims[2];
		if (read_doubles(g, names[k], dst[k], dims) < 0) {
			char what[128];
			snprintf(what, sizeof what, "dataset '%s' is missing or unreadable", names[k]);
			r = h5err(diag, where, what);
			break;
		}
		if (k == 0)
			out->n = (size_t)dims[0];
		if ((size_t)dims[0] != out->n) {
			sim_diag_add(diag, where, "'%s' has %llu rows, expected %zu", names[k],
				     (unsigned long long)dims[0], out->n);
			r = -SIM_EPARSE;
		}
		if (k == 4)
			out->n_flavors = (size_t)dims[1];
	}
	if (r == 0) {
		hid_t d = H5Dopen2(g, "gpus_busy_by_flavor", H5P_DEFAULT);
		size_t nn = 0;
		if (d < 0 || read_str_array_attr(d, "flavor_names", &out->flavor_names, &nn) != 0 ||
		    nn != out->n_flavors) {
			r = h5err(diag, where, "cannot read flavor_names (or it does not match the columns)");
		}
		if (d >= 0)
			H5Dclose(d);
	}
	if (r == 0)
		r = read_queue_series(g, where, out, diag);
	if (r == 0 && H5Lexists(g, "nodes_down", H5P_DEFAULT) > 0) { /* 2.0, runs with node failures */
		hsize_t dims[2];
		if (read_doubles(g, "nodes_down", &out->nodes_down, dims) < 0)
			r = h5err(diag, where, "dataset 'nodes_down' is unreadable");
		else if ((size_t)dims[0] != out->n) {
			sim_diag_add(diag, where, "'nodes_down' has %llu rows, expected %zu", (unsigned long long)dims[0],
				     out->n);
			r = -SIM_EPARSE;
		}
	}
	H5Gclose(g);
	if (r != 0)
		h5read_timeseries_free(out);
	return r;
}

/* ---- root numbers and the real-mode group (schema 1.4) ---- */

/* Reads a scalar numeric attribute as a double: 0, 1 when absent, -1 on error (not a
 * number, or more than one element). */
static int read_num_attr(hid_t obj, const char *name, double *out)
{
	htri_t ex = H5Aexists(obj, name);
	if (ex == 0)
		return 1;
	if (ex < 0)
		return -1;
	hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
	if (a < 0)
		return -1;
	hid_t t = H5Aget_type(a), sp = H5Aget_space(a);
	H5T_class_t cl = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
	int r = (cl == H5T_FLOAT || cl == H5T_INTEGER) && sp >= 0 && H5Sget_simple_extent_npoints(sp) == 1 &&
			H5Aread(a, H5T_NATIVE_DOUBLE, out) >= 0
		? 0
		: -1;
	if (sp >= 0)
		H5Sclose(sp);
	if (t >= 0)
		H5Tclose(t);
	H5Aclose(a);
	return r;
}

int h5read_root_attr_num(const struct h5read_file *f, const char *name, double *out, struct sim_diag *diag)
{
	*out = NAN;
	int r = read_num_attr(f->file, name, out);
	if (r < 0) {
		*out = NAN;
		char what[160];
		snprintf(what, sizeof what, "root attribute '%s' is not a number", name);
		return h5err(diag, f->path, what);
	}
	return 0;
}

static const struct col real_job_cols[] = {
	{ "id", COL_STR, offsetof(struct h5read_real_jobs, id), 0 },
	{ "measured_runtime_s", COL_F64, offsetof(struct h5read_real_jobs, measured_runtime_s), 0 },
	{ "predicted_runtime_s", COL_F64, offsetof(struct h5read_real_jobs, predicted_runtime_s), 0 },
	{ "decision_latency_s", COL_F64, offsetof(struct h5read_real_jobs, decision_latency_s), 0 },
};
#define N_REAL_JOB_COLS (sizeof real_job_cols / sizeof real_job_cols[0])

static const struct col real_seg_cols[] = {
	{ "id", COL_STR, offsetof(struct h5read_real_segments, id), 0 },
	{ "gpu0", COL_U32, offsetof(struct h5read_real_segments, gpu0), 0 },
	{ "n_gpus", COL_U32, offsetof(struct h5read_real_segments, n_gpus), 0 },
	{ "start_s", COL_F64, offsetof(struct h5read_real_segments, start_s), 0 },
	{ "end_s", COL_F64, offsetof(struct h5read_real_segments, end_s), 0 },
	{ "predicted_s", COL_F64, offsetof(struct h5read_real_segments, predicted_s), 0 },
	{ "from", COL_F64, offsetof(struct h5read_real_segments, from), 0 },
	{ "done", COL_F64, offsetof(struct h5read_real_segments, done), 0 },
	{ "saved", COL_F64, offsetof(struct h5read_real_segments, saved), 0 },
	{ "ckpts", COL_U32, offsetof(struct h5read_real_segments, ckpts), 0 },
	{ "outcome", COL_STR, offsetof(struct h5read_real_segments, outcome), 1 },
};
#define N_REAL_SEG_COLS (sizeof real_seg_cols / sizeof real_seg_cols[0])

static const struct col real_cal_cols[] = {
	{ "flavor", COL_STR, offsetof(struct h5read_real_calibration, flavor), 0 },
	{ "iter_ns", COL_F64, offsetof(struct h5read_real_calibration, iter_ns), 0 },
};
#define N_REAL_CAL_COLS (sizeof real_cal_cols / sizeof real_cal_cols[0])

/* The group's numbers read NaN until read. */
static void real_numbers_nan(struct h5read_real *r)
{
	r->time_scale = r->wall_s = r->busy_gpu_wall_s = r->gpu_utilization = r->failed_segments = NAN;
}

void h5read_real_free(struct h5read_real *r)
{
	if (!r)
		return;
	free(r->backend);
	free(r->device);
	free(r->decision_latency_s);
	cols_free(real_job_cols, N_REAL_JOB_COLS, &r->jobs, &r->jobs.priv_);
	cols_free(real_seg_cols, N_REAL_SEG_COLS, &r->segments, &r->segments.priv_);
	cols_free(real_cal_cols, N_REAL_CAL_COLS, &r->calibration, &r->calibration.priv_);
	memset(r, 0, sizeof *r);
	real_numbers_nan(r);
}

/* One compound table of the real group into columns; a table the group lacks leaves
 * *n at 0 and the columns NULL. */
static int real_table(hid_t g, const char *where, const char *name, const struct col *cols, size_t ncols,
		      void *out, size_t *n, struct h5read_cols_ *p, struct sim_diag *diag)
{
	htri_t ex = H5Lexists(g, name, H5P_DEFAULT);
	if (ex < 0)
		return h5err(diag, where, "cannot list the group");
	if (ex == 0)
		return 0;
	char w[600];
	snprintf(w, sizeof w, "%s/%s", where, name);
	hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
	if (d < 0)
		return h5err(diag, w, "cannot open the table");
	int r = read_cols(d, w, cols, ncols, out, n, p, diag);
	H5Dclose(d);
	return r;
}

/* The group's attributes: strings "" and numbers NaN when absent. */
static int real_attrs(hid_t g, const char *where, struct h5read_real *out, struct sim_diag *diag)
{
	char **s[] = { &out->backend, &out->device };
	const char *sn[] = { "backend", "device" };
	for (size_t k = 0; k < 2; k++) {
		int r = read_str_attr(g, sn[k], s[k]);
		if (r < 0)
			return h5err(diag, where, "cannot read a string attribute");
		if (r == 1 && !(*s[k] = dup_str("")))
			return -SIM_ENOMEM;
	}
	double *v[] = { &out->time_scale, &out->wall_s, &out->busy_gpu_wall_s, &out->gpu_utilization,
			&out->failed_segments };
	const char *vn[] = { "time_scale", "wall_s", "busy_gpu_wall_s", "gpu_utilization",
			     "failed_segments" };
	for (size_t k = 0; k < 5; k++) {
		int r = read_num_attr(g, vn[k], v[k]);
		if (r != 0)
			*v[k] = NAN;
		if (r < 0) {
			char what[160];
			snprintf(what, sizeof what, "attribute '%s' is not a number", vn[k]);
			return h5err(diag, where, what);
		}
	}
	return 0;
}

int h5read_real(const struct h5read_file *f, const char *run, struct h5read_real *out, struct sim_diag *diag)
{
	memset(out, 0, sizeof *out);
	real_numbers_nan(out);
	if (h5read_run_find(f, run) < 0) {
		sim_diag_add(diag, f->path, "no run named '%s'", run);
		return -SIM_ENOENT;
	}
	if (run_has(f, run, "real") == 0)
		return 0; /* a simulation, or a file older than schema 1.4 */
	int err = 0;
	hid_t g = open_in_run(f, run, "real", 0, diag, &err);
	if (g < 0)
		return err;
	char where[512];
	snprintf(where, sizeof where, "%s: /runs/%s/real", f->path, run);
	int r = real_attrs(g, where, out, diag);
	if (!r)
		r = real_table(g, where, "jobs", real_job_cols, N_REAL_JOB_COLS, &out->jobs, &out->jobs.n,
			       &out->jobs.priv_, diag);
	if (!r)
		r = real_table(g, where, "segments", real_seg_cols, N_REAL_SEG_COLS, &out->segments,
			       &out->segments.n, &out->segments.priv_, diag);
	if (!r)
		r = real_table(g, where, "calibration", real_cal_cols, N_REAL_CAL_COLS, &out->calibration,
			       &out->calibration.n, &out->calibration.priv_, diag);
	if (!r) {
		htri_t ex = H5Lexists(g, "decision_latency_s", H5P_DEFAULT);
		hsize_t dims[2];
		if (ex < 0)
			r = h5err(diag, where, "cannot list the group");
		else if (ex > 0 && read_doubles(g, "decision_latency_s", &out->decision_latency_s, dims) < 0)
			r = h5err(diag, where, "dataset 'decision_latency_s' is unreadable");
		else if (ex > 0 && dims[1] != 1)
			r = sim_diag_add(diag, where, "'decision_latency_s' is not 1-D");
		else if (ex > 0)
			out->n_latencies = (size_t)dims[0];
	}
	H5Gclose(g);
	if (r == -SIM_ENOMEM)
		sim_diag_add(diag, where, "out of memory");
	if (r)
		h5read_real_free(out);
	else
		out->present = 1;
	return r;
}

/* ---- any compound table, every field as text ---- */

void h5read_rows_free(struct h5read_rows *t)
{
	if (!t)
		return;
	h5read_strings_free(t->field);
	free(t->numeric);
	memset(t, 0, sizeof *t);
}

void h5read_format_double(double x, char *buf, size_t n)
{
	if (isnan(x)) {
		snprintf(buf, n, "%s", "");
		return;
	}
	/* The shortest precision that reads back as the same double. */
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, n, "%.*g", prec, x);
		if (strtod(buf, NULL) == x)
			return;
	}
}

/* How one field is read: its memory type, its offset in the memory row, and what
 * to print it as. */
enum cell_kind { CELL_STR, CELL_INT, CELL_UINT, CELL_FLOAT, CELL_ENUM };

struct cell_plan {
	enum cell_kind kind;
	size_t off, width; /* width: string bytes, or the enum's value bytes */
	hid_t mtype;       /* owned */
};

/* The plan of a field of file type memb (borrowed); mtype -1 (skipped) for a type it
 * does not print. */
static int cell_plan_type(hid_t memb, struct cell_plan *c)
{
	H5T_class_t cl = H5Tget_class(memb);
	c->mtype = -1;
	switch (cl) {
	case H5T_STRING:
		c->width = fixed_str_size(memb);
		if (c->width)
			c->kind = CELL_STR, c->mtype = fixed_str_mem(c->width, memb);
		break;
	case H5T_INTEGER:
		c->kind = H5Tget_sign(memb) == H5T_SGN_NONE ? CELL_UINT : CELL_INT;
		c->mtype = H5Tcopy(c->kind == CELL_UINT ? H5T_NATIVE_UINT64 : H5T_NATIVE_INT64);
		c->width = 8;
		break;
	case H5T_FLOAT:
		c->kind = CELL_FLOAT, c->mtype = H5Tcopy(H5T_NATIVE_DOUBLE), c->width = 8;
		break;
	case H5T_ENUM:
		c->kind = CELL_ENUM, c->mtype = H5Tget_native_type(memb, H5T_DIR_DEFAULT);
		c->width = c->mtype >= 0 ? H5Tget_size(c->mtype) : 0;
		break;
	default:
		break;
	}
	return 0;
}

/* The plan of member i of ft; kind -1 (skipped) for a type it does not print. */
static int cell_plan_make(hid_t ft, unsigned i, struct cell_plan *c)
{
	hid_t memb = H5Tget_member_type(ft, i);
	if (memb < 0)
		return -1;
	int r = cell_plan_type(memb, c);
	H5Tclose(memb);
	return r;
}

/* Formats the cell of plan c at src into buf (n bytes). */
static void cell_format(const struct cell_plan *c, const char *src, char *buf, size_t n)
{
	switch (c->kind) {
	case CELL_STR:
		snprintf(buf, n, "%.*s", (int)strnlen(src, c->width), src);
		break;
	case CELL_INT: {
		int64_t v;
		memcpy(&v, src, sizeof v);
		snprintf(buf, n, "%lld", (long long)v);
		break;
	}
	case CELL_UINT: {
		uint64_t v;
		memcpy(&v, src, sizeof v);
		snprintf(buf, n, "%llu", (unsigned long long)v);
		break;
	}
	case CELL_FLOAT: {
		double v;
		memcpy(&v, src, sizeof v);
		h5read_format_double(v, buf, n);
		break;
	}
	case CELL_ENUM:
		if (H5Tenum_nameof(c->mtype, src, buf, n) < 0) {
			H5Eclear2(H5E_DEFAULT);
			snprintf(buf, n, "%s", "");
		}
		break;
	}
}

/* The plans of every printable member of ft, and t's field names; *size gets the
 * memory row's bytes and *mt the memory type. Returns 0, -1 (HDF5) or -SIM_ENOMEM. */
static int rows_plan(hid_t ft, struct h5read_rows *t, struct cell_plan **plans, hid_t *mt, size_t *size)
{
	int nm = H5Tget_nmembers(ft);
	if (nm < 0)
		return -1;
	*plans = calloc((size_t)nm + 1, sizeof **plans);
	t->field = calloc((size_t)nm + 1, sizeof *t->field);
	t->numeric = calloc((size_t)nm + 1, sizeof *t->numeric);
	if (!*plans || !t->field || !t->numeric)
		return -SIM_ENOMEM;
	*size = 0;
	for (unsigned i = 0; i < (unsigned)nm; i++) {
		struct cell_plan *c = &(*plans)[t->n_fields];
		if (cell_plan_make(ft, i, c) < 0)
			return -1;
		if (c->mtype < 0)
			continue;
		char *name = H5Tget_member_name(ft, i);
		if (!name)
			return -1;
		t->field[t->n_fields] = dup_str(name);
		H5free_memory(name);
		if (!t->field[t->n_fields])
			return -SIM_ENOMEM;
		t->numeric[t->n_fields] = c->kind == CELL_INT || c->kind == CELL_UINT || c->kind == CELL_FLOAT;
		c->off = *size;
		*size += c->width;
		t->n_fields++;
	}
	*mt = H5Tcreate(H5T_COMPOUND, *size ? *size : 1);
	if (*mt < 0)
		return -1;
	for (size_t k = 0; k < t->n_fields; k++)
		if (H5Tinsert(*mt, t->field[k], (*plans)[k].off, (*plans)[k].mtype) < 0)
			return -1;
	return 0;
}

/* Reads the rows of d block by block and calls fn per row. */
static int rows_read(hid_t d, hid_t sp, hid_t mt, size_t size, const struct cell_plan *plans,
		     const struct h5read_rows *t, h5read_row_fn fn, void *arg)
{
	size_t n = t->n_rows, block = n < READ_BLOCK_ROWS ? n : READ_BLOCK_ROWS, cap = 64;
	for (size_t k = 0; k < t->n_fields; k++)
		if (plans[k].width + 1 > cap)
			cap = plans[k].width + 1;
	char *buf = malloc((block ? block : 1) * (size ? size : 1));
	char *text = malloc((t->n_fields ? t->n_fields : 1) * cap);
	const char **cells = calloc(t->n_fields + 1, sizeof *cells);
	int r = (!buf || !text || !cells) ? -SIM_ENOMEM : 0;
	for (size_t k = 0; r == 0 && k < t->n_fields; k++)
		cells[k] = text + k * cap;
	for (size_t first = 0; r == 0 && first < n; first += block) {
		hsize_t start = first, cnt = n - first < block ? n - first : block;
		hid_t ms = H5Screate_simple(1, &cnt, NULL);
		if (ms < 0 || H5Sselect_hyperslab(sp, H5S_SELECT_SET, &start, NULL, &cnt, NULL) < 0 ||
		    H5Dread(d, mt, ms, sp, H5P_DEFAULT, buf) < 0)
			r = -SIM_EPARSE;
		if (ms >= 0)
			H5Sclose(ms);
		for (size_t i = 0; r == 0 && i < cnt; i++) {
			for (size_t k = 0; k < t->n_fields; k++)
				cell_format(&plans[k], buf + i * size + plans[k].off, text + k * cap, cap);
			r = fn(arg, t, first + i, cells);
		}
	}
	free(buf);
	free(text);
	free(cells);
	return r;
}

/* The column names of group g in table order: its links in creation order (how
 * gpusched writes them), or by name when the group does not track the order. */
static int group_columns(hid_t g, char ***names, size_t *n)
{
	H5G_info_t gi;
	*names = NULL;
	*n = 0;
	if (H5Gget_info(g, &gi) < 0)
		return -1;
	*names = calloc(gi.nlinks + 1, sizeof **names);
	if (!*names)
		return -SIM_ENOMEM;
	H5_index_t idx = H5_INDEX_CRT_ORDER;
	for (hsize_t k = 0; k < gi.nlinks; k++) {
		ssize_t len = H5Lget_name_by_idx(g, ".", idx, H5_ITER_INC, k, NULL, 0, H5P_DEFAULT);
		if (len < 0 && idx == H5_INDEX_CRT_ORDER && k == 0) {
			H5Eclear2(H5E_DEFAULT);
			idx = H5_INDEX_NAME;
			len = H5Lget_name_by_idx(g, ".", idx, H5_ITER_INC, k, NULL, 0, H5P_DEFAULT);
		}
		if (len < 0)
			return -1;
		char *nm = malloc((size_t)len + 1);
		if (!nm)
			return -SIM_ENOMEM;
		(*names)[(*n)++] = nm;
		if (H5Lget_name_by_idx(g, ".", idx, H5_ITER_INC, k, nm, (size_t)len + 1, H5P_DEFAULT) < 0)
			return -1;
	}
	return 0;
}

/* h5read_each_row of a column group (2.0): each 1-D dataset a field, read block by
 * block. */
static int group_each_row(hid_t g, const char *where, struct h5read_rows *t, h5read_row_fn fn, void *arg,
			  struct sim_diag *diag)
{
	char **names = NULL;
	size_t n_names = 0;
	int r = group_columns(g, &names, &n_names);
	if (r == -1)
		r = h5err(diag, where, "cannot list the table's columns");
	hid_t *ds = calloc(n_names + 1, sizeof *ds);
	struct cell_plan *plans = calloc(n_names + 1, sizeof *plans);
	char **bufs = calloc(n_names + 1, sizeof *bufs);
	t->field = calloc(n_names + 1, sizeof *t->field);
	t->numeric = calloc(n_names + 1, sizeof *t->numeric);
	if (r == 0 && (!ds || !plans || !bufs || !t->field || !t->numeric))
		r = -SIM_ENOMEM;
	for (size_t k = 0; ds && k < n_names; k++)
		ds[k] = -1;
	int have_n = 0;
	for (size_t k = 0; r == 0 && k < n_names; k++) {
		struct cell_plan *c = &plans[t->n_fields];
		hid_t d = H5Dopen2(g, names[k], H5P_DEFAULT);
		hid_t ft = d >= 0 ? H5Dget_type(d) : -1;
		long long rows = d >= 0 ? column_rows(d) : -1;
		c->mtype = -1;
		if (ft < 0 || rows < 0 || cell_plan_type(ft, c) < 0) {
			r = h5err(diag, where, "cannot read the table's fields");
		} else if (c->mtype >= 0 && have_n && (size_t)rows != t->n_rows) {
			sim_diag_add(diag, where,
				     "column '%s' has %lld rows, expected %zu as the columns before it",
				     names[k], rows, t->n_rows);
			r = -SIM_EPARSE;
		} else if (c->mtype >= 0) {
			t->n_rows = (size_t)rows;
			have_n = 1;
			ds[t->n_fields] = d;
			d = -1;
			t->numeric[t->n_fields] =
				c->kind == CELL_INT || c->kind == CELL_UINT || c->kind == CELL_FLOAT;
			t->field[t->n_fields++] = names[k];
			names[k] = NULL;
		}
		if (d >= 0 && c->mtype >= 0) /* not taken */
			H5Tclose(c->mtype);
		if (ft >= 0)
			H5Tclose(ft);
		if (d >= 0)
			H5Dclose(d);
	}
	t->present = r == 0;
	size_t n = t->n_rows, block = n < READ_BLOCK_ROWS ? n : READ_BLOCK_ROWS, cap = 64;
	for (size_t k = 0; r == 0 && k < t->n_fields; k++) {
		if (plans[k].width + 1 > cap)
			cap = plans[k].width + 1;
		if (!(bufs[k] = malloc((block ? block : 1) * plans[k].width)))
			r = -SIM_ENOMEM;
	}
	char *text = r == 0 ? malloc((t->n_fields ? t->n_fields : 1) * cap) : NULL;
	const char **cells = r == 0 ? calloc(t->n_fields + 1, sizeof *cells) : NULL;
	if (r == 0 && (!text || !cells))
		r = -SIM_ENOMEM;
	for (size_t k = 0; r == 0 && k < t->n_fields; k++)
		cells[k] = text + k * cap;
	for (size_t first = 0; r == 0 && fn && first < n; first += block) {
		hsize_t start = first, cnt = n - first < block ? n - first : block;
		hid_t ms = H5Screate_simple(1, &cnt, NULL);
		for (size_t k = 0; r == 0 && k < t->n_fields; k++) {
			hid_t sp = H5Dget_space(ds[k]);
			if (ms < 0 || sp < 0 ||
			    H5Sselect_hyperslab(sp, H5S_SELECT_SET, &start, NULL, &cnt, NULL) < 0 ||
			    H5Dread(ds[k], plans[k].mtype, ms, sp, H5P_DEFAULT, bufs[k]) < 0)
				r = h5err(diag, where, "cannot read rows");
			if (sp >= 0)
				H5Sclose(sp);
		}
		if (ms >= 0)
			H5Sclose(ms);
		for (size_t i = 0; r == 0 && i < cnt; i++) {
			for (size_t k = 0; k < t->n_fields; k++)
				cell_format(&plans[k], bufs[k] + i * plans[k].width, text + k * cap, cap);
			r = fn(arg, t, first + i, cells);
		}
	}
	if (r == -SIM_ENOMEM)
		sim_diag_add(diag, where, "out of memory");
	free(text);
	free(cells);
	for (size_t k = 0; k < n_names; k++) {
		free(names ? names[k] : NULL);
		if (bufs)
			free(bufs[k]);
		if (ds && ds[k] >= 0)
			H5Dclose(ds[k]);
		if (plans && plans[k].mtype >= 0 && k < t->n_fields)
			H5Tclose(plans[k].mtype);
	}
	free(names);
	free(ds);
	free(plans);
	free(bufs);
	return r;
}

int h5read_each_row(const struct h5read_file *f, const char *obj_path, struct h5read_rows *t, h5read_row_fn fn,
		    void *arg, struct sim_diag *diag)
{
	memset(t, 0, sizeof *t);
	htri_t ex = H5Lexists(f->file, obj_path, H5P_DEFAULT);
	if (ex < 0 && strncmp(obj_path, "/runs/", 6) == 0) {
		ex = 0; /* a missing intermediate group (/runs/<run>/real in a simulation) */
	}
	H5Eclear2(H5E_DEFAULT);
	if (ex <= 0) {
		/* Also a missing parent group: a table an older schema (or simulation) lacks. */
		return 0;
	}
	char where[1024];
	snprintf(where, sizeof where, "%s: %s", f->path, obj_path);
	hid_t d = H5Oopen(f->file, obj_path, H5P_DEFAULT);
	if (d < 0)
		return h5err(diag, f->path, "cannot open table");
	if (H5Iget_type(d) == H5I_GROUP) {
		int rg = group_each_row(d, where, t, fn, arg, diag);
		H5Oclose(d);
		if (rg < 0 && rg != -SIM_ENOMEM)
			h5read_rows_free(t);
		return rg;
	}
	hid_t ft = H5Dget_type(d), sp = H5Dget_space(d), mt = -1;
	struct cell_plan *plans = NULL;
	size_t size = 0;
	int r;
	if (ft < 0 || sp < 0 || H5Tget_class(ft) != H5T_COMPOUND) {
		r = h5err(diag, where, "not a compound table");
		goto out;
	}
	hssize_t np = H5Sget_simple_extent_npoints(sp);
	r = np < 0 ? -1 : rows_plan(ft, t, &plans, &mt, &size);
	if (r == -1) {
		r = h5err(diag, where, "cannot read the table's fields");
		goto out;
	}
	t->present = 1;
	t->n_rows = (size_t)np;
	if (r == 0 && fn)
		r = rows_read(d, sp, mt, size, plans, t, fn, arg);
	if (r == -SIM_EPARSE)
		r = h5err(diag, where, "cannot read rows");
	else if (r == -SIM_ENOMEM)
		sim_diag_add(diag, where, "out of memory");
out:
	for (size_t k = 0; plans && k < t->n_fields; k++)
		if (plans[k].mtype >= 0)
			H5Tclose(plans[k].mtype);
	free(plans);
	if (mt >= 0)
		H5Tclose(mt);
	if (sp >= 0)
		H5Sclose(sp);
	if (ft >= 0)
		H5Tclose(ft);
	H5Dclose(d);
	if (r < 0 && r != -SIM_ENOMEM)
		h5read_rows_free(t);
	return r;
}
