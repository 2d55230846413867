/* sim/yamltree.c: see yamltree.h.
 *
 * The parser is libyaml's event stream: a stack of open mappings and sequences, a
 * pending key per open mapping; each finished value is attached to the top of the
 * stack and recorded in the position table under its JSON path. */
#include "yamltree.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yaml.h>

#include "jsonmsg.h"

#define YPATH_MAX 512 /* as the JSON readers: longer paths are cut in messages */

/* ---- the position table ------------------------------------------------- */

void sim_srcmap_fini(struct sim_srcmap *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].path);
	free(m->v);
	memset(m, 0, sizeof *m);
}

static int srcmap_add(struct sim_srcmap *m, const cJSON *node, const char *path, uint32_t doc, uint32_t line,
		      uint32_t col)
{
	void *grown = sim_grow(m->v, &m->cap, m->n, sizeof *m->v, 64);
	if (!grown)
		return -SIM_ENOMEM;
	m->v = grown;
	char *p = strdup(path);
	if (!p)
		return -SIM_ENOMEM;
	m->v[m->n++] = (struct sim_srcpos){ .node = node, .path = p, .doc = doc, .line = line, .col = col };
	return 0;
}

/* 1 when prefix is path itself or an ancestor of it: what follows the prefix
 * starts a member (".key", "[\"key\"]") or an index ("[2]"). */
static int is_ancestor(const char *prefix, size_t plen, const char *path)
{
	if (strncmp(prefix, path, plen) != 0)
		return 0;
	return path[plen] == 0 || path[plen] == '.' || path[plen] == '[';
}

const struct sim_srcpos *sim_srcmap_find_path(const struct sim_srcmap *m, uint32_t doc, const char *path)
{
	const struct sim_srcpos *best = NULL;
	size_t best_len = 0;
	for (size_t i = 0; m && i < m->n; i++) {
		if (m->v[i].doc != doc)
			continue;
		size_t len = strlen(m->v[i].path);
		/* on a tie (a key written twice) the later one: a duplicate-key error is about it */
		if ((!best || len >= best_len) && is_ancestor(m->v[i].path, len, path)) {
			best = &m->v[i];
			best_len = len;
		}
	}
	return best;
}

const struct sim_srcpos *sim_srcmap_find_node(const struct sim_srcmap *m, const cJSON *node)
{
	for (size_t i = 0; m && node && i < m->n; i++)
		if (m->v[i].node == node)
			return &m->v[i];
	return NULL;
}

int sim_yaml_is_path(const char *path)
{
	size_t n = path ? strlen(path) : 0;
	return (n > 5 && strcasecmp(path + n - 5, ".yaml") == 0) || (n > 4 && strcasecmp(path + n - 4, ".yml") == 0);
}

/* ---- scalars --------------------------------------------------------------- */

enum scalar_kind { SC_STRING, SC_NULL, SC_BOOL, SC_NUMBER };

static int all_digits(const char *s, const char *set)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!strchr(set, *s))
			return 0;
	return 1;
}

/* A decimal float or integer of the core schema: [-+]?(.d+|d+(.d*)?)([eE][-+]?d+)? */
static int is_decimal(const char *s)
{
	if (*s == '-' || *s == '+')
		s++;
	size_t before = strspn(s, "0123456789");
	s += before;
	size_t after = 0;
	if (*s == '.') {
		s++;
		after = strspn(s, "0123456789");
		s += after;
	}
	if (before + after == 0)
		return 0;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '-' || *s == '+')
			s++;
		size_t exp = strspn(s, "0123456789");
		if (!exp)
			return 0;
		s += exp;
	}
	return *s == 0;
}

