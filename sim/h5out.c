/* sim/h5out.c: the HDF5 results writer (layout and formulas in analysis/SCHEMA.md).
 *
 * HDF5 runs in return-code mode (H5Eset_auto2 off): every hid_t / herr_t is
 * checked, and the innermost message of HDF5's error stack goes into the diag.
 * The file is written under a new temporary name beside PATH and renamed on commit, so a reader never sees a
 * half-written PATH (git's lockfile.h pattern). Root attributes are written at
 * create, except "seeds", which is collected from the runs and written at commit
 * (h5out_meta does not carry the seeds).
 *
 * Strings are fixed-length, NUL-terminated, UTF-8 (sized to the longest value, so
 * a compound row has a fixed size). Tables larger than SMALL_BYTES are chunked
 * (about CHUNK_BYTES a chunk) and compressed with shuffle + deflate level 1;
 * smaller ones are contiguous, which costs less for the many tiny runs of a sweep.
 *
 * The jobs table is the bulk of a file (about 100 to 175 bytes a job). Since schema
 * 2.0 it is a group of one 1-D dataset a field (analysis/SCHEMA.md, "Storage"), cut
 * into blocks of at most JOB_BLOCK_ROWS rows, a block being one chunk of every
 * column. Built with zlib (SIM_HAVE_ZLIB), the columns are not pushed through
 * HDF5's filter pipeline: up to ZIP_THREADS threads each take the next block, fill
 * it, and shuffle + deflate the columns chosen for it (the others stay raw), while
 * the calling thread stores the finished chunks in order with H5Dwrite_chunk (only
 * zlib and reads of the finished run happen on the other threads). The chunks are
 * exactly what the datasets' filter pipelines (shuffle, then deflate) decode, so
 * readers see no difference; deflate uses zlib's run-length strategy (Z_RLE), which
 * on shuffled columns is 1.6x as fast as the default strategy for a file 1.5%
 * larger (still level 1, as far as the file says: Z_RLE ignores the level). The
 * bytes written do not depend on the number of threads. Without zlib, or with
 * h5out_set_hdf5_filters(1), HDF5 filters the columns itself, on one thread.
 */
#define _GNU_SOURCE /* fallocate */
#include "h5out.h"

#include "h5diag.h"
#include "outpath.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <hdf5.h>
#include <hdf5_hl.h>

#ifdef SIM_HAVE_ZLIB
#include <pthread.h>
#include <stdatomic.h>
#include <zlib.h>
#endif

#include "metrics_job.h"

#define SMALL_BYTES (64u * 1024u)
#define CHUNK_BYTES (1024u * 1024u)
#define WRITE_BLOCK_ROWS 65536u /* rows packed per H5Dwrite of a row table */
#define JOB_BLOCK_ROWS 16384u /* most rows of a chunk of the jobs columns (128 KiB of doubles) */
#define COMPRESS_MAX_RATIO 0.5 /* a jobs column is deflated when that at least halves it */
#define CHOOSE_SAMPLE_ROWS 16384u /* rows of the first block deflated to choose a column's filter */
#define DEFLATE_LEVEL 1 /* level 4 cost ~0.5 s on 1M jobs for ~10% smaller files */
#define ZIP_THREADS 4   /* most threads deflating the jobs table (at most the online CPUs) */

/* A run's row of /summary. variant indexes the sweep's variants (SIZE_MAX: none,
 * a file without a sweep or a copied run whose variant the sweep does not name). */
struct sum_row {
	char *run;
	char *policy;
	char *pol[SIM_FAM_COUNT_]; /* policy names by family */
	char *placement;
	size_t variant;
	char *fallback; /* the variant without a sweep: the run name less "-s<seed>" */
	uint64_t seed;
	struct sim_summary s;
};

enum h5out_state { H5OUT_OPEN, H5OUT_DONE };

struct h5out {
	char *path;     /* final name */
	char *tmp_path; /* PATH.XXXXXX.tmp (created exclusively), written until commit */
	hid_t file;
	hid_t runs;     /* /runs */
	enum h5out_state state;
	int broken;        /* 1 after a failed copy: the file may be inconsistent, write no more */
	uint64_t reserved; /* bytes of the file reserved on disk (reserve_space), for commit to release */
	const struct h5out_sweep *sweep; /* meta->sweep (the caller's, alive until commit) or NULL */
	struct sum_row *rows; /* one a written run, for /summary */
	size_t n_rows, cap_rows;
};

/* ---- error reporting ---- */

/* Adds "where: what (HDF5: ...)", naming a full disk when errno says so; a failed
 * write is a runtime failure. */
static int h5err(struct sim_diag *diag, const char *where, const char *what)
{
	const char *full = sim_out_full_disk(errno);
	char buf[256];
	if (full)
		snprintf(buf, sizeof buf, "%s: %s", what, full);
	sim_h5_diag(diag, where, full ? buf : what);
	return -SIM_EHDF5;
}

static void close_type(hid_t t)
{
	if (t >= 0)
		H5Tclose(t);
}

/* ---- attributes ---- */

/* A fixed-length NUL-terminated UTF-8 string type of `size` bytes (>= 1). */
static hid_t str_type(size_t size)
{
	hid_t t = H5Tcopy(H5T_C_S1);
	if (t < 0)
		return t;
	if (H5Tset_size(t, size ? size : 1) < 0 || H5Tset_strpad(t, H5T_STR_NULLTERM) < 0 ||
	    H5Tset_cset(t, H5T_CSET_UTF8) < 0) {
		H5Tclose(t);
		return -1;
	}
	return t;
}

static int attr_write(hid_t obj, const char *name, hid_t type, hid_t space, const void *buf)
{
	hid_t a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
	if (a < 0)
		return -1;
	herr_t r = H5Awrite(a, type, buf);
	if (H5Aclose(a) < 0 || r < 0)
		return -1;
	return 0;
}

/* A variable-length UTF-8 string type: what h5py reads as str (a fixed-length
 * string attribute comes back as numpy bytes). Used for attributes; table columns
 * stay fixed-length (analysis/SCHEMA.md, "Storage", says why). */
static hid_t vlen_str_type(void)
{
	hid_t t = H5Tcopy(H5T_C_S1);
	if (t < 0)
		return t;
	if (H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0) {
		H5Tclose(t);
		return -1;
	}
	return t;
}

static int attr_str(hid_t obj, const char *name, const char *val)
{
	if (!val)
		val = "";
	hid_t t = vlen_str_type();
	hid_t s = H5Screate(H5S_SCALAR);
	int r = (t < 0 || s < 0) ? -1 : attr_write(obj, name, t, s, &val);
	if (s >= 0)
		H5Sclose(s);
	close_type(t);
	return r;
}

/* A 1-D attribute of n variable-length strings (n may be 0). */
static int attr_str_array(hid_t obj, const char *name, const char *const *vals, size_t n)
{
	static const char *const none[1] = { "" }; /* a valid buffer for an empty array */
	hsize_t dim = n;
	hid_t t = vlen_str_type();
	hid_t s = H5Screate_simple(1, &dim, NULL);
	int r = (t < 0 || s < 0) ? -1 : attr_write(obj, name, t, s, n ? (const void *)vals : (const void *)none);
	if (s >= 0)
		H5Sclose(s);
	close_type(t);
	return r;
}

static int attr_scalar(hid_t obj, const char *name, hid_t native, const void *val)
{
	hid_t s = H5Screate(H5S_SCALAR);
	if (s < 0)
		return -1;
	int r = attr_write(obj, name, native, s, val);
	H5Sclose(s);
	return r;
}

int h5out_attr_str(hid_t obj, const char *name, const char *val)
{
	return attr_str(obj, name, val);
}

int h5out_attr_str_array(hid_t obj, const char *name, const char *const *vals, size_t n)
{
	return attr_str_array(obj, name, vals, n);
}

static int attr_u64(hid_t obj, const char *name, uint64_t v)
{
	return attr_scalar(obj, name, H5T_NATIVE_UINT64, &v);
}

static int attr_f64(hid_t obj, const char *name, double v)
{
	return attr_scalar(obj, name, H5T_NATIVE_DOUBLE, &v);
}

int h5out_attr_f64(hid_t obj, const char *name, double v)
{
	return attr_f64(obj, name, v);
}

/* A 1-D uint64 attribute of n values (n may be 0: an empty array). */
static int attr_u64_array(hid_t obj, const char *name, const uint64_t *vals, size_t n)
{
	static const uint64_t none; /* a valid buffer for an empty array */
	hsize_t dim = n;
	hid_t s = H5Screate_simple(1, &dim, NULL);
	if (s < 0)
		return -1;
	int r = attr_write(obj, name, H5T_NATIVE_UINT64, s, n ? (const void *)vals : (const void *)&none);
	H5Sclose(s);
	return r;
}

/* ---- datasets ---- */

/* Dataset creation properties for `rows` rows of `row_bytes`: contiguous when small,
 * else chunked (about CHUNK_BYTES) with shuffle + deflate when the filter exists. */
static hid_t make_dcpl(int rank, const hsize_t *dims, size_t row_bytes)
{
	hid_t p = H5Pcreate(H5P_DATASET_CREATE);
	if (p < 0)
		return p;
	if (dims[0] == 0 || (size_t)dims[0] * row_bytes <= SMALL_BYTES)
		return p;
	hsize_t chunk[2] = { 1, rank > 1 ? dims[1] : 1 };
	hsize_t rows = CHUNK_BYTES / (row_bytes ? row_bytes : 1);
	chunk[0] = rows < 1 ? 1 : (rows > dims[0] ? dims[0] : rows);
	if (H5Pset_chunk(p, rank, chunk) < 0)
		goto out_close;
	if (H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0) {
		if (H5Zfilter_avail(H5Z_FILTER_SHUFFLE) > 0 && H5Pset_shuffle(p) < 0)
			goto out_close;
		if (H5Pset_deflate(p, DEFLATE_LEVEL) < 0)
			goto out_close;
	}
	return p;
out_close:
	H5Pclose(p);
	return -1;
}


/* Writes a dataset of doubles (rank 1: n; rank 2: n x m, row-major) with units and description. */
static int write_doubles(hid_t grp, const char *name, const double *x, int rank, size_t n, size_t m,
			 const char *unit, const char *desc)
{
	hsize_t dims[2] = { n, rank == 2 ? m : 1 };
	int r = -1;
	hid_t s = H5Screate_simple(rank, dims, NULL);
	if (s < 0)
		return -1;
	hid_t p = make_dcpl(rank, dims, sizeof(double) * (size_t)dims[1]);
	if (p < 0)
		goto out_space;
	hid_t d = H5Dcreate2(grp, name, H5T_IEEE_F64LE, s, H5P_DEFAULT, p, H5P_DEFAULT);
	if (d < 0)
		goto out_dcpl;
	if ((n == 0 || dims[1] == 0 || H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x) >= 0) &&
	    attr_str(d, "units", unit) == 0 && attr_str(d, "description", desc) == 0)
		r = 0;
	if (H5Dclose(d) < 0)
		r = -1;
out_dcpl:
	H5Pclose(p);
out_space:
	H5Sclose(s);
	return r;
}

/* ---- compound rows ---- */

/* A field of a packed compound row. type is owned by the field list. */
struct cfield {
	const char *name;
	hid_t type;
	size_t size; /* bytes (cached: H5Tget_size per row would cost an id lookup) */
	size_t off;
	const char *unit;
	const char *desc;
};

struct ctype {
	struct cfield *f;
	size_t n;
	size_t size; /* row bytes */
	hid_t mem;   /* compound, memory layout == file layout (packed, native little-endian
		      * types are written as such; HDF5 converts on big-endian readers) */
};

static void ctype_fini(struct ctype *c)
{
	for (size_t i = 0; i < c->n; i++)
		close_type(c->f[i].type);
	close_type(c->mem);
	free(c->f);
	memset(c, 0, sizeof *c);
	c->mem = -1;
}

/* Appends a field; consumes `type` (closed on failure too). */
static int ctype_add(struct ctype *c, const char *name, hid_t type, const char *unit, const char *desc)
{
	if (type < 0)
		return -1;
	struct cfield *nf = realloc(c->f, (c->n + 1) * sizeof *nf);
	if (!nf) {
		H5Tclose(type);
		return -1;
	}
	c->f = nf;
	size_t sz = H5Tget_size(type);
	c->f[c->n] = (struct cfield){ name, type, sz, c->size, unit, desc };
	c->n++;
	c->size += sz;
	return 0;
}

static hid_t copy_type(hid_t t)
{
	return H5Tcopy(t);
}

static int ctype_build(struct ctype *c)
{
	c->mem = H5Tcreate(H5T_COMPOUND, c->size);
	if (c->mem < 0)
		return -1;
	for (size_t i = 0; i < c->n; i++)
		if (H5Tinsert(c->mem, c->f[i].name, c->f[i].off, c->f[i].type) < 0)
			return -1;
	return 0;
}

static int ctype_attrs(const struct ctype *c, hid_t d, const char *desc)
{
	const char **u = malloc((c->n ? c->n : 1) * sizeof *u);
	const char **ds = malloc((c->n ? c->n : 1) * sizeof *ds);
	int r = -1;
	if (!u || !ds)
		goto out_free;
	for (size_t i = 0; i < c->n; i++) {
		u[i] = c->f[i].unit;
		ds[i] = c->f[i].desc;
	}
	if (attr_str_array(d, "units", u, c->n) == 0 &&
	    attr_str_array(d, "field_descriptions", ds, c->n) == 0 && attr_str(d, "description", desc) == 0)
		r = 0;
out_free:
	free(u);
	free(ds);
	return r;
}

/* Creates a compound dataset of n rows with the ctype; returns the dataset. */
static hid_t ctype_dataset(const struct ctype *c, hid_t grp, const char *name, size_t n)
{
	hsize_t dim = n;
	hid_t s = H5Screate_simple(1, &dim, NULL);
	if (s < 0)
		return -1;
	hid_t d = -1;
	hid_t p = make_dcpl(1, &dim, c->size);
	if (p >= 0) {
		d = H5Dcreate2(grp, name, c->mem, s, H5P_DEFAULT, p, H5P_DEFAULT);
		H5Pclose(p);
	}
	H5Sclose(s);
	return d;
}

/* Writes rows [first, first + count) from buf. */
static int write_rows(hid_t d, hid_t mem, size_t first, size_t count, const void *buf)
{
	if (count == 0)
		return 0;
	hsize_t start = first, cnt = count;
	hid_t fs = H5Dget_space(d);
	if (fs < 0)
		return -1;
	hid_t ms = H5Screate_simple(1, &cnt, NULL);
	int r = -1;
	if (ms >= 0 && H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &cnt, NULL) >= 0 &&
	    H5Dwrite(d, mem, ms, fs, H5P_DEFAULT, buf) >= 0)
		r = 0;
	if (ms >= 0)
		H5Sclose(ms);
	H5Sclose(fs);
	return r;
}

/* ---- the sweep (1.5) ---- */

static const char *const param_type_names[] = { "int", "float", "string" };

/* A 1-D dataset of a swept parameter's values, typed as in /summary (int64, double,
 * variable-length UTF-8: the list is short, and h5py's asstr() reads it as str). */
static int write_param_values(hid_t g, const struct h5out_param *p)
{
	hsize_t dim = p->n_values;
	hid_t s = H5Screate_simple(1, &dim, NULL);
	if (s < 0)
		return -1;
	int r = -1;
	hid_t ft = p->type == H5OUT_PARAM_STRING ? vlen_str_type() :
		   copy_type(p->type == H5OUT_PARAM_INT ? H5T_STD_I64LE : H5T_IEEE_F64LE);
	hid_t d = ft >= 0 ? H5Dcreate2(g, p->name, ft, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
	if (d < 0)
		goto out;
	herr_t w = 0;
	if (p->n_values && p->type == H5OUT_PARAM_STRING) {
		w = H5Dwrite(d, ft, H5S_ALL, H5S_ALL, H5P_DEFAULT, p->str);
	} else if (p->n_values && p->type == H5OUT_PARAM_INT) {
		int64_t *v = malloc(p->n_values * sizeof *v);
		for (size_t i = 0; v && i < p->n_values; i++)
			v[i] = (int64_t)p->num[i];
		w = v ? H5Dwrite(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) : -1;
		free(v);
	} else if (p->n_values) {
		w = H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, p->num);
	}
	if (w >= 0 && attr_str(d, "path", p->path) == 0 && attr_str(d, "type", param_type_names[p->type]) == 0 &&
	    attr_str_array(d, "labels", p->label, p->n_values) == 0 &&
	    attr_str(d, "description", "the swept values, in the config's order; labels: their pieces of the "
				       "variant names") == 0)
		r = 0;
	if (H5Dclose(d) < 0)
		r = -1;
out:
	close_type(ft);
	H5Sclose(s);
	return r;
}

