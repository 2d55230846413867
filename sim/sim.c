/* sim/sim.c: error strings, diagnostics, resource names, decimal parsing. */
#include "sim.h"

#include <stdlib.h>
#include <string.h>

const char *sim_strerror(int err)
{
	static const char *const msgs[] = {
		[0] = "success",
#define SIM_ERR_MSG(name, msg) [SIM_E##name] = msg,
		SIM_ERRNO_MAP(SIM_ERR_MSG)
#undef SIM_ERR_MSG
	};
	int e = err < 0 ? -err : err;
	if (e >= SIM_ERR_COUNT_ || !msgs[e])
		return "unknown error";
	return msgs[e];
}

void sim_resources_init(struct sim_resources *res)
{
	memset(res, 0, sizeof *res);
	res->n = 1;
	strcpy(res->names[SIM_RES_GPU], "gpu");
}

int sim_resources_find(const struct sim_resources *res, const char *name)
{
	for (int i = 0; i < res->n; i++)
		if (strcmp(res->names[i], name) == 0)
			return i;
	return -1;
}

int sim_resources_add(struct sim_resources *res, const char *name)
{
	int i = sim_resources_find(res, name);
	if (i >= 0)
		return i;
	if (res->n >= SIM_MAX_RES || strlen(name) >= SIM_NAME_MAX)
		return -SIM_ERANGE;
	strcpy(res->names[res->n], name);
	return res->n++;
}

void sim_diag_init(struct sim_diag *d, size_t limit)
{
	memset(d, 0, sizeof *d);
	d->limit = limit ? limit : 20;
}

void sim_diag_fini(struct sim_diag *d)
{
	if (!d || !d->lines)
		return;
	size_t kept = d->count < d->limit ? d->count : d->limit;
	for (size_t i = 0; i < kept; i++)
		free(d->lines[i]);
	free(d->lines);
	d->lines = NULL;
	d->count = 0;
}

int sim_diag_vadd(struct sim_diag *d, const char *where, const char *fmt, va_list ap)
{
	if (!d)
		return -SIM_EPARSE;
	size_t idx = d->count++;
	if (idx >= d->limit)
		return -SIM_EPARSE;
	if (!d->lines) {
		d->lines = calloc(d->limit, sizeof *d->lines);
		if (!d->lines) {
			d->count--;
			return -SIM_EPARSE;
		}
	}
	char msg[4096]; /* the longest: every summary metric named (plan --target) */
	vsnprintf(msg, sizeof msg, fmt, ap);
	size_t n = (where && *where ? strlen(where) + 2 : 0) + strlen(msg) + 1;
	char *line = malloc(n);
	if (!line) {
		d->count--;
		return -SIM_EPARSE;
	}
	if (where && *where)
		snprintf(line, n, "%s: %s", where, msg);
	else
		snprintf(line, n, "%s", msg);
	d->lines[idx] = line;
	if (d->echo)
		fprintf(d->echo, "%s\n", line);
	return -SIM_EPARSE;
}

int sim_diag_add(struct sim_diag *d, const char *where, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = sim_diag_vadd(d, where, fmt, ap);
	va_end(ap);
	return r;
}

void sim_diag_print(const struct sim_diag *d, FILE *f)
{
	size_t kept = d->count < d->limit ? d->count : d->limit;
	for (size_t i = 0; i < kept; i++)
		if (d->lines && d->lines[i])
			fprintf(f, "%s\n", d->lines[i]);
	if (d->count > kept)
		fprintf(f, "... and %zu more errors\n", d->count - kept);
}

const char *sim_diag_last(const struct sim_diag *d)
{
	size_t kept = d->count < d->limit ? d->count : d->limit;
	if (!kept || !d->lines || !d->lines[kept - 1])
		return "";
	return d->lines[kept - 1];
}

int sim_diag_contains(const struct sim_diag *d, const char *needle)
{
	size_t kept = d->count < d->limit ? d->count : d->limit;
	for (size_t i = 0; i < kept; i++)
		if (d->lines && d->lines[i] && strstr(d->lines[i], needle))
			return 1;
	return 0;
}

/* v = v * 10 + d, or -SIM_ERANGE when that would pass INT64_MAX (checked before the
 * multiplication: signed overflow is undefined). */
static int push_digit(int64_t *v, int d)
{
	if (*v > (INT64_MAX - d) / 10)
		return -SIM_ERANGE;
	*v = *v * 10 + d;
	return 0;
}

/* Fixed-point decimal: [0-9]+(.[0-9]{1,frac_max})?, scaled by 10^frac_max. */
static int parse_fixed(const char *s, size_t len, int frac_max, int64_t *out)
{
	size_t i = 0;
	int64_t v = 0;
	int digits = 0;

	if (len == 0)
		return -SIM_EPARSE;
	if (s[0] == '+')
		i++;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++)
		if (push_digit(&v, s[i] - '0'))
			return -SIM_ERANGE;
	int frac = 0;
	if (i < len && s[i] == '.') {
		i++;
		for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, frac++) {
			if (frac >= frac_max) {
				if (s[i] != '0')
					return -SIM_EPARSE; /* finer than allowed */
				continue;           /* trailing zeros are harmless */
			}
			if (push_digit(&v, s[i] - '0'))
				return -SIM_ERANGE;
			digits++;
		}
	}
	if (i != len || digits == 0)
		return -SIM_EPARSE;
	for (int k = frac < frac_max ? frac : frac_max; k < frac_max; k++)
		if (push_digit(&v, 0))
			return -SIM_ERANGE;
	*out = v;
	return 0;
}

int sim_qty_parse(const char *s, size_t len, sim_qty_t *out)
{
	return parse_fixed(s, len, 3, out);
}

int sim_time_parse_s(const char *s, size_t len, sim_time_t *out)
{
	return parse_fixed(s, len, 9, out);
}

void sim_qty_format(sim_qty_t q, char *buf, size_t n)
{
	const char *sign = q < 0 ? "-" : "";
	uint64_t a = q < 0 ? (uint64_t)0 - (uint64_t)q : (uint64_t)q;
	uint64_t ip = a / 1000, fp = a % 1000;
	if (fp == 0) {
		snprintf(buf, n, "%s%llu", sign, (unsigned long long)ip);
		return;
	}
	char frac[8];
	snprintf(frac, sizeof frac, "%03llu", (unsigned long long)fp);
	for (int k = 2; k > 0 && frac[k] == '0'; k--)
		frac[k] = 0;
	snprintf(buf, n, "%s%llu.%s", sign, (unsigned long long)ip, frac);
}

void *sim_grow_slow(void *v, size_t *cap, size_t n, size_t elem, size_t first)
{
	if (n < *cap)
		return v;
	size_t ncap = *cap ? *cap * 2 : first;
	void *nv = realloc(v, ncap * elem);
	if (nv)
		*cap = ncap;
	return nv;
}

char *sim_path_beside(const char *file, const char *rel)
{
	const char *slash = strrchr(file, '/');
	size_t dlen = rel[0] == '/' || !slash ? 0 : (size_t)(slash - file) + 1; /* keeps the slash */
	size_t rlen = strlen(rel);
	char *p = malloc(dlen + rlen + 1);
	if (!p)
		return NULL;
	memcpy(p, file, dlen);
	memcpy(p + dlen, rel, rlen + 1);
	return p;
}
