/* experiments/cfgimport.c: see cfgimport.h. The parts every format shares: reading
 * the input files, located messages, gathered warnings, Kubernetes quantities, and
 * writing the result safely. */
#include "cfgimport.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../sim/jsonmsg.h"
#include "../sim/outpath.h"
#include "../sim/yamltree.h"

#define QTY_MAX_UNITS 1e9L /* as the config: the largest quantity it accepts, in units */

/* ---- messages ---------------------------------------------------------------- */

void cfgimp_where(const struct cfgimp_file *f, const cJSON *node, char *buf, size_t n)
{
	const struct sim_srcpos *pos = f->map ? sim_srcmap_find_node(f->map, node) : NULL;
	if (pos)
		snprintf(buf, n, "%s:%u:%u", f->path, pos->line, pos->col);
	else
		snprintf(buf, n, "%s", f->path);
}

int cfgimp_error(struct cfgimp *im, const struct cfgimp_file *f, const cJSON *node, const char *fmt, ...)
{
	char where[1024], msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	cfgimp_where(f, node, where, sizeof where);
	return sim_diag_add(im->diag, where, "%s", msg);
}

void cfgimp_warn(struct cfgimp *im, const struct cfgimp_file *f, const cJSON *node, const char *fmt, ...)
{
	char msg[1024], where[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	for (size_t i = 0; i < im->n_warnings; i++)
		if (strcmp(im->warnings[i].what, msg) == 0) {
			im->warnings[i].count++;
			return; /* its place is that of the first: looking it up again costs a scan */
		}
	void *grown = sim_grow(im->warnings, &im->cap_warnings, im->n_warnings, sizeof *im->warnings, 8);
	if (!grown) {
		im->nomem = 1;
		return;
	}
	im->warnings = grown;
	cfgimp_where(f, node, where, sizeof where);
	struct cfgimp_warning *w = &im->warnings[im->n_warnings];
	w->what = strdup(msg);
	w->where = strdup(where);
	w->count = 1;
	if (!w->what || !w->where) {
		free(w->what);
		free(w->where);
		im->nomem = 1;
		return;
	}
	im->n_warnings++;
}

void cfgimp_note(struct cfgimp *im, const char *fmt, ...)
{
	if (!im->warn)
		return;
	va_list ap;
	va_start(ap, fmt);
	fputs("note: ", im->warn);
	vfprintf(im->warn, fmt, ap);
	fputc('\n', im->warn);
	va_end(ap);
}

static void flush_warnings(struct cfgimp *im)
{
	for (size_t i = 0; i < im->n_warnings; i++) {
		struct cfgimp_warning *w = &im->warnings[i];
		if (im->warn && w->count > 1)
			fprintf(im->warn, "%s: warning: %s (and %zu more like it)\n", w->where, w->what, w->count - 1);
		else if (im->warn)
			fprintf(im->warn, "%s: warning: %s\n", w->where, w->what);
		free(w->what);
		free(w->where);
	}
	free(im->warnings);
	im->warnings = NULL;
	im->n_warnings = im->cap_warnings = 0;
}

int cfgimp_check_keys(struct cfgimp *im, const struct cfgimp_file *f, const cJSON *obj, const char *what,
		      const char *const *known)
{
	int bad = 0;
	for (const cJSON *c = obj->child; c; c = c->next) {
		int i = 0;
		while (known[i] && strcmp(known[i], c->string ? c->string : "") != 0)
			i++;
		if (known[i])
			continue;
		char list[512];
		size_t o = 0;
		list[0] = 0;
		for (i = 0; known[i] && o < sizeof list; i++)
			o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", i ? ", " : "", known[i]);
		cfgimp_error(im, f, c, "%s: unknown key '%s'; expected one of %s", what, c->string, list);
		bad++;
	}
	return bad;
}

/* ---- a name index ---------------------------------------------------------------- */

static size_t slot_of(const struct cfgimp_index *x, const char *key)
{
	size_t i = (size_t)sim_fnv1a64(key, strlen(key)) & (x->cap - 1);
	while (x->key[i] && strcmp(x->key[i], key) != 0)
		i = (i + 1) & (x->cap - 1);
	return i;
}

void *cfgimp_index_get(const struct cfgimp_index *x, const char *key)
{
	if (!x->cap)
		return NULL;
	size_t i = slot_of(x, key);
	return x->key[i] ? x->val[i] : NULL;
}

/* Twice the slots (at least 64), every entry placed again. */
static int index_grow(struct cfgimp_index *x)
{
	struct cfgimp_index bigger = { .cap = x->cap ? 2 * x->cap : 64 };
	bigger.key = calloc(bigger.cap, sizeof *bigger.key);
	bigger.val = calloc(bigger.cap, sizeof *bigger.val);
	if (!bigger.key || !bigger.val) {
		free(bigger.key);
		free(bigger.val);
		return -SIM_ENOMEM;
	}
	for (size_t i = 0; i < x->cap; i++)
		if (x->key[i]) {
			size_t j = slot_of(&bigger, x->key[i]);
			bigger.key[j] = x->key[i];
			bigger.val[j] = x->val[i];
		}
	bigger.n = x->n;
	cfgimp_index_fini(x);
	*x = bigger;
	return 0;
}

int cfgimp_index_put(struct cfgimp_index *x, const char *key, void *val)
{
	if (2 * (x->n + 1) > x->cap && index_grow(x) < 0) /* at most half full: probes stay short */
		return -SIM_ENOMEM;
	size_t i = slot_of(x, key);
	if (!x->key[i])
		x->n++;
	x->key[i] = key;
	x->val[i] = val;
	return 0;
}

void cfgimp_index_fini(struct cfgimp_index *x)
{
	free(x->key);
	free(x->val);
	memset(x, 0, sizeof *x);
}

/* ---- quantities ---------------------------------------------------------------- */

/* The factor of a quantity's suffix (Kubernetes: binary Ki..Ei, decimal n..E, or an
 * exponent e/E followed by an integer); 0 when it is no suffix. */
static long double suffix_factor(const char *s)
{
	static const struct {
		const char *sfx;
		long double f;
	} table[] = {
		{ "", 1 },        { "n", 1e-9L },     { "u", 1e-6L },     { "m", 1e-3L },     { "k", 1e3L },
		{ "M", 1e6L },    { "G", 1e9L },      { "T", 1e12L },     { "P", 1e15L },     { "E", 1e18L },
		{ "Ki", 1024.0L }, { "Mi", 1048576.0L }, { "Gi", 1073741824.0L }, { "Ti", 1099511627776.0L },
		{ "Pi", 1125899906842624.0L }, { "Ei", 1152921504606846976.0L },
	};
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		if (strcmp(s, table[i].sfx) == 0)
			return table[i].f;
	if (*s == 'e' || *s == 'E') {
		const char *p = s + 1;
		if (*p == '+' || *p == '-')
			p++;
		if (!*p || strspn(p, "0123456789") != strlen(p) || strlen(p) > 3)
			return 0;
		return powl(10.0L, strtol(s + 1, NULL, 10));
	}
	return 0;
}

/* A quantity string's value in base units (bytes, cores, count), or -1. */
static long double quantity_units(const char *s)
{
	const char *p = s;
	if (*p == '+')
		p++;
	if (*p == '-')
		return -1; /* no quota is negative */
	size_t whole = strspn(p, "0123456789"), frac = 0;
	const char *q = p + whole;
	if (*q == '.') {
		frac = strspn(q + 1, "0123456789");
		q += 1 + frac;
	}
	if (whole + frac == 0 || frac > 9)
		return -1;
	long double f = suffix_factor(q);
	if (f == 0)
		return -1;
	char mantissa[64]; /* the digits alone: strtold would also read an exponent suffix */
	size_t n = (size_t)(q - p);
	if (n >= sizeof mantissa)
		return -1;
	memcpy(mantissa, p, n);
	mantissa[n] = 0;
	return strtold(mantissa, NULL) * f;
}

int cfgimp_quantity(const cJSON *v, int to_gib, sim_qty_t *milli)
{
	long double units;
	if (cJSON_IsNumber(v))
		units = v->valuedouble;
	else if (cJSON_IsString(v))
		units = quantity_units(v->valuestring);
	else
		return -1;
	if (to_gib)
		units /= 1073741824.0L;
	if (!(units >= 0) || units > QTY_MAX_UNITS)
		return -1;
	long double m = units * 1000.0L, r = roundl(m);
	*milli = (sim_qty_t)r;
	return fabsl(m - r) > 1e-6L ? 1 : 0;
}

cJSON *cfgimp_qty_json(sim_qty_t milli)
{
	/* milli / 1000 printed shortest reads back as the same milli-units */
	return cJSON_CreateNumber((double)milli / 1000.0);
}

/* ---- files ------------------------------------------------------------------- */

static void file_fini(struct cfgimp_file *f)
{
	for (size_t i = 0; i < f->n_docs; i++)
		cJSON_Delete(f->docs[i]);
	free(f->docs);
	sim_srcmap_fini(f->map);
	free(f->map);
	memset(f, 0, sizeof *f);
}

struct dup_ctx {
	const struct cfgimp_file *f;
	uint32_t doc;
	struct sim_diag *diag;
	int found;
};

static void report_dup(void *arg, const char *path)
{
	struct dup_ctx *c = arg;
	const struct sim_srcpos *pos = sim_srcmap_find_path(c->f->map, c->doc, path);
	char where[1024];
	if (pos)
		snprintf(where, sizeof where, "%s:%u:%u", c->f->path, pos->line, pos->col);
	else
		snprintf(where, sizeof where, "%s", c->f->path);
	sim_diag_add(c->diag, where, "%s: duplicate key; expected each key once per mapping", path);
	c->found++;
}

/* A key written twice would leave one of its values unread (the readers see the
 * first): an error at the second, in every document. */
static int check_duplicates(const struct cfgimp_file *f, struct sim_diag *diag)
{
	struct dup_ctx c = { .f = f, .diag = diag };
	for (c.doc = 0; c.doc < f->n_docs; c.doc++)
		sim_json_duplicate_keys(f->docs[c.doc], "$", report_dup, &c);
	return c.found ? -SIM_EPARSE : 0;
}

static int file_read(const char *path, struct cfgimp_file *f, struct sim_diag *diag)
{
	char *text;
	size_t len;
	memset(f, 0, sizeof *f);
	f->path = path;
	int rc = sim_read_file(path, &text, &len, diag);
	if (rc)
		return rc;
	f->map = calloc(1, sizeof *f->map);
	rc = f->map ? sim_yaml_parse(path, text, len, &f->docs, &f->n_docs, f->map, diag) : -SIM_ENOMEM;
	free(text);
	if (!rc)
		rc = check_duplicates(f, diag);
	if (rc)
		file_fini(f);
	return rc;
}

int cfgimp_import(const char *format, const char *const *paths, size_t n, const struct cfgimp_cluster *cluster,
		  cJSON **out, FILE *warn, struct sim_diag *diag)
{
	int (*reader)(struct cfgimp *, struct cfgimp_file *, size_t, cJSON **) = NULL;
	*out = NULL;
	if (strcmp(format, "kueue") == 0)
		reader = cfgimp_kueue;
	else if (strcmp(format, "aws-batch") == 0)
		reader = cfgimp_aws;
	else if (strcmp(format, "hyperpod") == 0)
		reader = cfgimp_hyperpod;
	else
		return -SIM_EINVAL;
	struct cfgimp_file *files = calloc(n ? n : 1, sizeof *files);
	if (!files)
		return -SIM_ENOMEM;
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		int r = file_read(paths[i], &files[i], diag);
		if (r && (!rc || r == -SIM_ENOMEM))
			rc = r; /* read every file: all their syntax errors at once */
	}
	struct cfgimp im = { .diag = diag, .warn = warn, .cluster = cluster };
	if (!rc)
		rc = reader(&im, files, n, out);
	if (!rc && im.nomem)
		rc = -SIM_ENOMEM;
	if (rc) {
		cJSON_Delete(*out);
		*out = NULL;
	}
	flush_warnings(&im); /* also on failure: what was not modelled is worth knowing */
	for (size_t i = 0; i < n; i++)
		file_fini(&files[i]);
	free(files);
	return rc;
}