/* /sweep: attributes params (the swept parameters' column names, in the config's
 * order), paths (as written), variants (in run order), and a dataset per parameter
 * holding its values. */
static int write_sweep(hid_t file, const struct h5out_sweep *sw)
{
	hid_t g = H5Gcreate2(file, "sweep", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	if (g < 0)
		return -1;
	const char **names = calloc(sw->n_params ? sw->n_params : 1, sizeof *names);
	const char **paths = calloc(sw->n_params ? sw->n_params : 1, sizeof *paths);
	int r = -1;
	if (!names || !paths)
		goto out;
	for (size_t k = 0; k < sw->n_params; k++) {
		names[k] = sw->params[k].name;
		paths[k] = sw->params[k].path;
	}
	if (attr_str(g, "description", "the experiment's sweep: swept parameters and variants "
				       "(analysis/SCHEMA.md)") < 0 ||
	    attr_str_array(g, "params", names, sw->n_params) < 0 ||
	    attr_str_array(g, "paths", paths, sw->n_params) < 0 ||
	    attr_str_array(g, "variants", sw->variants, sw->n_variants) < 0)
		goto out;
	r = 0;
	for (size_t k = 0; k < sw->n_params && r == 0; k++)
		r = write_param_values(g, &sw->params[k]);
out:
	free(names);
	free(paths);
	if (H5Gclose(g) < 0)
		r = -1;
	return r;
}

/* Value index of parameter k in variant v. */
static size_t sweep_value(const struct h5out_sweep *sw, size_t v, size_t k)
{
	return sw->value_index[v * sw->n_params + k];
}

/* The swept values of variant v as attributes of its run group g. */
static int param_attrs(hid_t g, const struct h5out_sweep *sw, size_t v)
{
	for (size_t k = 0; k < sw->n_params; k++) {
		const struct h5out_param *p = &sw->params[k];
		size_t i = sweep_value(sw, v, k);
		int r;
		if (p->type == H5OUT_PARAM_STRING) {
			r = attr_str(g, p->name, p->str[i]);
		} else if (p->type == H5OUT_PARAM_INT) {
			int64_t x = (int64_t)p->num[i];
			r = attr_scalar(g, p->name, H5T_NATIVE_INT64, &x);
		} else {
			r = attr_scalar(g, p->name, H5T_NATIVE_DOUBLE, &p->num[i]);
		}
		if (r < 0)
			return -1;
	}
	return 0;
}

/* Index of the variant named name, or SIZE_MAX. */
static size_t sweep_variant_find(const struct h5out_sweep *sw, const char *name)
{
	for (size_t v = 0; sw && v < sw->n_variants; v++)
		if (strcmp(sw->variants[v], name) == 0)
			return v;
	return SIZE_MAX;
}

/* ---- create ---- */

static char *dup_str(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = malloc(n);
	if (p)
		memcpy(p, s, n);
	return p;
}

struct h5out *h5out_create(const char *path, const struct h5out_meta *meta, struct sim_diag *diag)
{
	return h5out_create_at(path, path, meta, diag);
}

struct h5out *h5out_create_at(const char *path, const char *tmp_beside, const struct h5out_meta *meta,
			      struct sim_diag *diag)
{
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	struct h5out *o = calloc(1, sizeof *o);
	if (!o) {
		sim_diag_add(diag, path, "out of memory");
		return NULL;
	}
	o->file = o->runs = -1;
	o->path = dup_str(path);
	if (!o->path) {
		sim_diag_add(diag, path, "out of memory");
		goto out_free;
	}
	/* The name is made ours exclusively first (no file of the user is truncated);
	 * HDF5 then truncates our empty file. */
	int fd = sim_out_tmp_create(tmp_beside, &o->tmp_path);
	if (fd < 0) {
		sim_diag_add(diag, path, "cannot create a temporary file beside it: %s", strerror(errno));
		goto out_free;
	}
	close(fd);

	/* Object headers of the 1.8 format: large attributes (experiment_json of any
	 * size) go to dense storage, and groups can track creation order. Files stay
	 * readable by HDF5 1.8 and later. STRONG close: closing the file closes all. */
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
	if (fapl < 0 || H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST) < 0 ||
	    H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) < 0) {
		if (fapl >= 0)
			H5Pclose(fapl);
		h5err(diag, o->tmp_path, "cannot set HDF5 file properties");
		unlink(o->tmp_path); /* ours, made above */
		goto out_free;
	}
	o->file = H5Fcreate(o->tmp_path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
	H5Pclose(fapl);
	if (o->file < 0) {
		h5err(diag, o->tmp_path, "cannot create HDF5 file");
		unlink(o->tmp_path);
		goto out_free;
	}

	char created[32];
	time_t now = time(NULL);
	struct tm tm;
	if (!gmtime_r(&now, &tm) || !strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &tm))
		strcpy(created, "");
	const char *version = meta && meta->software_version ? meta->software_version :
#ifdef GPUSCHED_VERSION
		GPUSCHED_VERSION;
#else
		"unknown";
#endif
	if (attr_str(o->file, "schema_version", H5OUT_SCHEMA_VERSION) < 0 ||
	    attr_str(o->file, "software", "gpusched") < 0 ||
	    attr_str(o->file, "software_version", version) < 0 ||
	    attr_str(o->file, "created_utc", created) < 0 ||
	    attr_str(o->file, "experiment_json", meta ? meta->experiment_json : NULL) < 0 ||
	    attr_str(o->file, "config_path", meta ? meta->config_path : NULL) < 0 ||
	    attr_str(o->file, "mode", meta && meta->mode ? meta->mode : "simulation") < 0 ||
	    (meta && meta->backend && (attr_str(o->file, "backend", meta->backend) < 0 ||
				       attr_f64(o->file, "time_scale", meta->time_scale) < 0))) {
		h5err(diag, o->tmp_path, "cannot write root attributes");
		goto out_abort;
	}

	hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
	if (gcpl >= 0 && H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED) >= 0)
		o->runs = H5Gcreate2(o->file, "runs", H5P_DEFAULT, gcpl, H5P_DEFAULT);
	if (gcpl >= 0)
		H5Pclose(gcpl);
	if (o->runs < 0 || attr_str(o->runs, "description", "one group a run, in the order they were written") < 0) {
		h5err(diag, o->tmp_path, "cannot create /runs");
		goto out_abort;
	}
	o->sweep = meta ? meta->sweep : NULL;
	if (o->sweep && write_sweep(o->file, o->sweep) < 0) {
		h5err(diag, o->tmp_path, "cannot write /sweep");
		goto out_abort;
	}
	o->state = H5OUT_OPEN;
	return o;

out_abort:
	h5out_abort(o);
	return NULL;
out_free:
	free(o->path);
	free(o->tmp_path);
	free(o);
	return NULL;
}

const char *h5out_tmp_path(const struct h5out *o)
{
	return o->tmp_path;
}

/* ---- one run ---- */

static const char *name_or_empty(char **names, size_t n, int32_t i)
{
	return (i >= 0 && (size_t)i < n && names[i]) ? names[i] : "";
}

static size_t max_len(char **names, size_t n)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (names[i] && strlen(names[i]) > m)
			m = strlen(names[i]);
	return m;
}

/* A job state's name in upper case ("COMPLETED"), as the final_state enum names it. */
static void state_upper_name(int s, char *up, size_t n)
{
	const char *nm = sim_job_state_name((enum sim_job_state)s);
	size_t k = 0;
	for (; nm[k] && k + 1 < n; k++)
		up[k] = (char)(nm[k] >= 'a' && nm[k] <= 'z' ? nm[k] - 'a' + 'A' : nm[k]);
	up[k] = 0;
}

/* The upper-case state names, filled once (fill_job_row runs on several threads, so
 * it only reads them: h5out_write_run fills them first, on the calling thread). */
static char state_labels[SIM_JOB_STATE_COUNT_][SIM_NAME_MAX];

static size_t state_labels_fill(void)
{
	size_t w = 1;
	for (int s = 0; s < SIM_JOB_STATE_COUNT_; s++) {
		state_upper_name(s, state_labels[s], sizeof state_labels[s]);
		if (strlen(state_labels[s]) + 1 > w)
			w = strlen(state_labels[s]) + 1;
	}
	return w;
}

/* The final_state enum: every sim_job_state, named in upper case. */
static hid_t state_enum_type(void)
{
	hid_t t = H5Tenum_create(H5T_NATIVE_UINT8);
	if (t < 0)
		return t;
	for (int s = 0; s < SIM_JOB_STATE_COUNT_; s++) {
		char up[SIM_NAME_MAX];
		state_upper_name(s, up, sizeof up);
		uint8_t v = (uint8_t)s;
		if (H5Tenum_insert(t, up, &v) < 0) {
			H5Tclose(t);
			return -1;
		}
	}
	return t;
}

/* Offsets of the job row fields, in ctype order. */
enum jf {
	JF_ID, JF_QUEUE, JF_USER, JF_FLAVOR, JF_OPTION, JF_GPUS, JF_ALLOC_GPUS, JF_SUBMIT, JF_START,
	JF_END, JF_WAIT, JF_JCT, JF_RUNTIME, JF_BSLD, JF_PRIORITY, JF_PREEMPTIONS, JF_CAUSED, JF_LOST,
	JF_RESTORE, JF_CKPT, JF_COST, JF_N_OPTIONS, JF_FB_EVALS, JF_INTERRUPTIONS, JF_PENDING_FROM, JF_STATE,
	JF_STATE_LABEL, JF_COST_TYPE, JF_COST_TYPE_LABEL, JF_COUNT_
};

static int jobs_ctype(struct ctype *c, const struct sim_trace *t, const struct sim_cluster *cl)
{
	size_t id_w = 0, fl_w = 0;
	for (size_t i = 0; i < t->n_jobs; i++) {
		size_t l = strlen(sim_job_id(t, &t->jobs[i]));
		if (l > id_w)
			id_w = l;
	}
	for (size_t f = 0; f < sim_cluster_n_flavors(cl); f++) {
		size_t l = strlen(sim_cluster_flavor(cl, (int)f)->name);
		if (l > fl_w)
			fl_w = l;
	}
	const char *sec = "s";
	if (ctype_add(c, "id", str_type(id_w + 1), "", "job id from the trace") < 0 ||
	    ctype_add(c, "queue", str_type(max_len(t->queues, t->n_queues) + 1), "", "queue name") < 0 ||
	    ctype_add(c, "user", str_type(max_len(t->users, t->n_users) + 1), "", "user, \"\" when none") < 0 ||
	    ctype_add(c, "flavor", str_type(fl_w + 1), "", "flavor it ran on, \"\" when never placed") < 0 ||
	    ctype_add(c, "option", copy_type(H5T_NATIVE_INT32), "1",
		      "index of the chosen option (0 = first), -1 when none") < 0 ||
	    ctype_add(c, "gpus", copy_type(H5T_NATIVE_DOUBLE), "GPU",
		      "GPUs requested by the chosen option (option 0 when none)") < 0 ||
	    ctype_add(c, "alloc_gpus", copy_type(H5T_NATIVE_DOUBLE), "GPU",
		      "GPUs allocated (whole nodes for a multi-node job)") < 0 ||
	    ctype_add(c, "submit_s", copy_type(H5T_NATIVE_DOUBLE), sec, "submit time") < 0 ||
	    ctype_add(c, "start_s", copy_type(H5T_NATIVE_DOUBLE), sec, "first start time") < 0 ||
	    ctype_add(c, "end_s", copy_type(H5T_NATIVE_DOUBLE), sec, "time of the final state") < 0 ||
	    ctype_add(c, "wait_s", copy_type(H5T_NATIVE_DOUBLE), sec, "start_s - submit_s") < 0 ||
	    ctype_add(c, "jct_s", copy_type(H5T_NATIVE_DOUBLE), sec, "end_s - submit_s, completed jobs") < 0 ||
	    ctype_add(c, "runtime_s", copy_type(H5T_NATIVE_DOUBLE), sec, "run time on the chosen option") < 0 ||
	    ctype_add(c, "bsld", copy_type(H5T_NATIVE_DOUBLE), "1",
		      "max(1, jct_s / max(runtime_s, 10 s))") < 0 ||
	    ctype_add(c, "priority", copy_type(H5T_NATIVE_INT32), "1", "priority from the trace") < 0 ||
	    ctype_add(c, "preemptions", copy_type(H5T_NATIVE_UINT32), "1", "times it was preempted") < 0 ||
	    ctype_add(c, "preemptions_caused", copy_type(H5T_NATIVE_UINT32), "1",
		      "running jobs stopped to admit it") < 0 ||
	    ctype_add(c, "lost_gpu_s", copy_type(H5T_NATIVE_DOUBLE), "GPU*s",
		      "work lost to preemptions: GPUs x time since its last checkpoint, summed") < 0 ||
	    ctype_add(c, "restore_s", copy_type(H5T_NATIVE_DOUBLE), sec,
		      "restore time paid on restarts from a checkpoint") < 0 ||
	    ctype_add(c, "ckpt_overhead_s", copy_type(H5T_NATIVE_DOUBLE), sec,
		      "checkpoint overhead paid (completed checkpoints)") < 0 ||
	    ctype_add(c, "cost", copy_type(H5T_NATIVE_DOUBLE), "currency",
		      "price_per_node_hour x share of nodes held (in GPUs) x hours held") < 0 ||
	    ctype_add(c, "n_options", copy_type(H5T_NATIVE_UINT8), "1",
		      "options the job listed: 1 (request) or 2..5 (prefs)") < 0 ||
	    ctype_add(c, "fallback_evals", copy_type(H5T_NATIVE_UINT32), "1",
		      "times the fallback policy evaluated it while queued") < 0 ||
	    ctype_add(c, "interruptions", copy_type(H5T_NATIVE_UINT32), "1",
		      "times it was stopped because its nodes were removed") < 0 ||
	    ctype_add(c, "pending_from_s", copy_type(H5T_NATIVE_DOUBLE), sec,
		      "start of its pending clock: submit, or the reservation window it waited for") < 0 ||
	    ctype_add(c, "final_state", state_enum_type(), "", "state at the end of the run") < 0 ||
	    ctype_add(c, "final_state_label", str_type(state_labels_fill()), "",
		      "final_state's name, for readers that see an enum as its integer (1.5)") < 0 ||
	    ctype_add(c, "cost_type", copy_type(H5T_NATIVE_UINT8), "",
		      "capacity type its cost was billed as: 0 on_demand, 1 spot, 2 plan, 3 autoscaled, 4 flex, "
		      "255 none (never started) (2.1)") < 0 ||
	    ctype_add(c, "cost_type_label", str_type(sizeof "autoscaled"), "", "cost_type's name (2.1)") < 0)
		return -1;
	return ctype_build(c);
}

static double ns_to_s_or_nan(sim_time_t t)
{
	return t == SIM_TIME_NONE ? NAN : sim_time_to_s(t);
}

static void put(char *row, const struct ctype *c, size_t f, const void *v, size_t n)
{
	memcpy(row + c->f[f].off, v, n);
}

static void put_str(char *row, const struct ctype *c, size_t f, const char *s)
{
	size_t w = c->f[f].size;
	size_t l = strlen(s);
	memset(row + c->f[f].off, 0, w);
	memcpy(row + c->f[f].off, s, l < w ? l : w - 1);
}

