/* sim/sidecsv.c: see sidecsv.h. */
#include "sidecsv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int sim_csv_open(struct sim_csv *c, const char *path, struct sim_diag *diag)
{
	memset(c, 0, sizeof *c);
	int err = sim_lines_open(&c->in, path, NULL); /* the caller reports an open error */
	c->in.diag = diag;
	return err;
}

void sim_csv_close(struct sim_csv *c)
{
	sim_lines_close(&c->in);
	free(c->fields);
	c->fields = NULL;
	c->n = 0;
	c->cap = 0;
}

/* "PATH:LINE: column K: MSG" for the current row; returns -SIM_EPARSE. */
static int field_error(const struct sim_csv *c, const char *msg)
{
	char where[4200];
	snprintf(where, sizeof where, "%s:%u: column %d", c->in.path, c->lineno, c->n);
	return sim_diag_add(c->in.diag, where, "%s", msg);
}

/* A quoted field at p, unquoted in place ("" -> "): *sep is set to the comma after
 * it, or NULL at the end of the line. Returns 0 or -SIM_EPARSE. */
static int unquote(const struct sim_csv *c, char *p, char **sep)
{
	char *r = p + 1, *w = p;
	for (;;) {
		if (*r == '\0')
			return field_error(c, "expected a closing quote before the end of the line");
		if (*r == '"' && r[1] == '"') {
			*w++ = '"';
			r += 2;
		} else if (*r == '"') {
			r++;
			break;
		} else {
			*w++ = *r++;
		}
	}
	if (*r != ',' && *r != '\0')
		return field_error(c, "expected a comma or the end of the line after the closing quote");
	*sep = *r == ',' ? r : NULL;
	*w = '\0';
	return 0;
}

/* Splits the line at p into c->fields, in place. Returns 0 or < 0 (reported). */
static int split_fields(struct sim_csv *c, char *p)
{
	c->n = 0;
	for (;;) {
		char **nf = sim_grow(c->fields, &c->cap, (size_t)c->n, sizeof *c->fields, 16);
		if (!nf)
			return -SIM_ENOMEM;
		c->fields = nf;
		c->fields[c->n++] = p;
		char *sep = NULL;
		if (*p == '"') {
			int err = unquote(c, p, &sep);
			if (err < 0)
				return err;
		} else {
			sep = strchr(p, ',');
		}
		if (!sep)
			return 0;
		*sep = '\0';
		p = sep + 1;
	}
}

int sim_csv_next(struct sim_csv *c)
{
	int got;
	while ((got = sim_lines_next(&c->in)) > 0) {
		char *p = c->in.buf;
		c->lineno = (unsigned)c->in.line;
		if (c->in.line == 1 && strncmp(p, "\xEF\xBB\xBF", 3) == 0)
			p += 3; /* a UTF-8 byte order mark (strncmp stops at the end of the line) */
		if (!p[0] || p[0] == '#')
			continue;
		int err = split_fields(c, p);
		return err < 0 ? err : 1;
	}
	return got;
}

int sim_csv_col(const struct sim_csv *c, const char *name)
{
	for (int i = 0; i < c->n; i++)
		if (strcmp(c->fields[i], name) == 0)
			return i;
	return -1;
}