/* How a plain (unquoted, untagged) scalar reads; *num gets a number's value. */
static enum scalar_kind resolve_plain(const char *s, double *num, int *truth)
{
	static const char *const nulls[] = { "", "~", "null", "Null", "NULL", NULL };
	static const char *const trues[] = { "true", "True", "TRUE", NULL };
	static const char *const falses[] = { "false", "False", "FALSE", NULL };
	for (int i = 0; nulls[i]; i++)
		if (strcmp(s, nulls[i]) == 0)
			return SC_NULL;
	for (int i = 0; trues[i]; i++)
		if (strcmp(s, trues[i]) == 0)
			return *truth = 1, SC_BOOL;
	for (int i = 0; falses[i]; i++)
		if (strcmp(s, falses[i]) == 0)
			return *truth = 0, SC_BOOL;
	double v;
	if (s[0] == '0' && s[1] == 'x' && all_digits(s + 2, "0123456789abcdefABCDEF"))
		v = (double)strtoull(s + 2, NULL, 16);
	else if (s[0] == '0' && s[1] == 'o' && all_digits(s + 2, "01234567"))
		v = (double)strtoull(s + 2, NULL, 8);
	else if (is_decimal(s))
		v = strtod(s, NULL);
	else
		return SC_STRING;
	if (!isfinite(v))
		return SC_STRING; /* 1e999: no JSON number holds it; the checks then say what they expected */
	*num = v;
	return SC_NUMBER;
}

#define YTAG "tag:yaml.org,2002:"

/* The cJSON value of a scalar event, or NULL with *why set (or *why "" when out
 * of memory). */
static cJSON *scalar_to_json(const yaml_event_t *e, const char **why)
{
	const char *s = (const char *)e->data.scalar.value;
	const char *tag = (const char *)e->data.scalar.tag;
	double num = 0;
	int truth = 0;
	enum scalar_kind kind = SC_STRING;

	if (strlen(s) != e->data.scalar.length) {
		*why = "a NUL character in a string is not supported; expected text without \\0";
		return NULL;
	}
	if (tag && strcmp(tag, "!") != 0) {
		if (strncmp(tag, YTAG, strlen(YTAG)) != 0) {
			*why = "this tag is not supported; expected no tag, or !!str, !!int, !!float, !!bool, !!null";
			return NULL;
		}
		const char *t = tag + strlen(YTAG);
		enum scalar_kind got = resolve_plain(s, &num, &truth);
		if (strcmp(t, "str") == 0)
			kind = SC_STRING;
		else if ((strcmp(t, "int") == 0 || strcmp(t, "float") == 0) && got == SC_NUMBER)
			kind = SC_NUMBER;
		else if (strcmp(t, "bool") == 0 && got == SC_BOOL)
			kind = SC_BOOL;
		else if (strcmp(t, "null") == 0 && got == SC_NULL)
			kind = SC_NULL;
		else {
			*why = "the value does not match its tag; expected !!int/!!float on a number, !!bool on "
			       "true/false, !!null on null, or !!str";
			return NULL;
		}
	} else if (e->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !tag) {
		kind = resolve_plain(s, &num, &truth);
	}
	cJSON *v = NULL;
	switch (kind) {
	case SC_NULL: v = cJSON_CreateNull(); break;
	case SC_BOOL: v = cJSON_CreateBool(truth); break;
	case SC_NUMBER: v = cJSON_CreateNumber(num); break;
	case SC_STRING: v = cJSON_CreateString(s); break;
	}
	if (!v)
		*why = "";
	return v;
}

/* ---- the parser ------------------------------------------------------------- */

struct frame {
	cJSON *node;
	char *path;       /* NULL when no map is kept */
	char *key;        /* a mapping's key waiting for its value; owned */
	uint32_t key_line, key_col;
	size_t idx;       /* a sequence's next index */
};

struct yparse {
	const char *file;
	struct sim_srcmap *map;
	struct sim_diag *diag;
	struct frame *st;
	size_t depth, cap;
	cJSON *root;      /* the current document's value */
	uint32_t doc;
	int nomem;
};

/* "FILE:LINE:COL: what" at a libyaml mark (0-based line and column). */
static int located(struct yparse *p, yaml_mark_t mark, const char *what)
{
	char where[YPATH_MAX + 64];
	snprintf(where, sizeof where, "%s:%zu:%zu", p->file, mark.line + 1, mark.column + 1);
	return sim_diag_add(p->diag, where, "%s", what);
}

/* Attaches a finished value to the open container (or makes it the document's
 * root) and records its position: a member's is its key's, others their own. */