static void put_f64(char *row, const struct ctype *c, size_t f, double v)
{
	put(row, c, f, &v, sizeof v);
}

/* ---- the jobs group (2.0): one dataset a column ----
 *
 * The table is cut into blocks of the same number of rows, each block one chunk of
 * every column (a table of at most SMALL_BYTES is one block, stored contiguous). A
 * block is filled row by row into its columns (fill_job_row), then each column is
 * either shuffled and deflated or kept raw, as a sample decided (choose_filters):
 * a column is deflated when its first CHOOSE_SAMPLE_ROWS rows deflate to at most
 * half their bytes (COMPRESS_MAX_RATIO); the others (times and costs of a busy
 * trace, which deflate saves about a third of at the cost of 40% of the write's
 * deflate) are stored without a filter. Readers see no difference but the speed. */

/* Where a block's columns are: col[f] holds rows x c->f[f].size bytes. */
struct jblock {
	unsigned char *col[JF_COUNT_];
};

static void col_put(const struct jblock *b, const struct ctype *c, size_t f, size_t i, const void *v,
		    size_t n)
{
	memcpy(b->col[f] + i * c->f[f].size, v, n);
}

/* s cut to w - 1 bytes and NUL-padded to the field's width w. One byte loop: the
 * strings are a few bytes (ids, names, labels), where strlen, memcpy and memset
 * calls cost more than the copy (a tenth of the jobs table's fill, six strings a
 * row). */
static void col_put_str(const struct jblock *b, const struct ctype *c, size_t f, size_t i, const char *s)
{
	size_t w = c->f[f].size, k = 0;
	unsigned char *dst = b->col[f] + i * w;
	for (; k + 1 < w && s[k]; k++)
		dst[k] = (unsigned char)s[k];
	for (; k < w; k++)
		dst[k] = 0;
}

static void col_put_f64(const struct jblock *b, const struct ctype *c, size_t f, size_t i, double v)
{
	col_put(b, c, f, i, &v, sizeof v);
}

/* The string columns whose values come from a small table: queue and user names,
 * flavor names, the state and cost type labels. */
enum jname { JN_QUEUE, JN_USER, JN_FLAVOR, JN_STATE, JN_COST_TYPE, JN_COUNT_ };
#define JNAMES_MAX_BYTES ((size_t)4 << 20) /* a larger table (100,000s of queues) is not imaged */

/* A table's names as its column stores them: name k cut and NUL-padded to the
 * column's width w at img + k * w, k < n; an index outside [0, n) is the empty
 * string (what name_or_empty gives), at img + n * w. A row then copies w bytes
 * instead of measuring, copying and padding a string (two thirds of the fill's
 * string work). img NULL: the table was too large, rows use col_put_str. */
struct jnames {
	unsigned char *img;
	size_t n, w;
};

/* What filling a row needs besides the run: caused, preemptions each job caused, by
 * job index (from the decisions), or NULL to take the job's own count; the names. */
struct jfill {
	const uint32_t *caused;
	struct jnames nm[JN_COUNT_];
};

static int jnames_build(struct jnames *nm, size_t n, size_t w, const char *(*name)(const void *, size_t),
			const void *arg)
{
	nm->n = n;
	nm->w = w;
	nm->img = NULL;
	if (w == 0 || (n + 1) > JNAMES_MAX_BYTES / w)
		return 0;
	nm->img = calloc(n + 1, w);
	if (!nm->img)
		return -1;
	for (size_t k = 0; k < n; k++) {
		const char *s = name(arg, k);
		size_t l = strlen(s);
		memcpy(nm->img + k * w, s, l < w ? l : w - 1);
	}
	return 0;
}

static const char *jn_name_array(const void *arg, size_t k)
{
	const char *s = ((char *const *)arg)[k];
	return s ? s : ""; /* as name_or_empty */
}
static const char *jn_flavor(const void *arg, size_t k) { return sim_cluster_flavor(arg, (int)k)->name; }
static const char *jn_state(const void *arg, size_t k)
{
	(void)arg;
	return state_labels[k];
}
static const char *jn_cost_type(const void *arg, size_t k)
{
	(void)arg;
	return sim_cost_type_name((enum sim_cost_type)k);
}

static void jfill_fini(struct jfill *fx)
{
	for (int k = 0; k < JN_COUNT_; k++)
		free(fx->nm[k].img);
}

static int jfill_init(struct jfill *fx, const struct ctype *c, const struct h5out_run *run, const uint32_t *caused)
{
	const struct sim_trace *t = run->trace;
	memset(fx, 0, sizeof *fx);
	fx->caused = caused;
	int r = jnames_build(&fx->nm[JN_QUEUE], t->n_queues, c->f[JF_QUEUE].size, jn_name_array, t->queues);
	r |= jnames_build(&fx->nm[JN_USER], t->n_users, c->f[JF_USER].size, jn_name_array, t->users);
	r |= jnames_build(&fx->nm[JN_FLAVOR], sim_cluster_n_flavors(run->cluster), c->f[JF_FLAVOR].size, jn_flavor,
			  run->cluster);
	r |= jnames_build(&fx->nm[JN_STATE], SIM_JOB_STATE_COUNT_, c->f[JF_STATE_LABEL].size, jn_state, NULL);
	r |= jnames_build(&fx->nm[JN_COST_TYPE], 256, c->f[JF_COST_TYPE_LABEL].size, jn_cost_type, NULL);
	if (r)
		jfill_fini(fx);
	return r ? -1 : 0;
}

/* Column f of row i: name idx of table nm (the empty string outside it), or s when
 * the table has no images. */
static void col_put_name(const struct jblock *b, const struct ctype *c, size_t f, size_t i, const struct jnames *nm,
			 int64_t idx, const char *s)
{
	if (!nm->img) {
		col_put_str(b, c, f, i, s);
		return;
	}
	size_t k = idx >= 0 && (uint64_t)idx < nm->n ? (size_t)idx : nm->n;
	memcpy(b->col[f] + i * nm->w, nm->img + k * nm->w, nm->w);
}

/* Row i of block b: job j. */
static void fill_job_row(const struct jblock *b, const struct ctype *c, size_t i, const struct sim_trace *t,
			 const struct sim_cluster *cl, const uint8_t *cost_types, const struct jfill *fx,
			 const struct sim_job *j)
{
	const uint32_t *caused = fx->caused;
	col_put_str(b, c, JF_ID, i, sim_job_id(t, j));
	col_put_name(b, c, JF_QUEUE, i, &fx->nm[JN_QUEUE], j->queue, name_or_empty(t->queues, t->n_queues, j->queue));
	col_put_name(b, c, JF_USER, i, &fx->nm[JN_USER], j->user, name_or_empty(t->users, t->n_users, j->user));
	int fl = j->opt_chosen >= 0 ? sim_metrics_job_flavor(t, j) : -1;
	col_put_name(b, c, JF_FLAVOR, i, &fx->nm[JN_FLAVOR], fl,
		     fl >= 0 && (size_t)fl < sim_cluster_n_flavors(cl) ? sim_cluster_flavor(cl, fl)->name : "");
	int32_t opt = j->opt_chosen;
	col_put(b, c, JF_OPTION, i, &opt, sizeof opt);
	double gpus = NAN;
	if (j->n_opts > 0)
		gpus = (double)sim_job_opt(t, j, opt >= 0 ? opt : 0)->req[SIM_RES_GPU] / (double)SIM_MILLI;
	col_put_f64(b, c, JF_GPUS, i, gpus);
	sim_qty_t ag = sim_metrics_job_alloc_gpu(t, cl, j);
	col_put_f64(b, c, JF_ALLOC_GPUS, i, ag >= 0 ? (double)ag / (double)SIM_MILLI : NAN);
	col_put_f64(b, c, JF_SUBMIT, i, sim_time_to_s(j->submit_ns));
	col_put_f64(b, c, JF_START, i, ns_to_s_or_nan(j->start_ns));
	col_put_f64(b, c, JF_END, i, ns_to_s_or_nan(j->end_ns));
	col_put_f64(b, c, JF_WAIT, i, sim_job_wait_s(j));
	col_put_f64(b, c, JF_JCT, i, sim_job_jct_s(j));
	col_put_f64(b, c, JF_RUNTIME, i, opt >= 0 ? sim_time_to_s(j->runtime_ns) : NAN);
	col_put_f64(b, c, JF_BSLD, i, sim_job_bsld(j));
	int32_t prio = j->priority;
	col_put(b, c, JF_PRIORITY, i, &prio, sizeof prio);
	uint32_t pre = j->preemptions;
	col_put(b, c, JF_PREEMPTIONS, i, &pre, sizeof pre);
	uint32_t cz = caused ? caused[j->idx] : j->preemptions_caused;
	col_put(b, c, JF_CAUSED, i, &cz, sizeof cz);
	col_put_f64(b, c, JF_LOST, i, j->lost_gpu_s);
	col_put_f64(b, c, JF_RESTORE, i, j->restore_s);
	col_put_f64(b, c, JF_CKPT, i, j->ckpt_overhead_s);
	col_put_f64(b, c, JF_COST, i, sim_metrics_job_cost(t, cl, j));
	uint8_t nopt = j->n_opts;
	col_put(b, c, JF_N_OPTIONS, i, &nopt, sizeof nopt);
	uint32_t evals = j->fb_evals, intr = j->interruptions;
	col_put(b, c, JF_FB_EVALS, i, &evals, sizeof evals);
	col_put(b, c, JF_INTERRUPTIONS, i, &intr, sizeof intr);
	/* Never submitted: the clock never started (still the reset value 0). */
	double pend = j->pending_from_ns >= j->submit_ns ? sim_time_to_s(j->pending_from_ns) : NAN;
	col_put_f64(b, c, JF_PENDING_FROM, i, pend);
	uint8_t st = j->state;
	col_put(b, c, JF_STATE, i, &st, sizeof st);
	col_put_name(b, c, JF_STATE_LABEL, i, &fx->nm[JN_STATE], st, st < SIM_JOB_STATE_COUNT_ ? state_labels[st] : "");
	uint8_t ct = sim_metrics_job_cost_type(t, cost_types, sim_cluster_n_flavors(cl), j);
	col_put(b, c, JF_COST_TYPE, i, &ct, sizeof ct);
	col_put_name(b, c, JF_COST_TYPE_LABEL, i, &fx->nm[JN_COST_TYPE], ct, sim_cost_type_name((enum sim_cost_type)ct));
}

/* The layout of a run's jobs group: rows a block (= a chunk), blocks, and which
 * columns are deflated. */
struct jlayout {
	size_t n, rows, n_blocks;
	int chunked;
	int deflate[JF_COUNT_];
};

/* Blocks of at most JOB_BLOCK_ROWS rows, all of one size (the last one padded with
 * zero rows: chunks are whole), so the padding is under one row a block. */
static void jlayout_plan(struct jlayout *l, size_t n, size_t row_bytes)
{
	memset(l, 0, sizeof *l);
	l->n = n;
	l->chunked = n > 0 && n * row_bytes > SMALL_BYTES;
	l->n_blocks = l->chunked ? (n + JOB_BLOCK_ROWS - 1) / JOB_BLOCK_ROWS : 1;
	l->rows = l->chunked ? (n + l->n_blocks - 1) / l->n_blocks : n;
}

/* Fills block k (rows rows; rows past the table's end are zero). */
static void fill_block(const struct jblock *b, const struct ctype *c, const struct jlayout *l, size_t k,
		       const struct h5out_run *run, const struct jfill *fx)
{
	const struct sim_trace *t = run->trace;
	size_t r0 = k * l->rows, cnt = l->n - r0 < l->rows ? l->n - r0 : l->rows;
	for (size_t i = 0; i < cnt; i++)
		fill_job_row(b, c, i, t, run->cluster, run->flavor_cost_type, fx, &t->jobs[r0 + i]);
	for (size_t f = 0; f < c->n && cnt < l->rows; f++)
		memset(b->col[f] + cnt * c->f[f].size, 0, (l->rows - cnt) * c->f[f].size);
}

/* One buffer for a block of every column; NULL on no memory. Free b->col[0]. */
static int jblock_alloc(struct jblock *b, const struct ctype *c, size_t rows)
{
	unsigned char *p = malloc((rows ? rows : 1) * c->size);
	if (!p)
		return -1;
	for (size_t f = 0; f < c->n; f++)
		b->col[f] = p + rows * c->f[f].off;
	return 0;
}

/* Creates column f's dataset: contiguous, or chunked (rows a chunk) with shuffle
 * (elements over one byte) and deflate when deflated; with its units and description. */
static hid_t column_dataset(hid_t g, const struct ctype *c, size_t f, const struct jlayout *l)
{
	hsize_t dim = l->n, chunk = l->rows;
	hid_t s = H5Screate_simple(1, &dim, NULL), p = H5Pcreate(H5P_DATASET_CREATE), d = -1;
	int ok = s >= 0 && p >= 0;
	if (ok && l->chunked) {
		ok = H5Pset_chunk(p, 1, &chunk) >= 0;
		if (ok && l->deflate[f] && c->f[f].size > 1)
			ok = H5Pset_shuffle(p) >= 0;
		if (ok && l->deflate[f])
			ok = H5Pset_deflate(p, DEFLATE_LEVEL) >= 0;
	}
	if (ok)
		d = H5Dcreate2(g, c->f[f].name, c->f[f].type, s, H5P_DEFAULT, p, H5P_DEFAULT);
	if (d >= 0 &&
	    (attr_str(d, "units", c->f[f].unit) < 0 || attr_str(d, "description", c->f[f].desc) < 0)) {
		H5Dclose(d);
		d = -1;
	}
	if (p >= 0)
		H5Pclose(p);
	if (s >= 0)
		H5Sclose(s);
	return d;
}

/* Writes rows [k * rows, + rows) of every column of block b with H5Dwrite (HDF5
 * runs the filters): the contiguous case, and the path without our own deflate. */
static int write_block_hdf5(const hid_t *dsets, const struct ctype *c, const struct jlayout *l, size_t k,
			    const struct jblock *b)
{
	size_t r0 = k * l->rows, cnt = l->n - r0 < l->rows ? l->n - r0 : l->rows;
	if (cnt == 0)
		return 0;
	hsize_t start = r0, count = cnt;
	for (size_t f = 0; f < c->n; f++) {
		hid_t fs = H5Dget_space(dsets[f]);
		hid_t ms = H5Screate_simple(1, &count, NULL);
		int ok = fs >= 0 && ms >= 0 &&
			 H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL) >= 0 &&
			 H5Dwrite(dsets[f], c->f[f].type, ms, fs, H5P_DEFAULT, b->col[f]) >= 0;
		if (ms >= 0)
			H5Sclose(ms);
		if (fs >= 0)
			H5Sclose(fs);
		if (!ok)
			return -1;
	}
	return 0;
}

/* 1 (the default): our own threads shuffle and deflate the chunks; 0: HDF5 does
 * (h5out_set_hdf5_filters, the tests' oracle). */
static int own_deflate = 1;
unsigned long h5out_test_row_chunks;

void h5out_set_hdf5_filters(int on)
{
	own_deflate = !on;
}

#ifdef SIM_HAVE_ZLIB
/* ---- our own deflate threads ---- */

/* 8 x 8 byte transpose of x[0..7]: byte k of x[r] becomes byte r of x[k] (three rounds
 * of swapping half blocks between words d apart). */
static void transpose8(uint64_t *x)
{
	static const uint64_t mask[3] = { 0x00000000FFFFFFFFull, 0x0000FFFF0000FFFFull,
					  0x00FF00FF00FF00FFull };
	for (int level = 0, d = 4; d >= 1; level++, d /= 2) {
		unsigned sh = (unsigned)(8 * d);
		for (int r = 0; r < 8; r++) {
			if (r & d)
				continue;
			uint64_t t = ((x[r] >> sh) ^ x[r + d]) & mask[level];
			x[r] ^= t << sh;
			x[r + d] ^= t;
		}
	}
}

/* HDF5's shuffle filter: byte j of element i goes to j * n + i (n elements of `size`
 * bytes; a chunk holds whole elements, so there is no remainder). On a little-endian
 * host 8 elements x 8 bytes move as one 8 x 8 transpose of 64-bit words (a quarter
 * of the time of a byte loop); the leftover elements and bytes go one by one. */
