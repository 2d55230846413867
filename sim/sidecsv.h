/* sim/sidecsv.h: a small reader for the side CSV files of a config (capacity
 * events, quota and priority events, queue lists): a header row, '#' comments and
 * blank lines skipped, comma-separated fields, a field in double quotes may hold
 * commas and "" for a quote (RFC 4180, within one line). Lines come from the shared
 * line reader (sim/lines.h): plain or gzip, a UTF-8 BOM skipped, any length up to
 * SIM_LINES_MAX, and a NUL byte, an overlong line or a cut gzip stream is an error
 * located in the file. Traces have their own full reader (traces/native.c). */
#ifndef SIM_SIDECSV_H
#define SIM_SIDECSV_H

#include "lines.h"

struct sim_csv {
	struct sim_lines in; /* owned */
	char **fields;	     /* owned array; the strings point into in.buf, valid until the
			      * next call */
	int n;		     /* fields of the current row */
	size_t cap;	     /* room in fields */
	unsigned lineno;     /* 1-based line of the current row */
};

/* Opens PATH for reading; read errors go to diag. Returns 0, or -SIM_ENOENT /
 * -SIM_EIO / -SIM_ENOMEM with errno kept and no message: the caller names the file
 * with the config key that gave it. */
int sim_csv_open(struct sim_csv *c, const char *path, struct sim_diag *diag);
/* Reads the next row: 1, 0 at the end of the file, or < 0 with a located message in
 * the diag given to sim_csv_open (a read error, or a quoted field not closed). */
int sim_csv_next(struct sim_csv *c);
/* Index of the field equal to name in the current row (the header), or -1. */
int sim_csv_col(const struct sim_csv *c, const char *name);
void sim_csv_close(struct sim_csv *c);

#endif
