/* sim/lines.c: see lines.h. */
#include "lines.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef SIM_HAVE_ZLIB
#include <zlib.h>
#endif

/* Raw bytes read at a time (and zlib's own buffer): 128 KiB. */
#define LINES_CHUNK (1 << 17)

/* Sets up r around an open file (r->fp set or NULL). Returns 0 or < 0 (reported). */
static int lines_init(struct sim_lines *r, const char *path, struct sim_diag *diag)
{
	if (!r->fp) {
		int e = errno;
		sim_diag_add(diag, path, "cannot open: %s", e ? strerror(e) : "out of memory");
		errno = e;
		return e == ENOENT || e == ENOTDIR ? -SIM_ENOENT : e ? -SIM_EIO : -SIM_ENOMEM;
	}
#ifdef SIM_HAVE_ZLIB
	gzbuffer(r->fp, LINES_CHUNK);
#endif
	r->cap = 512;
	r->buf = malloc(r->cap);
	r->in = malloc(LINES_CHUNK);
	if (!r->buf || !r->in) {
		sim_lines_close(r);
		sim_diag_add(diag, path, "cannot read: out of memory");
		return -SIM_ENOMEM;
	}
	r->buf[0] = '\0';
	return 0;
}

static void lines_reset(struct sim_lines *r, const char *path, struct sim_diag *diag)
{
	memset(r, 0, sizeof *r);
	r->path = path;
	r->diag = diag;
	r->max_line = SIM_LINES_MAX;
	errno = 0;
}

int sim_lines_open(struct sim_lines *r, const char *path, struct sim_diag *diag)
{
	lines_reset(r, path, diag);
#ifdef SIM_HAVE_ZLIB
	r->fp = gzopen(path, "rb");
#else
	r->fp = fopen(path, "rb");
#endif
	return lines_init(r, path, diag);
}

int sim_lines_fdopen(struct sim_lines *r, int fd, const char *path, struct sim_diag *diag)
{
	lines_reset(r, path, diag);
#ifdef SIM_HAVE_ZLIB
	r->fp = gzdopen(fd, "rb");
#else
	r->fp = fdopen(fd, "rb");
#endif
	if (!r->fp)
		close(fd);
	return lines_init(r, path, diag);
}

/* A read error of the underlying file: a directory is bad input (a wrong path),
 * anything else a runtime failure. */
static int io_error(struct sim_lines *r, int e)
{
	sim_diag_add(r->diag, r->path, "cannot read: %s", strerror(e));
	return e == EISDIR ? -SIM_EPARSE : -SIM_EIO;
}

#ifdef SIM_HAVE_ZLIB
/* gzread failed or stopped early: name what zlib saw. Z_BUF_ERROR at the end of
 * the input is zlib's "unexpected end of file": the gzip stream was cut. */
static int stream_error(struct sim_lines *r, int ze, const char *zmsg)
{
	size_t plen = strlen(r->path);
	if (zmsg && strncmp(zmsg, r->path, plen) == 0 && strncmp(zmsg + plen, ": ", 2) == 0)
		zmsg += plen + 2; /* gzerror prefixes the path, which the message has already */
	switch (ze) {
	case Z_BUF_ERROR:
		return sim_diag_add(r->diag, r->path, "truncated compressed stream (after line %zu); expected "
				    "the rest of the gzip data", r->line);
	case Z_DATA_ERROR:
		return sim_diag_add(r->diag, r->path, "corrupt compressed stream after line %zu (zlib: %s)",
				    r->line, zmsg ? zmsg : "data error");
	case Z_ERRNO:
		return io_error(r, errno);
	case Z_MEM_ERROR:
		sim_diag_add(r->diag, r->path, "cannot read: out of memory");
		return -SIM_ENOMEM;
	default:
		sim_diag_add(r->diag, r->path, "cannot read: zlib: %s", zmsg ? zmsg : "unknown error");
		return -SIM_EIO;
	}
}
#endif

/* Reads the next raw chunk into r->in (r->eof at the end of the file). Returns 0 or
 * < 0 with the reason in diag. */