static int attach(struct yparse *p, cJSON *v, yaml_mark_t mark, char **path_out)
{
	char path[YPATH_MAX] = "$";
	uint32_t line = (uint32_t)mark.line + 1, col = (uint32_t)mark.column + 1;
	struct frame *top = p->depth ? &p->st[p->depth - 1] : NULL;

	if (!top) {
		p->root = v;
	} else if (cJSON_IsObject(top->node)) {
		if (p->map)
			sim_json_path_key(path, sizeof path, top->path, top->key);
		line = top->key_line;
		col = top->key_col;
		cJSON_AddItemToObject(top->node, top->key, v);
		free(top->key);
		top->key = NULL;
	} else {
		if (p->map)
			sim_json_path_idx(path, sizeof path, top->path, top->idx);
		top->idx++;
		cJSON_AddItemToArray(top->node, v);
	}
	if (path_out && !(*path_out = strdup(path)))
		return -SIM_ENOMEM;
	return p->map ? srcmap_add(p->map, v, path, p->doc, line, col) : 0;
}

static int push(struct yparse *p, cJSON *node, yaml_mark_t mark)
{
	char *path = NULL;
	if (attach(p, node, mark, p->map ? &path : NULL) < 0)
		return free(path), -SIM_ENOMEM;
	void *grown = sim_grow(p->st, &p->cap, p->depth, sizeof *p->st, 16);
	if (!grown)
		return free(path), -SIM_ENOMEM;
	p->st = grown;
	p->st[p->depth++] = (struct frame){ .node = node, .path = path };
	return 0;
}

static void pop(struct yparse *p)
{
	struct frame *f = &p->st[--p->depth];
	free(f->path);
	free(f->key);
}

/* A scalar: a mapping's key when the open mapping waits for one, else a value. */
static int on_scalar(struct yparse *p, const yaml_event_t *e)
{
	struct frame *top = p->depth ? &p->st[p->depth - 1] : NULL;
	if (top && cJSON_IsObject(top->node) && !top->key) {
		const char *k = (const char *)e->data.scalar.value;
		if (strlen(k) != e->data.scalar.length)
			return located(p, e->start_mark, "a NUL character in a key is not supported");
		if (!(top->key = strdup(k)))
			return -SIM_ENOMEM;
		top->key_line = (uint32_t)e->start_mark.line + 1;
		top->key_col = (uint32_t)e->start_mark.column + 1;
		return 0;
	}
	const char *why = NULL;
	cJSON *v = scalar_to_json(e, &why);
	if (!v)
		return *why ? located(p, e->start_mark, why) : -SIM_ENOMEM;
	return attach(p, v, e->start_mark, NULL);
}

static int on_container_start(struct yparse *p, const yaml_event_t *e, int is_map)
{
	struct frame *top = p->depth ? &p->st[p->depth - 1] : NULL;
	if (top && cJSON_IsObject(top->node) && !top->key)
		return located(p, e->start_mark,
			       "a mapping or sequence as a key is not supported; expected a plain key");
	cJSON *node = is_map ? cJSON_CreateObject() : cJSON_CreateArray();
	if (!node)
		return -SIM_ENOMEM;
	return push(p, node, e->start_mark); /* node is in the tree even on failure: freed with it */
}

/* One event; returns 1 at the end of a document, 2 at the end of the stream,
 * 0 otherwise, < 0 on an error (reported). */
static int on_event(struct yparse *p, const yaml_event_t *e)
{
	switch (e->type) {
	case YAML_DOCUMENT_START_EVENT:
		p->root = NULL;
		return 0;
	case YAML_DOCUMENT_END_EVENT:
		return 1;
	case YAML_STREAM_END_EVENT:
		return 2;
	case YAML_ALIAS_EVENT:
		return located(p, e->start_mark,
			       "YAML aliases (*name) are not supported; expected the value written out");
	case YAML_SCALAR_EVENT:
		return on_scalar(p, e);
	case YAML_MAPPING_START_EVENT:
		return on_container_start(p, e, 1);
	case YAML_SEQUENCE_START_EVENT:
		return on_container_start(p, e, 0);
	case YAML_MAPPING_END_EVENT:
	case YAML_SEQUENCE_END_EVENT:
		pop(p);
		return 0;
	default:
		return 0;
	}
}