static void shuffle_rows(const unsigned char *in, unsigned char *out, size_t n, size_t size)
{
	const uint16_t one = 1;
	unsigned char low;
	memcpy(&low, &one, 1);
	size_t i0 = 0;
	if (low == 1) {
		for (; i0 + 8 <= n; i0 += 8) {
			size_t j = 0;
			for (; j + 8 <= size; j += 8) {
				uint64_t x[8];
				for (int r = 0; r < 8; r++)
					memcpy(&x[r], in + (i0 + (size_t)r) * size + j, 8);
				transpose8(x);
				for (int k = 0; k < 8; k++)
					memcpy(out + (j + (size_t)k) * n + i0, &x[k], 8);
			}
			for (; j < size; j++)
				for (size_t r = 0; r < 8; r++)
					out[j * n + i0 + r] = in[(i0 + r) * size + j];
		}
	}
	for (; i0 < n; i0++)
		for (size_t j = 0; j < size; j++)
			out[j * n + i0] = in[i0 * size + j];
}

/* One chunk of one column as stored: deflated (buf malloc'd) or raw (buf NULL: the
 * bytes are the block's column). */
struct zchunk {
	unsigned char *buf;
	size_t len;
};

/* A deflater with its scratch, one a thread, and the last constant chunk of each
 * column it deflated: a chunk whose elements are all one value (the zero counts of a
 * run without preemption) deflates to the same bytes every time, so it is deflated
 * once. */
struct zctx {
	z_stream zs;
	int ok;
	unsigned char *shuf; /* rows x the widest element */
	unsigned char *out;  /* deflate's output, out_cap bytes (a block's widest column, bounded) */
	size_t out_cap;
	struct {
		unsigned char elem[SIM_NAME_MAX + 64]; /* the value */
		size_t size;                            /* its bytes; 0: none kept */
		unsigned char *buf;
		size_t len;
	} same[JF_COUNT_];
};

/* A deflater for up to `rows` elements of at most w bytes. */
static int zctx_init_elems(struct zctx *z, size_t rows, size_t w)
{
	memset(z, 0, sizeof *z);
	z->shuf = malloc((rows ? rows : 1) * w);
	if (!z->shuf || deflateInit2(&z->zs, DEFLATE_LEVEL, Z_DEFLATED, 15, 8, Z_RLE) != Z_OK)
		return -1;
	z->ok = 1;
	z->out_cap = (size_t)deflateBound(&z->zs, (uLong)((rows ? rows : 1) * w));
	z->out = malloc(z->out_cap);
	return z->out ? 0 : -1;
}

/* A deflater for a block of `rows` rows of any of c's columns. */
static int zctx_init(struct zctx *z, const struct ctype *c, size_t rows)
{
	size_t w = 1;
	for (size_t f = 0; f < c->n; f++)
		if (c->f[f].size > w)
			w = c->f[f].size;
	return zctx_init_elems(z, rows, w);
}

static void zctx_fini(struct zctx *z)
{
	if (z->ok)
		deflateEnd(&z->zs);
	for (size_t f = 0; f < JF_COUNT_; f++)
		free(z->same[f].buf);
	free(z->shuf);
	free(z->out);
	memset(z, 0, sizeof *z);
}

/* 1 when the n elements of `size` bytes at p are all equal. */
static int all_same(const unsigned char *p, size_t n, size_t size)
{
	return n < 2 || memcmp(p, p + size, (n - 1) * size) == 0;
}

/* Shuffles (elements over one byte) and deflates n elements of `size` bytes at in
 * into a new buffer *out of exactly *len bytes (deflated into the thread's scratch
 * first, so a chunk that deflates to a few bytes holds a few bytes). Deflate uses zlib's run-length strategy
 * (Z_RLE), which on shuffled columns is several times as fast as the default
 * strategy for a slightly larger result (still level 1 as far as the file says:
 * Z_RLE ignores the level). Returns 0 or -1. */
static int zdeflate(struct zctx *z, const unsigned char *in, size_t n, size_t size, unsigned char **out,
		    size_t *len)
{
	size_t bytes = n * size;
	const unsigned char *src = in;
	if (size > 1) {
		shuffle_rows(in, z->shuf, n, size);
		src = z->shuf;
	}
	uLong bound = deflateBound(&z->zs, (uLong)bytes);
	if (bound > z->out_cap || deflateReset(&z->zs) != Z_OK)
		return -1;
	z->zs.next_in = (unsigned char *)src;
	z->zs.avail_in = (uInt)bytes;
	z->zs.next_out = z->out;
	z->zs.avail_out = (uInt)bound;
	if (deflate(&z->zs, Z_FINISH) != Z_STREAM_END)
		return -1;
	size_t n_out = (size_t)(bound - z->zs.avail_out);
	unsigned char *o = malloc(n_out ? n_out : 1);
	if (!o)
		return -1;
	memcpy(o, z->out, n_out);
	*out = o;
	*len = n_out;
	return 0;
}

/* Column f of a block as stored, into *zc: deflated (reusing the last constant chunk
 * of the column when this one holds the same value) or raw. */
static int encode_column(struct zctx *z, const struct ctype *c, const struct jlayout *l, size_t f,
			 const unsigned char *col, struct zchunk *zc)
{
	size_t size = c->f[f].size;
	zc->buf = NULL;
	zc->len = l->rows * size;
	if (!l->deflate[f])
		return 0;
	int same = size <= sizeof z->same[f].elem && all_same(col, l->rows, size);
	if (same && z->same[f].size == size && memcmp(z->same[f].elem, col, size) == 0) {
		zc->buf = malloc(z->same[f].len ? z->same[f].len : 1);
		if (!zc->buf)
			return -1;
		memcpy(zc->buf, z->same[f].buf, z->same[f].len);
		zc->len = z->same[f].len;
		return 0;
	}
	if (zdeflate(z, col, l->rows, size, &zc->buf, &zc->len) < 0)
		return -1;
	if (same) {
		unsigned char *keep = malloc(zc->len ? zc->len : 1);
		if (keep) {
			memcpy(keep, zc->buf, zc->len);
			free(z->same[f].buf);
			memcpy(z->same[f].elem, col, size);
			z->same[f].size = size;
			z->same[f].buf = keep;
			z->same[f].len = zc->len;
		}
	}
	return 0;
}

/* A block once encoded: its columns (the raw ones are stored from here) and every
 * column's chunk. */
struct zblock {
	struct jblock b;
	struct zchunk z[JF_COUNT_];
	int done;
};

static void zblock_free(struct zblock *zb)
{
	free(zb->b.col[0]);
	for (size_t f = 0; f < JF_COUNT_; f++)
		free(zb->z[f].buf);
	memset(zb, 0, sizeof *zb);
}

/* What the threads share. Blocks are taken in order from `next`; a thread waits
 * while it is WINDOW blocks ahead of the writer, so at most WINDOW blocks are in
 * memory whatever the table's size. */
struct zwork {
	const struct ctype *c;
	const struct jlayout *l;
	const struct h5out_run *run;
	const struct jfill *fx;
	struct zblock *blocks;
	size_t next, written, window;
	int failed;
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

/* Column f of block zb when an earlier deflated column g of the same block holds the
 * same bytes: g's deflated chunk is copied. Deflate (after the same shuffle, from a
 * reset stream) is deterministic, so these are the bytes deflating f would give:
 * the file is the same, for less work. The benchmark's gpus and alloc_gpus are equal
 * (every job gets what it asks), and so are jct_s and runtime_s while no job waits;
 * together a third of its deflating. Returns 1 (copied), 0 (no such column) or -1
 * (no memory). */
static int reuse_equal_column(const struct ctype *c, const struct jlayout *l, struct zblock *zb, size_t f)
{
	size_t size = c->f[f].size, bytes = l->rows * size;
	if (!l->deflate[f])
		return 0;
	for (size_t g = 0; g < f; g++) {
		if (!l->deflate[g] || c->f[g].size != size || !zb->z[g].buf ||
		    memcmp(zb->b.col[g], zb->b.col[f], bytes) != 0)
			continue;
		unsigned char *o = malloc(zb->z[g].len ? zb->z[g].len : 1);
		if (!o)
			return -1;
		memcpy(o, zb->z[g].buf, zb->z[g].len);
		zb->z[f].buf = o;
		zb->z[f].len = zb->z[g].len;
		return 1;
	}
	return 0;
}

/* Fills and encodes block k into zb. */
static int encode_block(struct zwork *w, struct zctx *z, size_t k, struct zblock *zb)
{
	if (!zb->b.col[0]) { /* block 0 comes filled */
		if (jblock_alloc(&zb->b, w->c, w->l->rows) < 0)
			return -1;
		fill_block(&zb->b, w->c, w->l, k, w->run, w->fx);
	}
	for (size_t f = 0; f < w->c->n; f++) {
		int r = reuse_equal_column(w->c, w->l, zb, f);
		if (r < 0 || (r == 0 && encode_column(z, w->c, w->l, f, zb->b.col[f], &zb->z[f]) < 0))
			return -1;
	}
	return 0;
}

/* A thread: takes the next block, encodes it, marks it done, until none is left or
 * one failed. */
static void *zwork_run(void *arg)
{
	struct zwork *w = arg;
	struct zctx z;
	int ok = zctx_init(&z, w->c, w->l->rows) == 0;
	pthread_mutex_lock(&w->mu);
	if (!ok)
		w->failed = 1;
	for (;;) {
		while (!w->failed && w->next < w->l->n_blocks && w->next >= w->written + w->window)
			pthread_cond_wait(&w->cv, &w->mu);
		if (w->failed || w->next >= w->l->n_blocks)
			break;
		size_t k = w->next++;
		pthread_mutex_unlock(&w->mu);
		int r = encode_block(w, &z, k, &w->blocks[k]);
		pthread_mutex_lock(&w->mu);
		if (r < 0)
			w->failed = 1;
		w->blocks[k].done = 1;
		pthread_cond_broadcast(&w->cv);
	}
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	zctx_fini(&z);
	return NULL;
}

/* Stores block k's chunks, in column order. */
static int store_block(const hid_t *dsets, const struct ctype *c, const struct jlayout *l, size_t k,
		       const struct zblock *zb)
{
	hsize_t off = (hsize_t)(k * l->rows);
	for (size_t f = 0; f < c->n; f++) {
		const void *bytes = zb->z[f].buf ? (const void *)zb->z[f].buf : (const void *)zb->b.col[f];
		if (H5Dwrite_chunk(dsets[f], H5P_DEFAULT, 0, &off, zb->z[f].len, bytes) < 0)
			return -1;
	}
	return 0;
}

/* The most deflating threads this process may use (h5out_set_zip_threads). */
static size_t zip_limit = ZIP_THREADS;

void h5out_set_zip_threads(size_t n)
{
	zip_limit = n < 1 ? 1 : (n > ZIP_THREADS ? ZIP_THREADS : n);
}

/* Threads for n_blocks blocks: up to the limit, the online CPUs and the blocks. */
static size_t zip_threads(size_t n_blocks)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n = cpus > 0 ? (size_t)cpus : 1;
	if (n > zip_limit)
		n = zip_limit;
	return n < n_blocks ? n : (n_blocks ? n_blocks : 1);
}

/* Every block of the table, encoded by the threads while this thread stores them in
 * order. Block 0 comes filled in *first (taken over: its buffer is freed here). */
static int write_blocks_threaded(const hid_t *dsets, const struct ctype *c, const struct jlayout *l,
				 const struct h5out_run *run, const struct jfill *fx, struct jblock *first)
{
	size_t n_thr = zip_threads(l->n_blocks);
	struct zwork w = { .c = c, .l = l, .run = run, .fx = fx, .window = n_thr + 1 };
	w.blocks = calloc(l->n_blocks, sizeof *w.blocks);
	if (w.blocks) {
		w.blocks[0].b = *first;
		memset(first, 0, sizeof *first);
	}
	pthread_t *tid = calloc(n_thr, sizeof *tid);
	int *started = calloc(n_thr, sizeof *started);
	int r = -1;
	if (!w.blocks || !tid || !started || pthread_mutex_init(&w.mu, NULL) != 0)
		goto out_free;
	if (pthread_cond_init(&w.cv, NULL) != 0)
		goto out_mutex;
	r = 0;
	size_t n_started = 0;
	for (size_t k = 0; r == 0 && k < n_thr; k++) {
		started[k] = pthread_create(&tid[k], NULL, zwork_run, &w) == 0;
		n_started += (size_t)started[k];
	}
	if (r == 0 && n_started == 0) { /* no thread: this one encodes every block first */
		w.window = l->n_blocks;
		zwork_run(&w);
	}
	for (size_t k = 0; r == 0 && k < l->n_blocks; k++) {
		pthread_mutex_lock(&w.mu);
		while (!w.blocks[k].done && !w.failed)
			pthread_cond_wait(&w.cv, &w.mu);
		int failed = w.failed;
		pthread_mutex_unlock(&w.mu);
		if (failed || store_block(dsets, c, l, k, &w.blocks[k]) < 0)
			r = -1;
		zblock_free(&w.blocks[k]);
		pthread_mutex_lock(&w.mu);
		w.written = k + 1;
		if (r < 0)
			w.failed = 1;
		pthread_cond_broadcast(&w.cv);
		pthread_mutex_unlock(&w.mu);
	}
	if (r < 0) {
		pthread_mutex_lock(&w.mu);
		w.failed = 1;
		pthread_cond_broadcast(&w.cv);
		pthread_mutex_unlock(&w.mu);
	}
	for (size_t k = 0; k < n_thr; k++)
		if (started[k])
			pthread_join(tid[k], NULL);
	pthread_cond_destroy(&w.cv);
out_mutex:
	pthread_mutex_destroy(&w.mu);
out_free:
	for (size_t k = 0; w.blocks && k < l->n_blocks; k++)
		zblock_free(&w.blocks[k]);
	free(w.blocks);
	free(tid);
	free(started);
	return r;
}

/* Decides from the first CHOOSE_SAMPLE_ROWS rows of block 0 which columns are
 * deflated: those whose sample deflates to at most COMPRESS_MAX_RATIO of its bytes
 * (a sample, so that a column stored raw costs a small fraction of a deflate). */
static int choose_filters(struct jlayout *l, const struct ctype *c, const struct jblock *b)
{
	struct zctx z;
	int r = zctx_init(&z, c, l->rows);
	size_t n = l->rows < CHOOSE_SAMPLE_ROWS ? l->rows : CHOOSE_SAMPLE_ROWS;
	for (size_t f = 0; r == 0 && f < c->n; f++) {
		unsigned char *out = NULL;
		size_t len = 0;
		if (zdeflate(&z, b->col[f], n, c->f[f].size, &out, &len) < 0)
			r = -1;
		l->deflate[f] = (double)len <= COMPRESS_MAX_RATIO * (double)(n * c->f[f].size);
		free(out);
	}
	zctx_fini(&z);
	return r;
}
#else
void h5out_set_zip_threads(size_t n)
{
	(void)n;
}
#endif

/* Writes every block with H5Dwrite (HDF5 runs the filters); block 0 is in b. */
static int write_blocks_hdf5(const hid_t *dsets, const struct ctype *c, const struct jlayout *l,
			     const struct h5out_run *run, const struct jfill *fx, struct jblock *b)
{
	int r = write_block_hdf5(dsets, c, l, 0, b);
	for (size_t k = 1; r == 0 && k < l->n_blocks; k++) {
		fill_block(b, c, l, k, run, fx);
		r = write_block_hdf5(dsets, c, l, k, b);
	}
	return r;
}

/* Preemptions each job caused, counted from the decisions (a decision whose
 * preemptor is its victim, a quota shrink, had none). NULL without decisions, or
 * on no memory (*err set). */
