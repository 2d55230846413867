/* sim/sidecsv.h: a small reader for the side CSV files of a config (capacity
 * events, quota and priority events, queue lists): a header row, '#' comments and
 * blank lines skipped, comma-separated fields without quoting, lines up to 4095
 * bytes and 16 fields. Traces have their own full reader (traces/native.c). */
#ifndef SIM_SIDECSV_H
#define SIM_SIDECSV_H

#include <stdio.h>

struct sim_csv {
	FILE *f;          /* borrowed */
	char line[4096];
	char *fields[16]; /* point into line, valid until the next call */
	int n;
	unsigned lineno;  /* 1-based line of the current row */
};

/* Reads the next row; 0 at the end of the file. */
int sim_csv_next(struct sim_csv *c);
/* Index of the field equal to name in the current row (the header), or -1. */
int sim_csv_col(const struct sim_csv *c, const char *name);

#endif