static int fill(struct sim_lines *r)
{
	r->in_pos = r->in_len = 0;
#ifdef SIM_HAVE_ZLIB
	int got = gzread(r->fp, r->in, LINES_CHUNK), ze;
	const char *zmsg = gzerror(r->fp, &ze);
	if (got < 0 || (ze != Z_OK && ze != Z_BUF_ERROR))
		return stream_error(r, ze, zmsg);
	if (got == 0) {
		r->eof = 1;
		return ze == Z_BUF_ERROR ? stream_error(r, ze, zmsg) : 0;
	}
	r->in_len = (size_t)got;
#else
	size_t got = fread(r->in, 1, LINES_CHUNK, r->fp);
	if (got < LINES_CHUNK && ferror((FILE *)r->fp))
		return io_error(r, errno);
	r->eof = got == 0;
	r->in_len = got;
#endif
	return 0;
}

/* "PATH:LINE: MSG" in diag; returns -SIM_EPARSE. */
static int located(const struct sim_lines *r, size_t line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int located(const struct sim_lines *r, size_t line, const char *fmt, ...)
{
	char where[4096];
	va_list ap;
	snprintf(where, sizeof where, "%s:%zu", r->path, line);
	va_start(ap, fmt);
	sim_diag_vadd(r->diag, where, fmt, ap);
	va_end(ap);
	return -SIM_EPARSE;
}

/* Appends n bytes of the current line to buf, refusing a NUL byte and a line over
 * the limit. Returns 0 or < 0 with a located message. */
static int append(struct sim_lines *r, const char *s, size_t n)
{
	const char *nul = memchr(s, '\0', n);
	if (nul)
		return located(r, r->line + 1, "NUL byte in line at byte %zu; expected text",
			       r->len + (size_t)(nul - s) + 1);
	if (n > r->max_line - r->len)
		return located(r, r->line + 1, "line longer than %zu bytes; expected a line break before "
			       "(is this a text file?)", r->max_line);
	if (r->len + n + 1 > r->cap) {
		size_t cap = r->cap;
		while (cap < r->len + n + 1)
			cap *= 2;
		char *nb = realloc(r->buf, cap);
		if (!nb) {
			sim_diag_add(r->diag, r->path, "cannot read: out of memory");
			return -SIM_ENOMEM;
		}
		r->buf = nb;
		r->cap = cap;
	}
	memcpy(r->buf + r->len, s, n);
	r->len += n;
	return 0;
}

int sim_lines_next(struct sim_lines *r)
{
	int err, have = 0; /* a byte of this line was seen: a last line without '\n' counts */
	r->len = 0;
	r->buf[0] = '\0';
	for (;;) {
		if (r->in_pos == r->in_len) {
			if (r->eof)
				break;
			if ((err = fill(r)) < 0)
				return err;
			continue;
		}
		const char *s = r->in + r->in_pos;
		size_t avail = r->in_len - r->in_pos;
		const char *nl = memchr(s, '\n', avail);
		size_t take = nl ? (size_t)(nl - s) : avail;
		if ((err = append(r, s, take)) < 0)
			return err;
		r->in_pos += take + (nl != NULL);
		have = 1;
		if (nl)
			break;
	}
	if (!have)
		return 0;
	r->line++;
	while (r->len && r->buf[r->len - 1] == '\r')
		r->len--;
	r->buf[r->len] = '\0';
	return 1;
}

int sim_lines_rewind(struct sim_lines *r)
{
	r->line = 0;
	r->len = 0;
	r->in_pos = r->in_len = 0;
	r->eof = 0;
#ifdef SIM_HAVE_ZLIB
	int ok = gzrewind(r->fp) == 0;
#else
	int ok = fseek(r->fp, 0, SEEK_SET) == 0;
#endif
	if (!ok) {
		sim_diag_add(r->diag, r->path, "cannot rewind for a second pass");
		return -SIM_EIO;
	}
	return 0;
}

void sim_lines_close(struct sim_lines *r)
{
	if (r->fp) {
#ifdef SIM_HAVE_ZLIB
		gzclose(r->fp);
#else
		fclose(r->fp);
#endif
	}
	free(r->buf);
	free(r->in);
	r->fp = NULL;
	r->buf = NULL;
	r->in = NULL;
}