static int syntax_error(struct yparse *p, const yaml_parser_t *y)
{
	if (y->error == YAML_MEMORY_ERROR)
		return -SIM_ENOMEM;
	char where[YPATH_MAX + 64];
	yaml_mark_t m = y->problem_mark;
	snprintf(where, sizeof where, "%s:%zu:%zu", p->file, m.line + 1, m.column + 1);
	if (y->context)
		return sim_diag_add(p->diag, where, "YAML syntax error: %s (%s)", y->problem ? y->problem : "?",
				    y->context);
	return sim_diag_add(p->diag, where, "YAML syntax error: %s", y->problem ? y->problem : "?");
}

static int add_doc(cJSON ***docs, size_t *n, size_t *cap, cJSON *root)
{
	void *grown = sim_grow(*docs, cap, *n, sizeof **docs, 4);
	if (!grown)
		return -SIM_ENOMEM;
	*docs = grown;
	(*docs)[(*n)++] = root;
	return 0;
}

int sim_yaml_parse(const char *file, const char *text, size_t len, cJSON ***docs, size_t *n_docs,
		   struct sim_srcmap *map, struct sim_diag *diag)
{
	yaml_parser_t y;
	struct yparse p = { .file = file, .map = map, .diag = diag };
	size_t cap = 0;
	int rc = 0;

	*docs = NULL;
	*n_docs = 0;
	if (!yaml_parser_initialize(&y))
		return -SIM_ENOMEM;
	yaml_parser_set_input_string(&y, (const unsigned char *)text, len);
	for (;;) {
		yaml_event_t e;
		if (!yaml_parser_parse(&y, &e)) {
			rc = syntax_error(&p, &y);
			break;
		}
		int got = on_event(&p, &e);
		yaml_event_delete(&e);
		if (got < 0) {
			rc = got;
			break;
		}
		if (got == 1) {
			rc = add_doc(docs, n_docs, &cap, p.root ? p.root : cJSON_CreateNull());
			p.root = NULL;
			p.doc++;
			if (rc)
				break;
		}
		if (got == 2)
			break;
	}
	while (p.depth)
		pop(&p);
	free(p.st);
	yaml_parser_delete(&y);
	if (rc) {
		cJSON_Delete(p.root);
		for (size_t i = 0; i < *n_docs; i++)
			cJSON_Delete((*docs)[i]);
		free(*docs);
		*docs = NULL;
		*n_docs = 0;
		if (map)
			sim_srcmap_fini(map);
	}
	return rc;
}

int sim_yaml_to_json(const char *file, const char *text, size_t len, const char *what, char **json,
		     struct sim_srcmap *map, struct sim_diag *diag)
{
	cJSON **docs = NULL;
	size_t n = 0;
	*json = NULL;
	int rc = sim_yaml_parse(file, text, len, &docs, &n, map, diag);
	if (!rc && n != 1) {
		char where[YPATH_MAX + 16];
		snprintf(where, sizeof where, "%s:1:1", file);
		rc = sim_diag_add(diag, where, "expected one YAML document (%s), got %zu", what, n);
	}
	if (!rc && !(*json = cJSON_Print(docs[0])))
		rc = -SIM_ENOMEM;
	for (size_t i = 0; i < n; i++)
		cJSON_Delete(docs[i]);
	free(docs);
	if (rc)
		sim_srcmap_fini(map);
	return rc;
}

/* ---- the writer ------------------------------------------------------------- */

static int emit(yaml_emitter_t *em, yaml_event_t *e)
{
	return yaml_emitter_emit(em, e) ? 0 : -SIM_EIO;
}

static int emit_scalar(yaml_emitter_t *em, const char *text, int must_quote)
{
	yaml_event_t e;
	yaml_scalar_event_initialize(&e, NULL, NULL, (const yaml_char_t *)text, (int)strlen(text), !must_quote, 1,
				     must_quote ? YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE);
	return emit(em, &e);
}

/* A string is written plain only when the reader would read it back as a string. */
static int needs_quotes(const char *s)
{
	double num;
	int truth;
	return resolve_plain(s, &num, &truth) != SC_STRING || !*s;
}

