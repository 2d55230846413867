/* sim/lines.h: the one line reader of every text input (traces, their importers,
 * the side CSVs of a config): a plain or gzip file (zlib reads both), one line at a
 * time, that never loses data silently.
 *
 * Every way an input can end early or hold what is not text is an error located
 * in the file, added to the reader's diag and returned (nothing is skipped):
 *   FILE:LINE: NUL byte in line at byte B ...          -SIM_EPARSE
 *   FILE:LINE: line longer than N bytes ...            -SIM_EPARSE
 *   FILE: truncated compressed stream (after line N)   -SIM_EPARSE
 *   FILE: corrupt compressed stream after line N ...   -SIM_EPARSE
 *   FILE: cannot read: REASON                          -SIM_EIO
 * So /dev/zero stops at its first byte and an endless line at the length limit.
 *
 * Lines are read with gzread (or fread) into a buffer of our own and split at '\n'
 * here: gzgets/fgets would stop at a NUL byte without saying so. */
#ifndef SIM_LINES_H
#define SIM_LINES_H

#include <stddef.h>

#include "sim.h"

/* Longest line accepted, in bytes without its line break: far above any real
 * trace row (a few hundred bytes), low enough that a file without line breaks
 * stops at once. */
#define SIM_LINES_MAX ((size_t)1 << 20)

struct sim_lines {
	const char *path;      /* borrowed */
	struct sim_diag *diag; /* borrowed: where read errors go (may be NULL) */
	void *fp;	       /* gzFile, or FILE * without zlib */
	char *buf;	       /* owned: current line, NUL-terminated, without its line break and
				* trailing '\r's */
	size_t len;	       /* bytes in buf */
	size_t cap;
	size_t line;     /* 1-based number of the current line */
	size_t max_line; /* SIM_LINES_MAX unless the caller lowers it after open */
	char *in;	 /* owned: raw bytes read ahead, in[in_pos, in_len) not yet used */
	size_t in_pos, in_len;
	int eof; /* the file has no more bytes */
};

/* Opens PATH. Returns 0, or -SIM_ENOENT/-SIM_EIO/-SIM_ENOMEM with "PATH: cannot open:
 * REASON" in diag (when diag is not NULL; errno is kept for the caller). */
int sim_lines_open(struct sim_lines *r, const char *path, struct sim_diag *diag);
/* The same over an open file descriptor, which r then owns (closed by
 * sim_lines_close, or at once when this fails): for a pipe or a FIFO that must not
 * be opened twice. PATH names it in messages. */
int sim_lines_fdopen(struct sim_lines *r, int fd, const char *path, struct sim_diag *diag);
/* Next line: 1, 0 at the end, or < 0 (a located message in r->diag, see above). */
int sim_lines_next(struct sim_lines *r);
/* Back to the first line (for two-pass readers). Returns 0 or -SIM_EIO (message in
 * diag). */
int sim_lines_rewind(struct sim_lines *r);
void sim_lines_close(struct sim_lines *r);

#endif