static uint32_t *caused_counts(const struct h5out_run *run, int *err)
{
	const struct sim_decisions *ds = run->decisions;
	size_t n = run->trace->n_jobs;
	*err = 0;
	if (!ds)
		return NULL;
	uint32_t *caused = calloc(n ? n : 1, sizeof *caused);
	if (!caused) {
		*err = 1;
		return NULL;
	}
	for (size_t k = 0; k < ds->n; k++)
		if (ds->v[k].preemptor != ds->v[k].victim && ds->v[k].preemptor < n)
			caused[ds->v[k].preemptor]++;
	return caused;
}

/* The jobs group (links in creation order, so readers list the columns in table
 * order) with its attributes: description, and fields, units and
 * field_descriptions aligned. */
static hid_t jobs_group(hid_t run_grp, const struct ctype *c)
{
	hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE), g = -1;
	if (gcpl >= 0 && H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED) >= 0)
		g = H5Gcreate2(run_grp, "jobs", H5P_DEFAULT, gcpl, H5P_DEFAULT);
	if (gcpl >= 0)
		H5Pclose(gcpl);
	const char *names[JF_COUNT_];
	for (size_t f = 0; f < c->n && f < JF_COUNT_; f++)
		names[f] = c->f[f].name;
	if (g >= 0 && (ctype_attrs(c, g,
				   "one dataset a field, one element a job, in trace order (submit time, "
				   "then trace row)") < 0 ||
		       attr_str_array(g, "fields", names, c->n) < 0)) {
		H5Gclose(g);
		g = -1;
	}
	return g;
}

static int write_jobs(hid_t grp, const struct h5out_run *run)
{
	const struct sim_trace *t = run->trace;
	struct ctype c = { .mem = -1 };
	hid_t dsets[JF_COUNT_];
	size_t n_dsets = 0;
	struct jlayout l;
	int r = -1, err;
	hid_t g = -1;
	uint32_t *caused = caused_counts(run, &err);
	struct jblock b0s, *b0 = &b0s;
	struct jfill fx;
	int have_fx = 0;
	memset(&b0s, 0, sizeof b0s);
	if (err || jobs_ctype(&c, t, run->cluster) < 0 || c.n != JF_COUNT_)
		goto out;
	if (jfill_init(&fx, &c, run, caused) < 0)
		goto out;
	have_fx = 1;
	jlayout_plan(&l, t->n_jobs, c.size);
	if (jblock_alloc(b0, &c, l.rows) < 0)
		goto out;
	fill_block(b0, &c, &l, 0, run, &fx);
	for (size_t f = 0; f < c.n; f++)
		l.deflate[f] =
			H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0 && H5Zfilter_avail(H5Z_FILTER_SHUFFLE) > 0;
#ifdef SIM_HAVE_ZLIB
	if (l.chunked && choose_filters(&l, &c, b0) < 0)
		goto out;
#endif
	if ((g = jobs_group(grp, &c)) < 0)
		goto out;
	for (; n_dsets < c.n; n_dsets++)
		if ((dsets[n_dsets] = column_dataset(g, &c, n_dsets, &l)) < 0)
			goto out;
#ifdef SIM_HAVE_ZLIB
	if (l.chunked && own_deflate)
		r = write_blocks_threaded(dsets, &c, &l, run, &fx, b0);
	else
#endif
		r = write_blocks_hdf5(dsets, &c, &l, run, &fx, b0);
out:
	for (size_t f = 0; f < n_dsets; f++)
		if (H5Dclose(dsets[f]) < 0)
			r = -1;
	if (g >= 0 && H5Gclose(g) < 0)
		r = -1;
	free(b0s.col[0]);
	if (have_fx)
		jfill_fini(&fx);
	ctype_fini(&c);
	free(caused);
	return r;
}

/* ---- decisions: one row a preemption ---- */

/* The reason enum: every sim_preempt_reason, named as sim_preempt_reason_name
 * (lower case, as in the event log). */
static hid_t reason_enum_type(void)
{
	hid_t t = H5Tenum_create(H5T_NATIVE_UINT8);
	if (t < 0)
		return t;
	for (int r = 0; r < SIM_PR_COUNT_; r++) {
		uint8_t v = (uint8_t)r;
		if (H5Tenum_insert(t, sim_preempt_reason_name((enum sim_preempt_reason)r), &v) < 0) {
			H5Tclose(t);
			return -1;
		}
	}
	return t;
}

/* Bytes of the longest reason name, plus its NUL. */
static size_t reason_label_width(void)
{
	size_t w = 1;
	for (int r = 0; r < SIM_PR_COUNT_; r++)
		if (strlen(sim_preempt_reason_name((enum sim_preempt_reason)r)) + 1 > w)
			w = strlen(sim_preempt_reason_name((enum sim_preempt_reason)r)) + 1;
	return w;
}

/* Offsets of the decision row fields, in ctype order. */
enum df {
	DF_TIME, DF_PREEMPTOR, DF_VICTIM, DF_PQUEUE, DF_VQUEUE, DF_REASON, DF_REQUEUED, DF_LOST, DF_REASON_LABEL,
	DF_COUNT_
};

static const struct sim_job *job_at(const struct sim_trace *t, uint32_t idx)
{
	return idx < t->n_jobs ? &t->jobs[idx] : NULL;
}

static const char *job_queue_name(const struct sim_trace *t, const struct sim_job *j)
{
	return j ? name_or_empty(t->queues, t->n_queues, j->queue) : "";
}

static int decisions_ctype(struct ctype *c, const struct sim_trace *t, const struct sim_decisions *ds)
{
	size_t id_w = 0, n = ds ? ds->n : 0;
	for (size_t k = 0; k < n; k++) {
		const struct sim_job *v = job_at(t, ds->v[k].victim), *p = job_at(t, ds->v[k].preemptor);
		if (v && strlen(sim_job_id(t, v)) > id_w)
			id_w = strlen(sim_job_id(t, v));
		if (p && strlen(sim_job_id(t, p)) > id_w)
			id_w = strlen(sim_job_id(t, p));
	}
	size_t q_w = max_len(t->queues, t->n_queues);
	if (ctype_add(c, "time_s", copy_type(H5T_NATIVE_DOUBLE), "s", "time of the preemption") < 0 ||
	    ctype_add(c, "preemptor", str_type(id_w + 1), "",
		      "job admitted by it; \"\" when none (a quota shrink)") < 0 ||
	    ctype_add(c, "victim", str_type(id_w + 1), "", "job stopped") < 0 ||
	    ctype_add(c, "preemptor_queue", str_type(q_w + 1), "", "preemptor's queue, \"\" when none") < 0 ||
	    ctype_add(c, "victim_queue", str_type(q_w + 1), "", "victim's queue") < 0 ||
	    ctype_add(c, "reason", reason_enum_type(), "", "why (docs/design.md section 2)") < 0 ||
	    ctype_add(c, "requeued", copy_type(H5T_NATIVE_UINT8), "1",
		      "1: the victim was queued again; 0: it reached its retry limit (preempted_out)") < 0 ||
	    ctype_add(c, "lost_gpu_s", copy_type(H5T_NATIVE_DOUBLE), "GPU*s",
		      "work the victim lost: GPUs x time since its last checkpoint") < 0 ||
	    ctype_add(c, "reason_label", str_type(reason_label_width()), "",
		      "reason's name, for readers that see an enum as its integer (1.5)") < 0)
		return -1;
	return ctype_build(c);
}

static void fill_decision_row(char *row, const struct ctype *c, const struct sim_trace *t,
			      const struct sim_decision *d)
{
	const struct sim_job *v = job_at(t, d->victim);
	const struct sim_job *p = d->preemptor != d->victim ? job_at(t, d->preemptor) : NULL;
	put_f64(row, c, DF_TIME, sim_time_to_s(d->t));
	put_str(row, c, DF_PREEMPTOR, p ? sim_job_id(t, p) : "");
	put_str(row, c, DF_VICTIM, v ? sim_job_id(t, v) : "");
	put_str(row, c, DF_PQUEUE, job_queue_name(t, p));
	put_str(row, c, DF_VQUEUE, job_queue_name(t, v));
	uint8_t reason = d->reason, requeued = d->requeued ? 1 : 0;
	put(row, c, DF_REASON, &reason, sizeof reason);
	put(row, c, DF_REQUEUED, &requeued, sizeof requeued);
	put_f64(row, c, DF_LOST, d->lost_gpu_s);
	put_str(row, c, DF_REASON_LABEL, d->reason < SIM_PR_COUNT_ ?
			sim_preempt_reason_name((enum sim_preempt_reason)d->reason) : "");
}

/* Writes n rows of the compound type c as dataset NAME of grp, WRITE_BLOCK_ROWS at
 * a time, each row filled by fill(row, c, ctx, index), then the type's attributes
 * with the table's description. Owns and finishes c. Returns 0 or -1. */
typedef void (*row_fill_fn)(char *row, const struct ctype *c, const void *ctx, size_t i);

#ifdef SIM_HAVE_ZLIB
/* The rows of dataset d's chunks, when d is chunked with exactly shuffle then
 * deflate (make_dcpl's filters); 0 otherwise. */
static size_t shuffled_deflate_chunk(hid_t d)
{
	hid_t p = H5Dget_create_plist(d);
	hsize_t rows = 0;
	unsigned flags, cd0[8], cd1[8];
	size_t n0 = 8, n1 = 8;
	char nm[32];
	int ok = p >= 0 && H5Pget_layout(p) == H5D_CHUNKED && H5Pget_nfilters(p) == 2 &&
		 H5Pget_filter2(p, 0, &flags, &n0, cd0, sizeof nm, nm, NULL) == H5Z_FILTER_SHUFFLE &&
		 H5Pget_filter2(p, 1, &flags, &n1, cd1, sizeof nm, nm, NULL) == H5Z_FILTER_DEFLATE;
	if (!ok || H5Pget_chunk(p, 1, &rows) != 1)
		rows = 0;
	if (p >= 0)
		H5Pclose(p);
	return (size_t)rows;
}

/* Writes n rows of c into d, chunked by chunk_rows with shuffle and deflate: each
 * chunk filled, then shuffled and deflated as a jobs column is (zdeflate, each row one
 * element) and stored with H5Dwrite_chunk (the last one padded with zero rows: chunks
 * are whole). What a reader gets is what HDF5's filters would have stored (the 263,463
 * decisions of the 1M kueue benchmark: 0.30 s through HDF5's filter, 0.21 s this way,
 * analysis/SCHEMA.md). Returns 0 or -1. */
static int write_row_chunks(hid_t d, const struct ctype *c, size_t n, size_t chunk_rows, row_fill_fn fill,
			    const void *ctx)
{
	unsigned char *buf = malloc(chunk_rows * c->size);
	struct zctx z;
	int ok = buf && zctx_init_elems(&z, chunk_rows, c->size) == 0;
	for (size_t first = 0; ok && first < n; first += chunk_rows) {
		size_t cnt = n - first < chunk_rows ? n - first : chunk_rows;
		memset(buf, 0, chunk_rows * c->size);
		for (size_t k = 0; k < cnt; k++)
			fill((char *)buf + k * c->size, c, ctx, first + k);
		unsigned char *out = NULL;
		size_t len = 0;
		hsize_t off = first;
		ok = zdeflate(&z, buf, chunk_rows, c->size, &out, &len) == 0 &&
		     H5Dwrite_chunk(d, H5P_DEFAULT, 0, &off, len, out) >= 0;
		free(out);
		h5out_test_row_chunks++;
	}
	if (buf)
		zctx_fini(&z);
	free(buf);
	return ok ? 0 : -1;
}
#endif

static int write_row_table(hid_t grp, const char *name, struct ctype *c, size_t n, row_fill_fn fill,
			   const void *ctx, const char *what)
{
	int r = -1;
	size_t block = n < WRITE_BLOCK_ROWS ? n : WRITE_BLOCK_ROWS;
	char *buf = calloc(block ? block : 1, c->size);
	hid_t d = buf ? ctype_dataset(c, grp, name, n) : -1;
	if (d < 0)
		goto out;
	int w = 0;
	size_t chunk_rows = 0; /* chunks of our own deflate, else HDF5 runs the filters */
#ifdef SIM_HAVE_ZLIB
	if (own_deflate && n > 0)
		chunk_rows = shuffled_deflate_chunk(d);
	if (chunk_rows)
		w = write_row_chunks(d, c, n, chunk_rows, fill, ctx);
#endif
	for (size_t first = 0; !chunk_rows && first < n && w == 0; first += block) {
		size_t cnt = n - first < block ? n - first : block;
		memset(buf, 0, cnt * c->size);
		for (size_t k = 0; k < cnt; k++)
			fill(buf + k * c->size, c, ctx, first + k);
		w = write_rows(d, c->mem, first, cnt, buf);
	}
	if (w == 0 && ctype_attrs(c, d, what) == 0)
		r = 0;
	if (H5Dclose(d) < 0)
		r = -1;
out:
	free(buf);
	ctype_fini(c);
	return r;
}

static void decision_row_cb(char *row, const struct ctype *c, const void *ctx, size_t i)
{
	const struct h5out_run *run = ctx;
	fill_decision_row(row, c, run->trace, &run->decisions->v[i]);
}

/* Always written: 0 rows when the run preempted nothing (or recorded no decisions). */
static int write_decisions(hid_t grp, const struct h5out_run *run)
{
	const struct sim_decisions *ds = run->decisions;
	struct ctype c = { .mem = -1 };
	if (decisions_ctype(&c, run->trace, ds) < 0 || c.n != DF_COUNT_) {
		ctype_fini(&c);
		return -1;
	}
	return write_row_table(grp, "decisions", &c, ds ? ds->n : 0, decision_row_cb, run,
			       "one row a preemption, in the order issued");
}

/* ---- the faults table (1.6): one row a job, for runs with a fault model ---- */

enum ff { FF_ID, FF_STOPS_NODE, FF_STOPS_CRASH, FF_STOPS_HANG, FF_STOPS_SPIKE, FF_LOST_NODE, FF_LOST_CRASH,
	  FF_LOST_HANG, FF_LOST_SPIKE, FF_USEFUL, FF_HELD, FF_ETTR, FF_COUNT_ };

static int faults_ctype(struct ctype *c, const struct sim_trace *t)
{
	size_t id_w = 0;
	for (size_t i = 0; i < t->n_jobs; i++)
		if (strlen(sim_job_id(t, &t->jobs[i])) > id_w)
			id_w = strlen(sim_job_id(t, &t->jobs[i]));
	if (ctype_add(c, "id", str_type(id_w + 1), "", "job id from the trace") < 0 ||
	    ctype_add(c, "stops_node_failed", copy_type(H5T_NATIVE_UINT32), "1",
		      "times a node it ran on failed") < 0 ||
	    ctype_add(c, "stops_crashed", copy_type(H5T_NATIVE_UINT32), "1", "times it crashed") < 0 ||
	    ctype_add(c, "stops_hang", copy_type(H5T_NATIVE_UINT32), "1", "times it hung and was killed") < 0 ||
	    ctype_add(c, "stops_loss_spike", copy_type(H5T_NATIVE_UINT32), "1",
		      "times a loss spike rolled it back") < 0 ||
	    ctype_add(c, "lost_node_failed_gpu_s", copy_type(H5T_NATIVE_DOUBLE), "GPU*s",
		      "GPUs x time since its last checkpoint, at node failures") < 0 ||
	    ctype_add(c, "lost_crashed_gpu_s", copy_type(H5T_NATIVE_DOUBLE), "GPU*s",
		      "GPUs x time since its last checkpoint, at crashes") < 0 ||
	    ctype_add(c, "lost_hang_gpu_s", copy_type(H5T_NATIVE_DOUBLE), "GPU*s",
		      "GPUs x (time from its last checkpoint to the hang + time hung)") < 0 ||
	    ctype_add(c, "lost_loss_spike_gpu_s", copy_type(H5T_NATIVE_DOUBLE), "GPU*s",
		      "GPUs x (time since its last checkpoint + the work rolled back), at loss spikes") < 0 ||
	    ctype_add(c, "useful_s", copy_type(H5T_NATIVE_DOUBLE), "s",
		      "work done and kept: its run time if completed, else progress x run time") < 0 ||
	    ctype_add(c, "held_s", copy_type(H5T_NATIVE_DOUBLE), "s",
		      "time it held its GPUs, over every run segment") < 0 ||
	    ctype_add(c, "ettr", copy_type(H5T_NATIVE_DOUBLE), "1",
		      "useful_s / held_s; NaN when it held none") < 0)
		return -1;
	return ctype_build(c);
}

