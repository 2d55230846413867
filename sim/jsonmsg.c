/* sim/jsonmsg.c: see jsonmsg.h. */
#include "jsonmsg.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A NUL byte in TEXT (n bytes) is no JSON: "PATH:LINE: NUL byte ..." and
 * -SIM_EPARSE, else 0. (cJSON would stop at it and report the wrong place.) */
static int check_no_nul(const char *path, const char *text, size_t n, struct sim_diag *diag)
{
	const char *z = memchr(text, '\0', n), *start = text;
	size_t line = 1;
	if (!z)
		return 0;
	for (const char *p = text; (p = memchr(p, '\n', (size_t)(z - p))) != NULL; p++, line++)
		start = p + 1;
	char where[4200];
	snprintf(where, sizeof where, "%s:%zu", path, line);
	return sim_diag_add(diag, where, "NUL byte in line at byte %zu; expected JSON text", (size_t)(z - start) + 1);
}

int sim_read_file(const char *path, char **text, size_t *len, struct sim_diag *diag)
{
	char *buf = NULL;
	size_t n = 0, cap = 0, got;

	*text = NULL;
	*len = 0;
	FILE *f = fopen(path, "rb");
	if (!f) {
		int e = errno;
		sim_diag_add(diag, path, "cannot open: %s", strerror(e));
		return e == ENOENT || e == ENOTDIR ? -SIM_ENOENT : -SIM_EIO;
	}
	do {
		if (n > SIM_JSON_FILE_MAX) {
			sim_diag_add(diag, path, "expected a JSON file of at most %d MiB, found more (is this the "
				     "right file?)", SIM_JSON_FILE_MAX >> 20);
			free(buf);
			fclose(f);
			return -SIM_EPARSE;
		}
		if (cap - n < 4096) { /* room for a read and the NUL */
			size_t ncap = cap ? 2 * cap : 16384;
			char *p = realloc(buf, ncap);
			if (!p) {
				sim_diag_add(diag, path, "cannot read: out of memory");
				free(buf);
				fclose(f);
				return -SIM_ENOMEM;
			}
			buf = p;
			cap = ncap;
		}
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (memchr(buf + n - got, '\0', got)) { /* at once: /dev/zero ends here */
			check_no_nul(path, buf, n, diag);
			free(buf);
			fclose(f);
			return -SIM_EPARSE;
		}
	} while (got > 0);
	if (ferror(f)) {
		int e = errno;
		sim_diag_add(diag, path, "cannot read: %s", strerror(e));
		free(buf);
		fclose(f);
		return e == EISDIR ? -SIM_EPARSE : -SIM_EIO;
	}
	fclose(f);
	buf[n] = 0;
	*text = buf;
	*len = n;
	return 0;
}

void sim_json_fmt_double(double v, char *buf, size_t n)
{
	snprintf(buf, n, "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, n, "%.16g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, n, "%.17g", v);
}

static void describe_string(const char *s, char *buf, size_t n)
{
	size_t o = 0;
	if (n < 8) {
		snprintf(buf, n, "\"...\"");
		return;
	}
	buf[o++] = '"';
	for (; *s && o + 6 < n && o < 48; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\') {
			buf[o++] = '\\';
			buf[o++] = (char)ch;
		} else {
			buf[o++] = ch < 0x20 ? '?' : (char)ch;
		}
	}
	if (*s) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o++] = '"';
	buf[o] = 0;
}

void sim_json_describe(const cJSON *v, char *buf, size_t n)
{
	if (!v)
		snprintf(buf, n, "nothing");
	else if (cJSON_IsNumber(v))
		sim_json_fmt_double(v->valuedouble, buf, n);
	else if (cJSON_IsString(v))
		describe_string(v->valuestring, buf, n);
	else if (cJSON_IsObject(v))
		snprintf(buf, n, "an object");
	else if (cJSON_IsArray(v))
		snprintf(buf, n, "a list");
	else if (cJSON_IsTrue(v))
		snprintf(buf, n, "true");
	else if (cJSON_IsFalse(v))
		snprintf(buf, n, "false");
	else if (cJSON_IsNull(v))
		snprintf(buf, n, "null");
	else
		snprintf(buf, n, "an invalid value");
}

static int is_ident(const char *s)
{
	if (!*s || (*s >= '0' && *s <= '9'))
		return 0;
	for (; *s; s++)
		if (!(*s == '_' || (*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
		      (*s >= '0' && *s <= '9')))
			return 0;
	return 1;
}

void sim_json_path_key(char *out, size_t n, const char *parent, const char *key)
{
	if (is_ident(key)) {
		if (snprintf(out, n, "%s.%s", parent, key) >= (int)n)
			out[n - 1] = 0;
		return;
	}
	size_t o = (size_t)snprintf(out, n, "%s[\"", parent);
	if (o >= n) {
		out[n - 1] = 0;
		return;
	}
	for (; *key && o + 4 < n; key++) {
		if (*key == '"' || *key == '\\')
			out[o++] = '\\';
		out[o++] = (unsigned char)*key < 0x20 ? '?' : *key;
	}
	if (o + 3 <= n) {
		out[o++] = '"';
		out[o++] = ']';
		out[o] = 0;
	}
}

void sim_json_path_idx(char *out, size_t n, const char *parent, size_t i)
{
	if (snprintf(out, n, "%s[%zu]", parent, i) >= (int)n)
		out[n - 1] = 0;
}

void sim_json_duplicate_keys(const cJSON *node, const char *path, void (*dup)(void *arg, const char *path),
			     void *arg)
{
	char sub[512];
	size_t i = 0;

	for (const cJSON *ch = node->child; ch; ch = ch->next, i++) {
		if (cJSON_IsObject(node)) {
			sim_json_path_key(sub, sizeof sub, path, ch->string ? ch->string : "");
			for (const cJSON *p = node->child; p != ch; p = p->next)
				if (p->string && ch->string && strcmp(p->string, ch->string) == 0) {
					dup(arg, sub);
					break;
				}
		} else {
			sim_json_path_idx(sub, sizeof sub, path, i);
		}
		if (cJSON_IsObject(ch) || cJSON_IsArray(ch))
			sim_json_duplicate_keys(ch, sub, dup, arg);
	}
}
