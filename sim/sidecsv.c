/* sim/sidecsv.c: see sidecsv.h. */
#include "sidecsv.h"

#include <string.h>

int sim_csv_next(struct sim_csv *c)
{
	while (fgets(c->line, sizeof c->line, c->f)) {
		c->lineno++;
		size_t len = strcspn(c->line, "\r\n");
		c->line[len] = 0;
		if (!c->line[0] || c->line[0] == '#')
			continue;
		c->n = 0;
		for (char *p = c->line; c->n < 16;) {
			c->fields[c->n++] = p;
			char *comma = strchr(p, ',');
			if (!comma)
				break;
			*comma = 0;
			p = comma + 1;
		}
		return 1;
	}
	return 0;
}

int sim_csv_col(const struct sim_csv *c, const char *name)
{
	for (int i = 0; i < c->n; i++)
		if (strcmp(c->fields[i], name) == 0)
			return i;
	return -1;
}