static void fill_fault_row(char *row, const struct ctype *c, const struct sim_trace *t,
			   const struct sim_cluster *cl, const struct sim_job *j)
{
	put_str(row, c, FF_ID, sim_job_id(t, j));
	const struct sim_job_fx *x = sim_job_fx(t, j);
	for (int k = 0; k < SIM_JOB_FAULT_CAUSES; k++) {
		uint32_t n = x->fault_stops[k];
		put(row, c, FF_STOPS_NODE + (size_t)k, &n, sizeof n);
		put_f64(row, c, FF_LOST_NODE + (size_t)k, x->lost_fault_gpu_s[k]);
	}
	put_f64(row, c, FF_USEFUL, sim_metrics_job_useful_s(t, cl, j));
	put_f64(row, c, FF_HELD, j->held_s);
	put_f64(row, c, FF_ETTR, sim_metrics_job_ettr(t, cl, j));
}

static void fault_row_cb(char *row, const struct ctype *c, const void *ctx, size_t i)
{
	const struct h5out_run *run = ctx;
	fill_fault_row(row, c, run->trace, run->cluster, &run->trace->jobs[i]);
}

static int write_faults(hid_t grp, const struct h5out_run *run)
{
	if (!run->faults)
		return 0;
	struct ctype c = { .mem = -1 };
	if (faults_ctype(&c, run->trace) < 0 || c.n != FF_COUNT_) {
		ctype_fini(&c);
		return -1;
	}
	return write_row_table(grp, "faults", &c, run->trace->n_jobs, fault_row_cb, run,
			       "one row a job, in the jobs table's order: what faults cost it (1.6)");
}

/* ---- numeric tables: queues, options ---- */

/* Fields of the queues and options tables that count (jobs, preemptions): int64
 * since 1.5, so a reader gets integers. */
static int table_is_count(const char *name)
{
	static const char *const counts[] = { "jobs", "completed", "preemptions_suffered", "preemptions_caused" };
	for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
		if (strcmp(name, counts[i]) == 0)
			return 1;
	return 0;
}

/* A count as int64: rounded; 0 for NaN (a run written without a summary). */
static int64_t count_value(double v)
{
	return isfinite(v) ? (int64_t)llround(v) : 0;
}

/* Writes the dataset `name` of n rows with the fields of c, which the caller added:
 * field 0 the row's key, keys[i] when keys (a string field) or else the row index (an
 * int32 field), then c->n - 1 doubles, the first of each row struct in rows (n structs
 * of row_size bytes, each starting with its doubles). desc describes the table. */
static int write_num_table(hid_t grp, const char *name, const char *desc, struct ctype *c, char **keys,
			   const void *rows, size_t row_size, size_t n)
{
	char *buf = NULL;
	int r = -1;
	if (ctype_build(c) < 0 || !(buf = calloc(n ? n : 1, c->size)))
		goto out_free;
	for (size_t i = 0; i < n; i++) {
		char *row = buf + i * c->size;
		const double *v = (const double *)((const char *)rows + i * row_size);
		int32_t index = (int32_t)i;
		if (keys)
			put_str(row, c, 0, name_or_empty(keys, n, index));
		else
			put(row, c, 0, &index, sizeof index);
		for (size_t f = 1; f < c->n; f++) {
			int64_t count = count_value(v[f - 1]);
			if (H5Tget_class(c->f[f].type) == H5T_INTEGER)
				put(row, c, f, &count, sizeof count);
			else
				put_f64(row, c, f, v[f - 1]);
		}
	}
	hid_t d = ctype_dataset(c, grp, name, n);
	if (d < 0)
		goto out_free;
	if (write_rows(d, c->mem, 0, n, buf) == 0 && ctype_attrs(c, d, desc) == 0)
		r = 0;
	if (H5Dclose(d) < 0)
		r = -1;
out_free:
	free(buf);
	return r;
}

static int write_queues(hid_t grp, const struct h5out_run *run)
{
	const struct sim_trace *t = run->trace;
	size_t nq = t->n_queues;
	struct sim_queue_row *own = NULL;
	const struct sim_queue_row *rows = run->queues;
	struct ctype c = { .mem = -1 };
	int r = -1;
	if (!rows) {
		own = calloc(nq ? nq : 1, sizeof *own);
		if (!own || sim_metrics_queues(t, NULL, NULL, run->decisions, SIM_TIME_NONE, own) < 0)
			goto out_free;
		sim_metrics_queue_costs(t, run->cluster, run->flavor_cost_type, own);
		rows = own;
	}
	if (ctype_add(&c, "queue", str_type(max_len(t->queues, t->n_queues) + 1), "", "queue name") < 0)
		goto out_free;
	for (int f = 0; f < SIM_QF_COUNT_; f++)
		if (ctype_add(&c, sim_queue_field_name((enum sim_queue_field)f),
			      copy_type(table_is_count(sim_queue_field_name((enum sim_queue_field)f)) ? H5T_NATIVE_INT64
													 : H5T_NATIVE_DOUBLE),
			      sim_queue_field_unit((enum sim_queue_field)f),
			      sim_queue_field_description((enum sim_queue_field)f)) < 0)
			goto out_free;
	r = write_num_table(grp, "queues", "one row a trace queue, in trace order (analysis/SCHEMA.md)", &c,
			    t->queues, rows, sizeof *rows, nq);
out_free:
	ctype_fini(&c);
	free(own);
	return r;
}

/* One row an option index, up to the largest n_opts of the trace. */
static int write_options(hid_t grp, const struct h5out_run *run)
{
	struct sim_option_row own[SIM_MAX_OPTIONS];
	const struct sim_option_row *rows = run->options;
	size_t n = run->n_options;
	struct ctype c = { .mem = -1 };
	int r = -1;
	if (!rows) {
		if (sim_metrics_options(run->trace, run->cluster, own, &n) < 0)
			return -1;
		rows = own;
	}
	if (ctype_add(&c, "option", copy_type(H5T_NATIVE_INT32), "1", "option index (0 = the first)") < 0)
		goto out_fini;
	for (int f = 0; f < SIM_OF_COUNT_; f++) {
		enum sim_option_field of = (enum sim_option_field)f;
		if (ctype_add(&c, sim_option_field_name(of),
			      copy_type(table_is_count(sim_option_field_name(of)) ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE),
			      sim_option_field_unit(of),
			      sim_option_field_description(of)) < 0)
			goto out_fini;
	}
	r = write_num_table(grp, "options",
			    "one row an option index: the jobs that ran on it (analysis/SCHEMA.md)", &c, NULL, rows,
			    sizeof *rows, n);
out_fini:
	ctype_fini(&c);
	return r;
}

/* A per-queue series [n][nq] with its column names in the attribute queue_names. */
static int write_queue_series(hid_t g, const char *name, const double *x, size_t n, char **names, size_t nq,
			      const char *desc)
{
	static const double none = 0.0;
	if (write_doubles(g, name, n ? x : &none, 2, n, nq, "GPU", desc) < 0)
		return -1;
	hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
	if (d < 0)
		return -1;
	int r = attr_str_array(d, "queue_names", (const char *const *)names, nq);
	if (H5Dclose(d) < 0)
		r = -1;
	return r;
}

/* queue_usage always (when the series has queue columns), nominal / borrowed / lent
 * when the quota policy reported them. */
static int write_queue_timeseries(hid_t g, const struct h5out_run *run)
{
	const struct sim_timeseries *ts = run->ts;
	const struct sim_trace *t = run->trace;
	if (!ts || ts->n_queues == 0)
		return 0;
	size_t n = ts->n, nq = ts->n_queues;
	if (nq != t->n_queues || (n > 0 && !ts->q_usage))
		return n > 0 ? -1 : 0; /* the series does not belong to this trace */
	if (write_queue_series(g, "queue_usage", ts->q_usage, n, t->queues, nq,
			       "GPUs allocated to each queue's jobs: [sample][queue], columns named by "
			       "queue_names") < 0)
		return -1;
	if (!ts->has_quota_stats)
		return 0;
	if (n > 0 && (!ts->q_nominal || !ts->q_borrowed || !ts->q_lent))
		return -1;
	if (write_queue_series(g, "queue_nominal", ts->q_nominal, n, t->queues, nq,
			       "each queue's nominal quota, all flavors: [sample][queue]") < 0 ||
	    write_queue_series(g, "queue_borrowed", ts->q_borrowed, n, t->queues, nq,
			       "GPUs each queue uses above its nominal: [sample][queue]") < 0 ||
	    write_queue_series(g, "queue_lent", ts->q_lent, n, t->queues, nq,
			       "GPUs of each queue's nominal in use by other queues: [sample][queue]") < 0)
		return -1;
	return 0;
}

/* ---- dimension scales of the time series (1.5) ---- */

/* A 1-D dataset of n fixed-length strings (the column names of a 2-D series),
 * made the dimension scale called name. */