/* ---- output --------------------------------------------------------------------- */

static int print_tree(FILE *f, const cJSON *tree, int yaml)
{
	if (yaml)
		return sim_yaml_write(f, tree);
	char *json = cJSON_Print(tree);
	if (!json)
		return -SIM_ENOMEM;
	int ok = fputs(json, f) >= 0 && fputc('\n', f) != EOF;
	cJSON_free(json);
	return ok ? 0 : -SIM_EIO;
}

int cfgimp_write(const char *path, const cJSON *tree, struct sim_diag *diag)
{
	if (!path || strcmp(path, "-") == 0) {
		int rc = print_tree(stdout, tree, 0);
		if (!rc && fflush(stdout) != 0)
			rc = -SIM_EIO;
		if (rc)
			sim_diag_add(diag, "-", "cannot write the quota section: %s", sim_out_write_error(errno));
		return rc;
	}
	char *tmp = NULL;
	FILE *f = sim_out_tmp_fopen(path, &tmp, diag);
	if (!f)
		return -SIM_EIO;
	int rc = print_tree(f, tree, sim_yaml_is_path(path));
	int err = sim_out_close(f);
	if (rc == -SIM_ENOMEM) {
		sim_diag_add(diag, path, "cannot write the quota section: out of memory");
	} else if (rc || err) {
		rc = -SIM_EIO;
		sim_diag_add(diag, path, "cannot write the quota section: %s", sim_out_write_error(err ? err : EIO));
	} else if (rename(tmp, path) != 0) {
		rc = -SIM_EIO;
		sim_diag_add(diag, path, "cannot rename %s: %s", tmp, strerror(errno));
	}
	if (rc)
		unlink(tmp); /* never a half-written output: the old file, if any, stays */
	free(tmp);
	return rc;
}