static int emit_node(yaml_emitter_t *em, const cJSON *v)
{
	yaml_event_t e;
	char buf[64];
	int rc = 0;

	if (cJSON_IsObject(v) || cJSON_IsArray(v)) {
		int is_map = cJSON_IsObject(v);
		/* an empty container in block style would be no text at all: {} and [] say it */
		int flow = v->child == NULL;
		if (is_map)
			yaml_mapping_start_event_initialize(&e, NULL, NULL, 1,
							    flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE);
		else
			yaml_sequence_start_event_initialize(&e, NULL, NULL, 1,
							     flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE);
		if ((rc = emit(em, &e)))
			return rc;
		for (const cJSON *c = v->child; c && !rc; c = c->next) {
			if (is_map)
				rc = emit_scalar(em, c->string ? c->string : "", needs_quotes(c->string ? c->string : ""));
			if (!rc)
				rc = emit_node(em, c);
		}
		if (rc)
			return rc;
		if (is_map)
			yaml_mapping_end_event_initialize(&e);
		else
			yaml_sequence_end_event_initialize(&e);
		return emit(em, &e);
	}
	if (cJSON_IsString(v))
		return emit_scalar(em, v->valuestring, needs_quotes(v->valuestring));
	if (cJSON_IsNumber(v)) {
		sim_json_fmt_double(v->valuedouble, buf, sizeof buf);
		return emit_scalar(em, buf, 0);
	}
	if (cJSON_IsBool(v))
		return emit_scalar(em, cJSON_IsTrue(v) ? "true" : "false", 0);
	return emit_scalar(em, "null", 0);
}

int sim_yaml_write(FILE *f, const cJSON *root)
{
	yaml_emitter_t em;
	yaml_event_t e;
	int rc;

	if (!yaml_emitter_initialize(&em))
		return -SIM_ENOMEM;
	yaml_emitter_set_output_file(&em, f);
	yaml_emitter_set_unicode(&em, 1);
	yaml_emitter_set_width(&em, -1); /* never fold a long string over lines */
	yaml_stream_start_event_initialize(&e, YAML_UTF8_ENCODING);
	rc = emit(&em, &e);
	if (!rc) {
		yaml_document_start_event_initialize(&e, NULL, NULL, NULL, 1);
		rc = emit(&em, &e);
	}
	if (!rc)
		rc = emit_node(&em, root);
	if (!rc) {
		yaml_document_end_event_initialize(&e, 1);
		rc = emit(&em, &e);
	}
	if (!rc) {
		yaml_stream_end_event_initialize(&e);
		rc = emit(&em, &e);
	}
	if (!rc && !yaml_emitter_flush(&em))
		rc = -SIM_EIO;
	if (rc && em.error == YAML_MEMORY_ERROR)
		rc = -SIM_ENOMEM;
	yaml_emitter_delete(&em);
	return rc;
}

/* ---- locating later errors --------------------------------------------------- */

void sim_srcmap_locate_diag(const struct sim_srcmap *m, const char *file, struct sim_diag *diag)
{
	size_t flen = strlen(file), kept = diag->count < diag->limit ? diag->count : diag->limit;
	for (size_t i = 0; m && diag->lines && i < kept; i++) {
		char *line = diag->lines[i];
		if (!line || strncmp(line, file, flen) != 0 || strncmp(line + flen, ": $", 3) != 0)
			continue;
		const char *path = line + flen + 2;
		const char *end = strstr(path, ": ");
		size_t plen = end ? (size_t)(end - path) : strlen(path);
		char query[YPATH_MAX];
		if (plen >= sizeof query)
			continue;
		memcpy(query, path, plen);
		query[plen] = 0;
		const struct sim_srcpos *pos = sim_srcmap_find_path(m, 0, query);
		if (!pos)
			continue;
		char head[64];
		int hn = snprintf(head, sizeof head, ":%u:%u", pos->line, pos->col);
		size_t n = strlen(line) + (size_t)hn + 1;
		char *nl = malloc(n);
		if (!nl)
			return; /* the message stays unlocated: still true, only less precise */
		memcpy(nl, line, flen);
		memcpy(nl + flen, head, (size_t)hn);
		strcpy(nl + flen + hn, line + flen);
		free(line);
		diag->lines[i] = nl;
	}
}