static int write_name_scale(hid_t g, const char *name, char *const *vals, size_t n, const char *desc)
{
	size_t w = max_len((char **)vals, n) + 1;
	char *buf = calloc(n ? n : 1, w);
	hsize_t dim = n;
	hid_t t = str_type(w), s = H5Screate_simple(1, &dim, NULL);
	hid_t d = (buf && t >= 0 && s >= 0) ? H5Dcreate2(g, name, t, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
	int r = -1;
	for (size_t i = 0; buf && i < n; i++)
		memcpy(buf + i * w, vals[i], strlen(vals[i]));
	if (d >= 0 && (n == 0 || H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0) &&
	    attr_str(d, "description", desc) == 0 && H5DSset_scale(d, name) >= 0)
		r = 0;
	if (d >= 0 && H5Dclose(d) < 0)
		r = -1;
	if (s >= 0)
		H5Sclose(s);
	close_type(t);
	free(buf);
	return r;
}

/* Attaches the scale dataset `scale` of g to dimension dim of every dataset of g
 * named in names that exists. */
static int attach_to(hid_t g, const char *scale, const char *const *names, size_t n, unsigned dim)
{
	hid_t sc = H5Dopen2(g, scale, H5P_DEFAULT);
	int r = sc < 0 ? -1 : 0;
	for (size_t i = 0; r == 0 && i < n; i++) {
		htri_t ex = H5Lexists(g, names[i], H5P_DEFAULT);
		if (ex <= 0) {
			r = ex < 0 ? -1 : 0;
			continue;
		}
		hid_t d = H5Dopen2(g, names[i], H5P_DEFAULT);
		if (d < 0 || H5DSattach_scale(d, sc, dim) < 0)
			r = -1;
		if (d >= 0)
			H5Dclose(d);
	}
	if (sc >= 0)
		H5Dclose(sc);
	return r;
}

static const char *const series_names[] = { "gpus_busy", "jobs_queued", "jobs_running", "gpus_busy_by_flavor",
					    "queue_usage", "queue_nominal", "queue_borrowed", "queue_lent",
					    "nodes_down" };
static const char *const by_queue_names[] = { "queue_usage", "queue_nominal", "queue_borrowed", "queue_lent" };

/* Makes the dataset `name` of g a dimension scale (when it exists). */
static int set_scale(hid_t g, const char *name)
{
	htri_t ex = H5Lexists(g, name, H5P_DEFAULT);
	if (ex <= 0)
		return ex < 0 ? -1 : 0;
	hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
	int r = (d >= 0 && H5DSset_scale(d, name) >= 0) ? 0 : -1;
	if (d >= 0 && H5Dclose(d) < 0)
		r = -1;
	return r;
}

/* t_s becomes the scale of every series' first dimension, and the datasets flavor and
 * queue (the column names) of the second dimension of the 2-D series, so xarray and
 * netCDF readers see t_s, flavor and queue as coordinates instead of phony_dim_N. */
static int link_scales(hid_t g)
{
	static const char *const by_flavor[] = { "gpus_busy_by_flavor" };
	int r = set_scale(g, "t_s") == 0 && set_scale(g, "flavor") == 0 && set_scale(g, "queue") == 0 ? 0 : -1;
	if (r == 0)
		r = attach_to(g, "t_s", series_names, sizeof series_names / sizeof series_names[0], 0);
	if (r == 0)
		r = attach_to(g, "flavor", by_flavor, 1, 1);
	if (r == 0 && H5Lexists(g, "queue", H5P_DEFAULT) > 0)
		r = attach_to(g, "queue", by_queue_names, sizeof by_queue_names / sizeof by_queue_names[0], 1);
	return r;
}

/* The flavor and queue name datasets, then the scales linked. */
static int attach_scales(hid_t g, char *const *flavors, size_t nf, char *const *queues, size_t nq)
{
	int r = write_name_scale(g, "flavor", flavors, nf, "flavor names: the columns of gpus_busy_by_flavor");
	if (r == 0 && queues && nq > 0)
		r = write_name_scale(g, "queue", queues, nq, "queue names: the columns of the queue_* series");
	return r == 0 ? link_scales(g) : -1;
}

/* Removes the attribute name of the dataset `obj` of g when both exist. */
static int drop_attr(hid_t g, const char *obj, const char *name)
{
	if (H5Lexists(g, obj, H5P_DEFAULT) <= 0)
		return 0;
	hid_t d = H5Dopen2(g, obj, H5P_DEFAULT);
	int r = d < 0 ? -1 : 0;
	if (r == 0 && H5Aexists(d, name) > 0 && H5Adelete(d, name) < 0)
		r = -1;
	if (d >= 0)
		H5Dclose(d);
	return r;
}

/* After H5Ocopy into another file the scales' links are object references that
 * point nowhere (HDF5 1.10 sets them to NULL, and expanding them crashes), so the
 * copy's links are removed and made again in this file. */
static int relink_scales(hid_t run_group)
{
	if (H5Lexists(run_group, "timeseries", H5P_DEFAULT) <= 0)
		return 0;
	hid_t g = H5Gopen2(run_group, "timeseries", H5P_DEFAULT);
	if (g < 0)
		return -1;
	int r = 0;
	for (size_t i = 0; r == 0 && i < sizeof series_names / sizeof series_names[0]; i++)
		r = drop_attr(g, series_names[i], "DIMENSION_LIST");
	static const char *const scales[] = { "t_s", "flavor", "queue" };
	static const char *const scale_attrs[] = { "REFERENCE_LIST", "CLASS", "NAME" };
	for (size_t i = 0; r == 0 && i < 3; i++)
		for (size_t k = 0; r == 0 && k < 3; k++)
			r = drop_attr(g, scales[i], scale_attrs[k]);
	if (r == 0)
		r = link_scales(g);
	if (H5Gclose(g) < 0)
		r = -1;
	return r;
}

static int write_timeseries(hid_t run_grp, const struct h5out_run *run)
{
	static const double none = 0.0;
	const struct sim_timeseries *ts = run->ts;
	size_t n = ts ? ts->n : 0;
	size_t nf = sim_cluster_n_flavors(run->cluster);
	if (ts && ts->n_flavors != nf && n > 0)
		return -1; /* the series does not belong to this cluster */
	hid_t g = H5Gcreate2(run_grp, "timeseries", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	if (g < 0)
		return -1;
	int r = -1;
	const char **names = malloc((nf ? nf : 1) * sizeof *names);
	if (!names)
		goto out_group;
	for (size_t f = 0; f < nf; f++)
		names[f] = sim_cluster_flavor(run->cluster, (int)f)->name;
	if (attr_str(g, "description",
		     "samples of the cluster state; row i holds the state in force from t_s[i] until t_s[i+1]") < 0 ||
	    write_doubles(g, "t_s", n ? ts->t_s : &none, 1, n, 0, "s", "sample time") < 0 ||
	    write_doubles(g, "gpus_busy", n ? ts->gpus_busy : &none, 1, n, 0, "GPU",
			  "GPUs allocated, all flavors") < 0 ||
	    write_doubles(g, "jobs_queued", n ? ts->jobs_queued : &none, 1, n, 0, "1",
			  "jobs submitted and waiting") < 0 ||
	    write_doubles(g, "jobs_running", n ? ts->jobs_running : &none, 1, n, 0, "1", "jobs running") < 0 ||
	    (ts && ts->has_nodes_down &&
	     write_doubles(g, "nodes_down", n ? ts->nodes_down : &none, 1, n, 0, "1",
			   "node slots failed and not yet back (runs with node failures only)") < 0) ||
	    write_doubles(g, "gpus_busy_by_flavor", n ? ts->gpus_busy_by_flavor : &none, 2, n, nf, "GPU",
			  "GPUs allocated per flavor: [sample][flavor], columns named by flavor_names") < 0)
		goto out_names;
	hid_t d = H5Dopen2(g, "gpus_busy_by_flavor", H5P_DEFAULT);
	if (d < 0)
		goto out_names;
	if (attr_str_array(d, "flavor_names", names, nf) == 0)
		r = 0;
	if (H5Dclose(d) < 0)
		r = -1;
	if (r == 0 && write_queue_timeseries(g, run) < 0)
		r = -1;
	if (r == 0 && attach_scales(g, (char *const *)names, nf, ts && ts->n_queues ? run->trace->queues : NULL,
				    ts ? ts->n_queues : 0) < 0)
		r = -1;
out_names:
	free(names);
out_group:
	if (H5Gclose(g) < 0)
		r = -1;
	return r;
}

/* The run attribute names of the policy families (sim/hooks.h order). */
static const char *const policy_attr_names[SIM_FAM_COUNT_] = { "policy_order", "policy_quota",
							       "policy_preemption", "policy_fallback" };

static const char *or_empty(const char *s)
{
	return s ? s : "";
}

/* The order policy's name: policies[SIM_FAM_ORDER], else the older field policy. */
static const char *run_policy_name(const struct h5out_run *run, int fam)
{
	if (fam == SIM_FAM_ORDER && !run->policies[fam])
		return or_empty(run->policy);
	return or_empty(run->policies[fam]);
}

/* name without its trailing "-s<seed>" (only that exact suffix), malloc'd. */
static char *name_less_seed(const char *name, uint64_t seed)
{
	char suffix[32];
	int k = snprintf(suffix, sizeof suffix, "-s%llu", (unsigned long long)seed);
	size_t n = strlen(name);
	if (k > 0 && (size_t)k < n && strcmp(name + n - (size_t)k, suffix) == 0)
		n -= (size_t)k;
	char *p = malloc(n + 1);
	if (p) {
		memcpy(p, name, n);
		p[n] = 0;
	}
	return p;
}

/* 1.5: what the run is: its variant, its policies and its swept values. */
static int describe_run(hid_t g, const struct h5out *o, const struct h5out_run *run)
{
	int with_variant = o->sweep && run->variant < o->sweep->n_variants;
	char *fallback = with_variant ? NULL : name_less_seed(run->name, run->seed);
	int r = attr_str(g, "variant", with_variant ? o->sweep->variants[run->variant] : or_empty(fallback));
	free(fallback);
	if (r < 0 ||
	    attr_str(g, "placement", or_empty(run->placement)) < 0)
		return -1;
	for (int f = 0; f < SIM_FAM_COUNT_; f++)
		if (attr_str(g, policy_attr_names[f], run_policy_name(run, f)) < 0)
			return -1;
	return with_variant ? param_attrs(g, o->sweep, run->variant) : 0;
}

static int run_attrs(hid_t g, const struct h5out *o, const struct h5out_run *run)
{
	if (attr_str(g, "policy", run->policy) < 0 || attr_u64(g, "seed", run->seed) < 0 ||
	    attr_f64(g, "wall_s", run->wall_s) < 0 || describe_run(g, o, run) < 0)
		return -1;
	const struct sim_engine_counters *k = run->counters;
	if (!k)
		return 0;
	if (attr_u64(g, "events", k->events) < 0 || attr_u64(g, "decision_passes", k->decision_passes) < 0 ||
	    attr_u64(g, "proposals_rejected", k->proposals_rejected) < 0 || attr_u64(g, "starts", k->starts) < 0)
		return -1;
	return 0;
}

static void sum_row_free(struct sum_row *r)
{
	free(r->run);
	free(r->policy);
	for (int f = 0; f < SIM_FAM_COUNT_; f++)
		free(r->pol[f]);
	free(r->placement);
	free(r->fallback);
	memset(r, 0, sizeof *r);
}

/* Copies the run's names into r; -1 on no memory (r freed). */
static int sum_row_names(struct sum_row *r, const struct h5out_run *run)
{
	int ok = (r->run = dup_str(run->name)) && (r->policy = dup_str(or_empty(run->policy))) &&
		 (r->placement = dup_str(or_empty(run->placement)));
	for (int f = 0; ok && f < SIM_FAM_COUNT_; f++)
		ok = (r->pol[f] = dup_str(run_policy_name(run, f))) != NULL;
	if (!ok)
		sum_row_free(r);
	return ok ? 0 : -1;
}

static int keep_row(struct h5out *o, const struct h5out_run *run)
{
	if (o->n_rows == o->cap_rows) {
		size_t cap = o->cap_rows ? 2 * o->cap_rows : 8;
		struct sum_row *nr = realloc(o->rows, cap * sizeof *nr);
		if (!nr)
			return -SIM_ENOMEM;
		o->rows = nr;
		o->cap_rows = cap;
	}
	struct sum_row *r = &o->rows[o->n_rows];
	memset(r, 0, sizeof *r);
	if (sum_row_names(r, run) < 0)
		return -SIM_ENOMEM;
	r->seed = run->seed;
	if (!(r->fallback = name_less_seed(run->name, run->seed))) {
		sum_row_free(r);
		return -SIM_ENOMEM;
	}
	r->variant = o->sweep && run->variant < o->sweep->n_variants ? run->variant : SIZE_MAX;
	if (run->summary) {
		r->s = *run->summary;
	} else {
		for (int f = 0; f < SIM_SUM_COUNT_; f++)
			r->s.v[f] = NAN;
	}
	o->n_rows++;
	return 0;
}

/* Run groups keep their attributes in the object header (compact storage) up to
 * RUN_ATTRS_COMPACT of them, past HDF5's default of 8: H5Ocopy of densely stored
 * variable-length string attributes crashes in HDF5 1.10 (H5T__conv_vlen from
 * H5A__dense_post_copy_file_all), and sweeps merge runs with H5Ocopy. */
#define RUN_ATTRS_COMPACT 4096u

static hid_t run_group_create(hid_t runs, const char *name)
{
	hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
	hid_t g = -1;
	if (gcpl >= 0 && H5Pset_attr_phase_change(gcpl, RUN_ATTRS_COMPACT, RUN_ATTRS_COMPACT) >= 0)
		g = H5Gcreate2(runs, name, H5P_DEFAULT, gcpl, H5P_DEFAULT);
	if (gcpl >= 0)
		H5Pclose(gcpl);
	return g;
}

int h5out_write_run(struct h5out *o, const struct h5out_run *run, struct sim_diag *diag)
{
	if (!o || o->state != H5OUT_OPEN)
		return -SIM_ESTATE;
	if (!run->name || !run->name[0] || strchr(run->name, '/') || strcmp(run->name, ".") == 0) {
		sim_diag_add(diag, o->path, "run name '%s': expected a non-empty name without '/'",
			     run->name ? run->name : "");
		return -SIM_EINVAL;
	}
	if (!run->trace || !run->cluster) {
		sim_diag_add(diag, o->path, "run '%s': no trace or cluster", run->name);
		return -SIM_EINVAL;
	}
	htri_t exists = H5Lexists(o->runs, run->name, H5P_DEFAULT);
	if (exists > 0) {
		sim_diag_add(diag, o->path, "run '%s' is written twice", run->name);
		return -SIM_EINVAL;
	}
	char where[512];
	snprintf(where, sizeof where, "%s: /runs/%s", o->tmp_path, run->name);
	hid_t g = run_group_create(o->runs, run->name);
	if (g < 0)
		return h5err(diag, where, "cannot create group");
	int r = 0;
	if (run_attrs(g, o, run) < 0)
		r = h5err(diag, where, "cannot write run attributes");
	else if (write_jobs(g, run) < 0)
		r = h5err(diag, where, "cannot write jobs");
	else if (write_decisions(g, run) < 0)
		r = h5err(diag, where, "cannot write decisions");
	else if (write_queues(g, run) < 0)
		r = h5err(diag, where, "cannot write queues");
	else if (write_options(g, run) < 0)
		r = h5err(diag, where, "cannot write options");
	else if (write_timeseries(g, run) < 0)
		r = h5err(diag, where, "cannot write timeseries");
	else if (write_faults(g, run) < 0)
		r = h5err(diag, where, "cannot write faults");
	else if (run->write_extra && run->write_extra(run->extra_arg, g) < 0)
		r = h5err(diag, where, "cannot write the real-mode tables");
	if (H5Gclose(g) < 0 && r == 0)
		r = h5err(diag, where, "cannot close group");
	if (r == 0 && keep_row(o, run) < 0) {
		sim_diag_add(diag, where, "out of memory");
		r = -SIM_ENOMEM;
	}
	return r;
}

/* ---- runs copied from other files (parallel sweeps) ---- */

/* Reads the one /summary row of a part file into s: only the metric fields, matched
 * by name, so the run, policy and seed columns are not needed here. */
static int read_part_summary(hid_t part, struct sim_summary *s)
{
	hid_t mem = H5Tcreate(H5T_COMPOUND, sizeof s->v);
	if (mem < 0)
		return -1;
	int r = 0;
	for (int f = 0; f < SIM_SUM_COUNT_ && r == 0; f++)
		if (H5Tinsert(mem, sim_summary_name((enum sim_summary_field)f), (size_t)f * sizeof(double),
			      H5T_NATIVE_DOUBLE) < 0)
			r = -1;
	hid_t d = r == 0 ? H5Dopen2(part, "summary", H5P_DEFAULT) : -1;
	hid_t sp = d >= 0 ? H5Dget_space(d) : -1;
	if (sp < 0 || H5Sget_simple_extent_npoints(sp) != 1 || H5Dread(d, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, s->v) < 0)
		r = -1;
	if (sp >= 0)
		H5Sclose(sp);
	if (d >= 0)
		H5Dclose(d);
	H5Tclose(mem);
	return r;
}

/* A scalar string attribute of obj (variable-length since 1.5, fixed-length before)
 * into buf (n bytes, NUL-terminated, truncated). */
static int read_attr_str(hid_t obj, const char *name, char *buf, size_t n)
{
	hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
	if (a < 0)
		return -1;
	hid_t ft = H5Aget_type(a);
	int r = -1;
	if (ft >= 0 && H5Tis_variable_str(ft) > 0) {
		char *val = NULL;
		hid_t mt = vlen_str_type();
		if (mt >= 0 && H5Aread(a, mt, &val) >= 0) {
			snprintf(buf, n, "%s", val ? val : "");
			r = 0;
		}
		if (val)
			H5free_memory(val);
		close_type(mt);
	} else if (ft >= 0) {
		size_t size = H5Tget_size(ft);
		char *tmp = size ? calloc(1, size + 1) : NULL;
		hid_t mt = tmp ? str_type(size) : -1;
		if (mt >= 0 && H5Aread(a, mt, tmp) >= 0) {
			snprintf(buf, n, "%s", tmp);
			r = 0;
		}
		close_type(mt);
		free(tmp);
	}
	close_type(ft);
	H5Aclose(a);
	return r;
}

static int read_attr_u64(hid_t obj, const char *name, uint64_t *v)
{
	hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
	if (a < 0)
		return -1;
	int r = H5Aread(a, H5T_NATIVE_UINT64, v) < 0 ? -1 : 0;
	H5Aclose(a);
	return r;
}

/* Reserves room on disk for `extra` more bytes of the file (fallocate that keeps
 * the size; the range starts at 0 because HDF5's metadata cache leaves holes below
 * the end it has allocated), so that the writes that follow cannot run out of
 * space midway: HDF5 1.10's H5Ocopy crashes in its cleanup after a failed write. A
 * file-size limit (RLIMIT_FSIZE) is checked first, fallocate not being subject to
 * it; a file system without fallocate is checked against its free space. Returns
 * 0, or -1 with errno (ENOSPC, EFBIG, ...). */
static int reserve_space(struct h5out *o, uint64_t extra)
{
	haddr_t eoa = 0;
	int *fd = NULL;
	if (H5Fflush(o->file, H5F_SCOPE_LOCAL) < 0 || H5Fget_eoa(o->file, &eoa) < 0 ||
	    H5Fget_vfd_handle(o->file, H5P_DEFAULT, (void **)&fd) < 0 || !fd) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	uint64_t need = (uint64_t)eoa + extra;
	struct rlimit rl;
	if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && need > (uint64_t)rl.rlim_cur) {
		errno = EFBIG;
		return -1;
	}
	if (fallocate(*fd, FALLOC_FL_KEEP_SIZE, 0, (off_t)need) == 0) {
		if (need > o->reserved)
			o->reserved = need;
		return 0;
	}
	if (errno != EOPNOTSUPP && errno != ENOSYS)
		return -1;
	struct statvfs vs;
	if (fstatvfs(*fd, &vs) == 0 && (uint64_t)vs.f_bavail * vs.f_frsize < extra) {
		errno = ENOSPC;
		return -1;
	}
	return 0;
}

/* Gives back what reserve_space reserved past the end of the closed file. */
static void release_reserve(const struct h5out *o)
{
	int fd = o->reserved ? open(o->tmp_path, O_WRONLY | O_CLOEXEC) : -1;
	struct stat st;
	if (fd >= 0 && fstat(fd, &st) == 0 && (uint64_t)st.st_size < o->reserved)
		(void)fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, st.st_size,
				(off_t)(o->reserved - (uint64_t)st.st_size));
	if (fd >= 0)
		close(fd);
}

/* A copied run takes less than its part file's size (the part also holds a
 * /summary row and the root attributes); a sixteenth more and 64 KiB of headroom
 * cover HDF5's object headers and free-space slack. */
static uint64_t copy_room(const char *part_path)
{
	struct stat st;
	uint64_t size = stat(part_path, &st) == 0 ? (uint64_t)st.st_size : 0;
	return size + size / 16 + 64 * 1024;
}

/* The 1.5 names of a part's run (variant, policies, placement), read back for its
 * /summary row. */
struct part_names {
	char variant[SIM_NAME_MAX * 4];
	char pol[SIM_FAM_COUNT_][SIM_NAME_MAX * 2];
	char placement[SIM_NAME_MAX * 2];
};

/* read_attr_str, or "" when the attribute is absent (a part written before 1.5,
 * kept by --resume). */
static int read_attr_str_or_empty(hid_t obj, const char *name, char *buf, size_t n)
{
	htri_t ex = H5Aexists(obj, name);
	if (ex == 0) {
		snprintf(buf, n, "%s", "");
		return 0;
	}
	return ex < 0 ? -1 : read_attr_str(obj, name, buf, n);
}

/* Fills pn from the part's run group g and points run at it; the variant becomes its
 * index in sw (SIZE_MAX when sw does not name it). Returns 0 or -1. */
static int read_part_names(hid_t g, struct part_names *pn, struct h5out_run *run, const struct h5out_sweep *sw)
{
	if (read_attr_str_or_empty(g, "variant", pn->variant, sizeof pn->variant) < 0 ||
	    read_attr_str_or_empty(g, "placement", pn->placement, sizeof pn->placement) < 0)
		return -1;
	for (int f = 0; f < SIM_FAM_COUNT_; f++) {
		if (read_attr_str_or_empty(g, policy_attr_names[f], pn->pol[f], sizeof pn->pol[f]) < 0)
			return -1;
		run->policies[f] = pn->pol[f];
	}
	run->placement = pn->placement;
	run->variant = sweep_variant_find(sw, pn->variant);
	return 0;
}

/* H5Ocopy of a run group between files, its time series' dimension scales linked
 * again in this file (relink_scales). */
static int copy_group(hid_t src_file, const char *src, hid_t dst_grp, const char *name)
{
	hid_t ocp = H5Pcreate(H5P_OBJECT_COPY);
	int r = -1;
	if (ocp >= 0 && H5Pset_copy_object(ocp, 0) >= 0 &&
	    H5Ocopy(src_file, src, dst_grp, name, ocp, H5P_DEFAULT) >= 0)
		r = 0;
	if (ocp >= 0)
		H5Pclose(ocp);
	hid_t g = r == 0 ? H5Gopen2(dst_grp, name, H5P_DEFAULT) : -1;
	if (r == 0 && (g < 0 || relink_scales(g) < 0))
		r = -1;
	if (g >= 0 && H5Gclose(g) < 0)
		r = -1;
	return r;
}

int h5out_copy_run(struct h5out *o, const char *part_path, const char *name, struct sim_diag *diag)
{
	if (!o || o->state != H5OUT_OPEN)
		return -SIM_ESTATE;
	if (o->broken) {
		sim_diag_add(diag, o->tmp_path, "cannot copy run '%s': an earlier copy into this file failed", name);
		return -SIM_ESTATE;
	}
	errno = 0;
	if (reserve_space(o, copy_room(part_path))) {
		const char *full = sim_out_full_disk(errno);
		sim_diag_add(diag, o->tmp_path, "cannot copy run '%s' into the merged file: %s", name,
			     full ? full : strerror(errno));
		H5Eclear2(H5E_DEFAULT);
		o->broken = 1;
		return -SIM_EIO;
	}
	if (H5Lexists(o->runs, name, H5P_DEFAULT) > 0) {
		sim_diag_add(diag, o->path, "run '%s' is written twice", name);
		return -SIM_EINVAL;
	}
	hid_t part = H5Fopen(part_path, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (part < 0)
		return h5err(diag, part_path, "cannot open the part file");
	char src[512], policy[SIM_NAME_MAX * 2];
	struct part_names pn;
	snprintf(src, sizeof src, "/runs/%s", name);
	struct h5out_run run = { .name = name, .policy = policy };
	struct sim_summary sum;
	int r = 0;
	hid_t g = H5Gopen2(part, src, H5P_DEFAULT);
	if (g < 0)
		r = h5err(diag, part_path, "expected the run group in the part file");
	else if (read_attr_str(g, "policy", policy, sizeof policy) < 0 ||
		 read_attr_u64(g, "seed", &run.seed) < 0 || read_part_names(g, &pn, &run, o->sweep) < 0)
		r = h5err(diag, part_path, "cannot read the run's policy, seed and variant");
	else if (read_part_summary(part, &sum) < 0)
		r = h5err(diag, part_path, "cannot read the part's /summary row");
	else if (copy_group(part, src, o->runs, name) < 0)
		r = h5err(diag, part_path, "cannot copy the run into the merged file");
	if (g >= 0 && H5Gclose(g) < 0 && !r)
		r = h5err(diag, part_path, "cannot close the part's run group");
	if (H5Fclose(part) < 0 && !r)
		r = h5err(diag, part_path, "cannot close the part file");
	if (r) {
		o->broken = 1;
		return r;
	}
	run.summary = &sum;
	if (keep_row(o, &run) < 0) {
		sim_diag_add(diag, o->path, "out of memory");
		return -SIM_ENOMEM;
	}
	return 0;
}

/* ---- summary and commit ---- */

/* Summary metrics that count (jobs, events): stored as int64 (1.5), so a reader
 * gets integers; every other metric is a double. */
static int summary_is_count(enum sim_summary_field f)
{
	switch (f) {
	case SIM_SUM_jobs:
	case SIM_SUM_completed:
	case SIM_SUM_rejected:
	case SIM_SUM_unfinished:
	case SIM_SUM_preemptions:
	case SIM_SUM_preempted_out:
	case SIM_SUM_pending_timeouts:
	case SIM_SUM_interruptions:
	case SIM_SUM_fallback_evals:
	case SIM_SUM_failed:
	case SIM_SUM_nodes_failed:
	case SIM_SUM_nodes_repaired:
	case SIM_SUM_nodes_replaced:
	case SIM_SUM_crashes:
	case SIM_SUM_hangs:
	case SIM_SUM_stops_node_failed:
	case SIM_SUM_stops_crashed:
	case SIM_SUM_stops_hang:
	case SIM_SUM_stops_loss_spike:
	case SIM_SUM_retries_exhausted:
	case SIM_SUM_fault_restarts:
	case SIM_SUM_autoscale_nodes_requested:
	case SIM_SUM_autoscale_nodes_removed:
	case SIM_SUM_spot_notices:
	case SIM_SUM_stops_spot:
	case SIM_SUM_spot_saved:
	case SIM_SUM_max_wait_exceeded:
	case SIM_SUM_slow_episodes:
	case SIM_SUM_slow_detected:
	case SIM_SUM_stops_slow_migrated:
	case SIM_SUM_flex_requests:
	case SIM_SUM_flex_requests_failed:
	case SIM_SUM_flex_gave_up:
	case SIM_SUM_flex_cutoffs:
	case SIM_SUM_restarts_in_place:
	case SIM_SUM_restarts_full:
	case SIM_SUM_replay_ignored:
		return 1;
	default:
		return 0;
	}
}


/* Width of the longest string of the rows' field (at offset off of struct sum_row,
 * a char *), plus its NUL. */
static size_t rows_str_width(const struct h5out *o, size_t off)
{
	size_t w = 1;
	for (size_t i = 0; i < o->n_rows; i++) {
		const char *v = *(char *const *)((const char *)&o->rows[i] + off);
		if (strlen(v) + 1 > w)
			w = strlen(v) + 1;
	}
	return w;
}

/* The run's variant: its name in the sweep; without one (a writer that gave no sweep
 * description, or a run the sweep does not name), the run name less "-s<seed>", the
 * rule report uses to group runs (filled into r->fallback by keep_row). */
static const char *row_variant(const struct h5out *o, const struct sum_row *r)
{
	return o->sweep && r->variant < o->sweep->n_variants ? o->sweep->variants[r->variant] : r->fallback;
}

/* The key fields of /summary: what identifies a run (names, seed, swept values). */
#define SUM_KEYS_FIXED 9 /* run, variant, policy, 4 policy families, placement, seed */

static int summary_key_fields(struct ctype *c, const struct h5out *o)
{
	size_t var_w = 1;
	for (size_t i = 0; i < o->n_rows; i++)
		if (strlen(row_variant(o, &o->rows[i])) + 1 > var_w)
			var_w = strlen(row_variant(o, &o->rows[i])) + 1;
	if (ctype_add(c, "run", str_type(rows_str_width(o, offsetof(struct sum_row, run))), "",
		      "run group name under /runs") < 0 ||
	    ctype_add(c, "variant", str_type(var_w), "", "the run's sweep variant (1.5)") < 0 ||
	    ctype_add(c, "policy", str_type(rows_str_width(o, offsetof(struct sum_row, policy))), "",
		      "order policy") < 0)
		return -1;
	for (int f = 0; f < SIM_FAM_COUNT_; f++)
		if (ctype_add(c, policy_attr_names[f],
			      str_type(rows_str_width(o, offsetof(struct sum_row, pol) + (size_t)f * sizeof(char *))), "",
			      "policy of the family (1.5)") < 0)
			return -1;
	if (ctype_add(c, "placement", str_type(rows_str_width(o, offsetof(struct sum_row, placement))), "",
		      "placement (1.5)") < 0 ||
	    ctype_add(c, "seed", copy_type(H5T_NATIVE_UINT64), "1", "random seed of the run") < 0)
		return -1;
	for (size_t k = 0; o->sweep && k < o->sweep->n_params; k++) {
		const struct h5out_param *p = &o->sweep->params[k];
		size_t w = 1;
		for (size_t i = 0; p->type == H5OUT_PARAM_STRING && i < p->n_values; i++)
			if (strlen(p->str[i]) + 1 > w)
				w = strlen(p->str[i]) + 1;
		hid_t t = p->type == H5OUT_PARAM_STRING ? str_type(w) :
			  copy_type(p->type == H5OUT_PARAM_INT ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE);
		if (ctype_add(c, p->name, t, "", "swept value (1.5): the config's sweep path of this name") < 0)
			return -1;
	}
	return 0;
}

/* Row i's key fields (fields 0 .. n_keys - 1 of c). */
static void fill_summary_keys(char *row, const struct ctype *c, const struct h5out *o, const struct sum_row *r)
{
	put_str(row, c, 0, r->run);
	put_str(row, c, 1, row_variant(o, r));
	put_str(row, c, 2, r->policy);
	for (int f = 0; f < SIM_FAM_COUNT_; f++)
		put_str(row, c, 3 + (size_t)f, r->pol[f]);
	put_str(row, c, 3 + SIM_FAM_COUNT_, r->placement);
	put(row, c, 4 + SIM_FAM_COUNT_, &r->seed, sizeof r->seed);
	for (size_t k = 0; o->sweep && k < o->sweep->n_params; k++) {
		const struct h5out_param *p = &o->sweep->params[k];
		size_t f = SUM_KEYS_FIXED + k;
		if (r->variant >= o->sweep->n_variants) {
			/* Not a variant of the sweep: no value (NaN, 0, ""). */
			double nan = NAN;
			int64_t zero = 0;
			if (p->type == H5OUT_PARAM_STRING)
				put_str(row, c, f, "");
			else if (p->type == H5OUT_PARAM_INT)
				put(row, c, f, &zero, sizeof zero);
			else
				put_f64(row, c, f, nan);
			continue;
		}
		size_t i = sweep_value(o->sweep, r->variant, k);
		if (p->type == H5OUT_PARAM_STRING) {
			put_str(row, c, f, p->str[i]);
		} else if (p->type == H5OUT_PARAM_INT) {
			int64_t x = (int64_t)p->num[i];
			put(row, c, f, &x, sizeof x);
		} else {
			put_f64(row, c, f, p->num[i]);
		}
	}
}

static int write_summary(struct h5out *o)
{
	struct ctype c = { .mem = -1 };
	int r = -1;
	const char **keys = NULL;
	if (summary_key_fields(&c, o) < 0)
		goto out_type;
	size_t n_keys = c.n;
	for (int f = 0; f < SIM_SUM_COUNT_; f++) {
		enum sim_summary_field sf = (enum sim_summary_field)f;
		if (ctype_add(&c, sim_summary_name(sf), copy_type(summary_is_count(sf) ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE),
			      sim_summary_unit(sf), sim_summary_description(sf)) < 0)
			goto out_type;
	}
	if (ctype_build(&c) < 0)
		goto out_type;
	char *buf = calloc(o->n_rows ? o->n_rows : 1, c.size);
	keys = malloc(n_keys * sizeof *keys);
	if (!buf || !keys)
		goto out_buf;
	for (size_t k = 0; k < n_keys; k++)
		keys[k] = c.f[k].name;
	for (size_t i = 0; i < o->n_rows; i++) {
		char *row = buf + i * c.size;
		fill_summary_keys(row, &c, o, &o->rows[i]);
		for (int f = 0; f < SIM_SUM_COUNT_; f++) {
			double v = o->rows[i].s.v[f];
			int64_t n = count_value(v);
			if (summary_is_count((enum sim_summary_field)f))
				put(row, &c, n_keys + (size_t)f, &n, sizeof n);
			else
				put_f64(row, &c, n_keys + (size_t)f, v);
		}
	}
	hid_t d = ctype_dataset(&c, o->file, "summary", o->n_rows);
	if (d < 0)
		goto out_buf;
	if (write_rows(d, c.mem, 0, o->n_rows, buf) == 0 &&
	    ctype_attrs(&c, d, "one row a run: the run's summary metrics (analysis/SCHEMA.md)") == 0 &&
	    attr_str_array(d, "key_fields", keys, n_keys) == 0)
		r = 0;
	if (H5Dclose(d) < 0)
		r = -1;
out_buf:
	free(buf);
	free(keys);
out_type:
	ctype_fini(&c);
	return r;
}

/* The root attribute "seeds": every distinct seed of the runs written, in the
 * order first seen. The runner writes runs in config order (variants outer or
 * inner, seeds in the config's order either way), so this is the config's seed
 * list; the per-run "seed" attribute and /summary's seed column say which run had
 * which. O(runs x distinct seeds): a few thousand runs of tens of seeds at most. */
static int write_seeds(struct h5out *o)
{
	uint64_t *seeds = malloc((o->n_rows ? o->n_rows : 1) * sizeof *seeds);
	if (!seeds)
		return -1;
	size_t n = 0;
	for (size_t i = 0; i < o->n_rows; i++) {
		size_t k = 0;
		while (k < n && seeds[k] != o->rows[i].seed)
			k++;
		if (k == n)
			seeds[n++] = o->rows[i].seed;
	}
	int r = attr_u64_array(o->file, "seeds", seeds, n);
	free(seeds);
	return r;
}

/* Set once a file's close failed: the library then holds it half-closed (see
 * h5out_library_begin). Only ever set to 1, so a worker thread's write is harmless. */
static volatile int file_left_open;

void h5out_library_begin(void) { H5dont_atexit(); }

void h5out_library_end(void)
{
	if (!file_left_open)
		H5close();
}

/* Closes the HDF5 handles; returns -1 if a close failed. */
static int close_file(struct h5out *o)
{
	int r = 0;
	if (o->runs >= 0 && H5Gclose(o->runs) < 0)
		r = -1;
	o->runs = -1;
	if (o->file >= 0 && H5Fclose(o->file) < 0) {
		r = -1;
		file_left_open = 1; /* never closed again: that crashes the library */
	}
	o->file = -1;
	return r;
}

/* Closes and removes the temporary of an open writer (the writer itself stays). */
static void h5out_abort_file(struct h5out *o)
{
	if (o->state != H5OUT_OPEN)
		return;
	close_file(o);
	H5Eclear2(H5E_DEFAULT);
	unlink(o->tmp_path);
	o->state = H5OUT_DONE;
}

int h5out_commit(struct h5out *o, struct sim_diag *diag)
{
	if (!o || o->state != H5OUT_OPEN)
		return -SIM_ESTATE;
	if (o->broken) {
		h5out_abort_file(o);
		sim_diag_add(diag, o->tmp_path, "cannot commit: a copy into this file failed");
		return -SIM_ESTATE;
	}
	o->state = H5OUT_DONE;
	/* /summary: a row a run of fixed-length strings and doubles, plus headers. */
	errno = 0;
	if (o->reserved && reserve_space(o, (uint64_t)o->n_rows * (1024 + 8 * SIM_SUM_COUNT_) + 256 * 1024)) {
		const char *full = sim_out_full_disk(errno);
		sim_diag_add(diag, o->tmp_path, "cannot write /summary: %s", full ? full : strerror(errno));
		close_file(o);
		unlink(o->tmp_path);
		return -SIM_EIO;
	}
	if (write_summary(o) < 0) {
		int r = h5err(diag, o->tmp_path, "cannot write /summary");
		close_file(o);
		unlink(o->tmp_path);
		return r;
	}
	if (write_seeds(o) < 0) {
		int r = h5err(diag, o->tmp_path, "cannot write the root attribute seeds");
		close_file(o);
		unlink(o->tmp_path);
		return r;
	}
	if (close_file(o) < 0) {
		int r = h5err(diag, o->tmp_path, "cannot close the file");
		unlink(o->tmp_path);
		return r;
	}
	release_reserve(o);
	if (rename(o->tmp_path, o->path) != 0) {
		sim_diag_add(diag, o->path, "cannot rename %s: %s", o->tmp_path, strerror(errno));
		unlink(o->tmp_path);
		return -SIM_EIO;
	}
	return 0;
}

static void free_out(struct h5out *o)
{
	for (size_t i = 0; i < o->n_rows; i++)
		sum_row_free(&o->rows[i]);
	free(o->rows);
	free(o->path);
	free(o->tmp_path);
	free(o);
}

void h5out_abort(struct h5out *o)
{
	if (!o)
		return;
	h5out_abort_file(o);
	free_out(o);
}

void h5out_destroy(struct h5out *o)
{
	h5out_abort(o);
}
