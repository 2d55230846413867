/* tests/test_rankset.c: the ordered set with GPU sums of the preemptive baselines
 * (policies/rankset.h), against the slow, obvious version: a sorted array scanned
 * for every query. */
#include <CUnit/CUnit.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>
#include <string.h>

#include "../policies/rankset.h"

static int init_rankset(void) { return 0; }
static int clean_rankset(void) { return 0; }

/* The oracle: elements sorted by (key, idx). */
struct ref {
	struct rs_key key[4096];
	int64_t w[4096];
	size_t n;
};

static size_t ref_lower(const struct ref *r, struct rs_key k)
{
	size_t i = 0;
	while (i < r->n && rs_key_lt(r->key[i], k))
		i++;
	return i;
}

static void ref_insert(struct ref *r, struct rs_key k, int64_t w)
{
	size_t i = ref_lower(r, k);
	memmove(&r->key[i + 1], &r->key[i], (r->n - i) * sizeof r->key[0]);
	memmove(&r->w[i + 1], &r->w[i], (r->n - i) * sizeof r->w[0]);
	r->key[i] = k;
	r->w[i] = w;
	r->n++;
}

static int ref_erase(struct ref *r, struct rs_key k)
{
	size_t i = ref_lower(r, k);
	if (i == r->n || rs_key_lt(k, r->key[i]))
		return 0;
	memmove(&r->key[i], &r->key[i + 1], (r->n - i - 1) * sizeof r->key[0]);
	memmove(&r->w[i], &r->w[i + 1], (r->n - i - 1) * sizeof r->w[0]);
	r->n--;
	return 1;
}

static int64_t ref_sum_below(const struct ref *r, struct rs_key k)
{
	int64_t s = 0;
	for (size_t i = 0; i < r->n && rs_key_lt(r->key[i], k); i++)
		s += r->w[i];
	return s;
}

static int same_key(struct rs_key a, struct rs_key b)
{
	return a.k == b.k && a.idx == b.idx;
}

/* Every query of the set against the oracle at probe key k and bound x. */
static int queries_agree(const struct rankset *s, const struct ref *r, struct rs_key k, int64_t x)
{
	int ok = rs_sum_below(s, k) == ref_sum_below(r, k) && s->size == r->n;
	int64_t total = 0;
	for (size_t i = 0; i < r->n; i++)
		total += r->w[i];
	ok &= rs_sum(s) == total;
	for (int incl = 0; incl < 2; incl++) { /* rs_next */
		size_t i = 0;
		while (i < r->n && (incl ? rs_key_lt(r->key[i], k) : !rs_key_lt(k, r->key[i])))
			i++;
		struct rs_key out;
		int64_t w;
		int got = rs_next(s, k, incl, &out, &w);
		ok &= got == (i < r->n) && (!got || (same_key(out, r->key[i]) && w == r->w[i]));
	}
	{ /* rs_first_exceeding */
		size_t i = 0;
		int64_t run = 0;
		while (i < r->n && run + r->w[i] <= x)
			run += r->w[i++];
		struct rs_key out;
		int64_t w;
		int got = rs_first_exceeding(s, x, &out, &w);
		ok &= got == (i < r->n) && (!got || (same_key(out, r->key[i]) && w == r->w[i]));
	}
	{ /* rs_next_fit */
		size_t i = 0;
		while (i < r->n && (!rs_key_lt(k, r->key[i]) || r->w[i] > x))
			i++;
		struct rs_key out;
		int64_t w;
		int got = rs_next_fit(s, k, x, &out, &w);
		ok &= got == (i < r->n) && (!got || (same_key(out, r->key[i]) && w == r->w[i]));
	}
	{ /* rs_min */
		int64_t m = INT64_MAX;
		for (size_t i = 0; i < r->n; i++)
			m = r->w[i] < m ? r->w[i] : m;
		ok &= rs_min(s) == m;
	}
	return ok;
}

/* A cursor walk against the oracle's scan: each step the first element after the
 * one given before whose weight is within a bound that falls by random amounts
 * (sometimes not at all). *given: elements the walk gave. */
static int cursor_agrees(const struct rankset *s, const struct ref *r, gsl_rng *g, size_t *given)
{
	struct rs_cursor c;
	rs_cursor_init(&c, s);
	int64_t bound = (int64_t)gsl_rng_uniform_int(g, 40);
	size_t i = 0; /* the oracle's next candidate */
	for (;;) {
		while (i < r->n && r->w[i] > bound)
			i++;
		struct rs_key out;
		int64_t w;
		int got = rs_cursor_next(&c, bound, &out, &w);
		if (got != (i < r->n) || (got && (!same_key(out, r->key[i]) || w != r->w[i])))
			return 0;
		if (!got)
			return 1;
		++*given;
		i++;
		bound -= (int64_t)gsl_rng_uniform_int(g, 3);
	}
}

/* Random inserts and erases (keys from a small range, so ties of k are common and
 * erases often hit), every query checked after every operation. */
static void check_random_ops(void)
{
	gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
	static struct ref r;
	size_t bad = 0, erased = 0, walked = 0;
	for (unsigned long seed = 1; seed <= 20; seed++) {
		gsl_rng_set(g, seed);
		struct rankset s;
		rs_init(&s);
		r.n = 0;
		for (int op = 0; op < 1500; op++) {
			struct rs_key k = { (int64_t)gsl_rng_uniform_int(g, 200) - 50,
					    (uint32_t)gsl_rng_uniform_int(g, 40) };
			if (gsl_rng_uniform_int(g, 3) && r.n < 4000) {
				if (ref_lower(&r, k) < r.n && same_key(r.key[ref_lower(&r, k)], k))
					continue; /* keys are unique */
				int64_t w = 1 + (int64_t)gsl_rng_uniform_int(g, 16);
				CU_ASSERT_EQUAL_FATAL(rs_insert(&s, k, w), 0);
				ref_insert(&r, k, w);
			} else {
				if (r.n && gsl_rng_uniform_int(g, 2))
					k = r.key[gsl_rng_uniform_int(g, r.n)]; /* one that is there */
				int a = rs_erase(&s, k), b = ref_erase(&r, k);
				bad += a != b;
				erased += (size_t)b;
			}
			struct rs_key probe = { (int64_t)gsl_rng_uniform_int(g, 220) - 60,
						(uint32_t)gsl_rng_uniform_int(g, 42) };
			if (!queries_agree(&s, &r, probe, (int64_t)gsl_rng_uniform_int(g, 40) - 5))
				bad++;
			if (op % 10 == 0 && !cursor_agrees(&s, &r, g, &walked))
				bad++;
		}
		rs_fini(&s);
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT(erased > 1000); /* the erase path ran */
	CU_ASSERT(walked > 10000); /* cursor steps that gave an element */
	gsl_rng_free(g);
}

static void test_rankset_matches_sorted_array(void)
{
	check_random_ops();
}

/* The same with the walk cut at depth 3, so most inserts and erases take the split
 * and merge fallback, and both paths mix in one set; split and merge themselves
 * then fall back to their recursive versions below that depth, and cursors run out
 * of stack and go on from the root. */
static void test_rankset_deep_path_fallback(void)
{
	int saved = rankset_test_path_max;
	rankset_test_path_max = 3;
	check_random_ops();
	rankset_test_path_max = saved;
}

/* A set grown to 100,000 in increasing key order (the running set of srtf sees end
 * times in nearly that order) and emptied again keeps its sums. */
static void test_rankset_sorted_inserts(void)
{
	struct rankset s;
	rs_init(&s);
	for (uint32_t i = 0; i < 100000; i++)
		CU_ASSERT_EQUAL_FATAL(rs_insert(&s, (struct rs_key){ i, i }, 2), 0);
	CU_ASSERT_EQUAL(rs_sum(&s), 200000);
	CU_ASSERT_EQUAL(rs_sum_below(&s, (struct rs_key){ 50000, 0 }), 100000);
	for (uint32_t i = 0; i < 100000; i += 2)
		CU_ASSERT_EQUAL(rs_erase(&s, (struct rs_key){ i, i }), 1);
	CU_ASSERT_EQUAL(rs_sum(&s), 100000);
	CU_ASSERT_EQUAL(rs_erase(&s, (struct rs_key){ 0, 0 }), 0);
	CU_ASSERT_EQUAL(rs_sum_below(&s, (struct rs_key){ 11, 0 }), 10); /* 1, 3, ..., 9 */
	rs_fini(&s);
}

/* By hand: keys 1..6 with weights 5 1 3 2 4 1. Bound 3: key 2 (1); bound 3 again:
 * key 3 (3); bound 2: key 4 (2); bound 1: key 6 (1), key 5 (4) passed over; then
 * nothing. rs_min is 1, and INT64_MAX once the set is empty. */
static void test_rankset_cursor_by_hand(void)
{
	static const int64_t w[] = { 5, 1, 3, 2, 4, 1 };
	struct rankset s;
	rs_init(&s);
	CU_ASSERT_EQUAL(rs_min(&s), INT64_MAX);
	for (uint32_t i = 0; i < 6; i++)
		CU_ASSERT_EQUAL_FATAL(rs_insert(&s, (struct rs_key){ i + 1, i }, w[i]), 0);
	CU_ASSERT_EQUAL(rs_min(&s), 1);
	struct rs_cursor c;
	rs_cursor_init(&c, &s);
	struct rs_key k;
	int64_t got;
	static const int64_t bound[] = { 3, 3, 2, 1 }, key[] = { 2, 3, 4, 6 }, weight[] = { 1, 3, 2, 1 };
	for (int i = 0; i < 4; i++) {
		CU_ASSERT_EQUAL_FATAL(rs_cursor_next(&c, bound[i], &k, &got), 1);
		CU_ASSERT_EQUAL(k.k, key[i]);
		CU_ASSERT_EQUAL(got, weight[i]);
	}
	CU_ASSERT_EQUAL(rs_cursor_next(&c, 1, &k, &got), 0);
	for (uint32_t i = 0; i < 6; i++)
		CU_ASSERT_EQUAL(rs_erase(&s, (struct rs_key){ i + 1, i }), 1);
	CU_ASSERT_EQUAL(rs_min(&s), INT64_MAX);
	rs_fini(&s); /* freed and empty: a cursor gives nothing */
	rs_cursor_init(&c, &s);
	CU_ASSERT_EQUAL(rs_cursor_next(&c, 100, &k, &got), 0);
	rs_fini(&s);
}

/* rs_log against the oracle: keys appended in increasing order (gaps of 0 to 2 in k,
 * idx counting up, so ties of k are broken by it), with and without the position
 * index, erases of present and absent keys (so holes pile up and
 * compactions run), weights 0 to 16; after every operation its sum, sum below a
 * probe, first exceeding a bound and the walk from it to the end. */
static void test_rankset_log_matches_sorted_array(void)
{
	gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
	static struct ref r;
	size_t bad = 0, erased = 0, walked = 0;
	static uint32_t pos_of[4096];
	for (unsigned long seed = 1; seed <= 20; seed++) {
		gsl_rng_set(g, seed);
		struct rs_log s;
		rs_log_init(&s, seed % 2 ? pos_of : NULL); /* erase by the index, or by search */
		r.n = 0;
		struct rs_key next = { -100, 0 };
		for (int op = 0; op < 2000; op++) {
			if (gsl_rng_uniform_int(g, 2) && r.n < 4000 && next.idx < 4096) {
				int64_t w = (int64_t)gsl_rng_uniform_int(g, 17);
				CU_ASSERT_EQUAL_FATAL(rs_log_append(&s, next, w), 0);
				ref_insert(&r, next, w);
				unsigned long gap = gsl_rng_uniform_int(g, 3);
				next = (struct rs_key){ next.k + (int64_t)gap, next.idx + 1 }; /* idx: unique */
			} else {
				struct rs_key k = { next.k - (int64_t)gsl_rng_uniform_int(g, 200),
						    (uint32_t)gsl_rng_uniform_int(g, next.idx + 1) };
				if (r.n && gsl_rng_uniform_int(g, 4))
					k = r.key[gsl_rng_uniform_int(g, r.n)];
				int a = rs_log_erase(&s, k), b = ref_erase(&r, k);
				bad += a != b;
				erased += (size_t)b;
			}
			struct rs_key probe = { next.k - (int64_t)gsl_rng_uniform_int(g, 220), 0 };
			int64_t total = 0;
			for (size_t i = 0; i < r.n; i++)
				total += r.w[i];
			bad += s.total != total || s.size != r.n;
			bad += rs_log_sum_below(&s, probe) != ref_sum_below(&r, probe);
			int64_t x = (int64_t)gsl_rng_uniform_int(g, 200) - 5; /* < 0: overcommitted */
			size_t i = 0;
			int64_t run = 0;
			while (i < r.n && run + r.w[i] <= x)
				run += r.w[i++];
			ptrdiff_t p = rs_log_first_exceeding(&s, x);
			if ((p >= 0) != (i < r.n)) {
				bad++;
				continue;
			}
			for (; p >= 0 && i < r.n; p = rs_log_next(&s, p), i++, walked++) {
				bad += !same_key(s.key[p], r.key[i]) || s.w[p] != r.w[i];
				bad += rs_log_prefix(&s, (size_t)p) != ref_sum_below(&r, r.key[i]);
			}
			bad += p >= 0 || i != r.n; /* both walks end together */
		}
		rs_log_fini(&s);
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT(erased > 1000);
	CU_ASSERT(walked > 10000);
	gsl_rng_free(g);
}

/* By hand: (1,0) 3, (2,0) 0, (2,1) 5, (4,0) 2. Sum 10; below (2,1): 3; first
 * exceeding 3: (2,1) (3 + 0 does not exceed 3, 3 + 0 + 5 does), exceeding 2: (1,0);
 * exceeding 10: none. After erasing (1,0): sum 7, first exceeding 4 is (2,1) again;
 * (1,0) cannot be erased twice; exceeding -2000 (a pool overcommitted by jobs that
 * may not be preempted) is the first live element, (2,0), weight 0 or not. */
static void test_rankset_log_by_hand(void)
{
	struct rs_log s;
	rs_log_init(&s, NULL);
	static const struct rs_key k[] = { { 1, 0 }, { 2, 0 }, { 2, 1 }, { 4, 0 } };
	static const int64_t w[] = { 3, 0, 5, 2 };
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL_FATAL(rs_log_append(&s, k[i], w[i]), 0);
	CU_ASSERT_EQUAL(s.total, 10);
	CU_ASSERT_EQUAL(rs_log_sum_below(&s, k[2]), 3);
	ptrdiff_t p = rs_log_first_exceeding(&s, 3);
	CU_ASSERT(p >= 0 && same_key(s.key[p], k[2]));
	p = rs_log_first_exceeding(&s, 2);
	CU_ASSERT(p >= 0 && same_key(s.key[p], k[0]));
	CU_ASSERT_EQUAL(rs_log_first_exceeding(&s, 10), -1);
	CU_ASSERT_EQUAL(rs_log_erase(&s, k[0]), 1);
	CU_ASSERT_EQUAL(rs_log_erase(&s, k[0]), 0);
	CU_ASSERT_EQUAL(s.total, 7);
	p = rs_log_first_exceeding(&s, 4);
	CU_ASSERT(p >= 0 && same_key(s.key[p], k[2]));
	CU_ASSERT_EQUAL(rs_log_next(&s, -1), 1); /* (2,0): live, weight 0 */
	CU_ASSERT_EQUAL(rs_log_first_exceeding(&s, -2000), 1); /* overcommitted: the first live */
	rs_log_fini(&s);
}

/* The directory of an rs_blocks against its blocks: sums before each block, first
 * keys, sizes, and the bound on the block count. */
static int blocks_consistent(const struct rs_blocks *s)
{
	int ok = s->nb <= 4 * s->size / RS_BLOCK + 1;
	int64_t acc = 0;
	size_t n = 0;
	for (size_t i = 0; i < s->nb; i++) {
		const struct rs_blk *b = s->b[i];
		ok &= b->n >= 1 && b->n <= RS_BLOCK && s->pre[i] == acc && same_key(s->first[i], b->e[0].key);
		for (uint32_t j = 0; j < b->n; j++)
			acc += b->e[j].w;
		n += b->n;
	}
	return ok && n == s->size && acc == s->total && (!s->nb || s->pre[s->nb] == acc);
}

/* rs_blocks (srtf's running jobs) against the oracle: random inserts and erases with
 * keys from a small range (ties of k common), up to 600 elements so blocks split and
 * merge many times; after every operation each query at a random probe and bound
 * (negative bounds: an overcommitted pool), and the directory's invariants. */
static void test_rankset_blocks_match_sorted_array(void)
{
	gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
	static struct ref r;
	size_t bad = 0, erased = 0, max_nb = 0;
	for (unsigned long seed = 1; seed <= 20; seed++) {
		gsl_rng_set(g, seed);
		struct rs_blocks s;
		rs_blocks_init(&s);
		r.n = 0;
		int grow = 1; /* phases of growth and shrinking */
		for (int op = 0; op < 3000; op++) {
			if (op % 500 == 0)
				grow = !grow || op == 0;
			struct rs_key k = { (int64_t)gsl_rng_uniform_int(g, 400) - 50,
					    (uint32_t)gsl_rng_uniform_int(g, 8) };
			if (gsl_rng_uniform_int(g, 10) < (grow ? 7u : 3u) && r.n < 600) {
				if (ref_lower(&r, k) < r.n && same_key(r.key[ref_lower(&r, k)], k))
					continue; /* keys are unique */
				int64_t w = (int64_t)gsl_rng_uniform_int(g, 9); /* 0 too */
				CU_ASSERT_EQUAL_FATAL(rs_blocks_insert(&s, k, w), 0);
				ref_insert(&r, k, w);
			} else {
				if (r.n && gsl_rng_uniform_int(g, 4))
					k = r.key[gsl_rng_uniform_int(g, r.n)]; /* one that is there */
				int a = rs_blocks_erase(&s, k), b = ref_erase(&r, k);
				bad += a != b;
				erased += (size_t)b;
			}
			max_nb = s.nb > max_nb ? s.nb : max_nb;
			bad += !blocks_consistent(&s) || s.size != r.n;
			struct rs_key probe = { (int64_t)gsl_rng_uniform_int(g, 420) - 60,
						(uint32_t)gsl_rng_uniform_int(g, 9) };
			bad += rs_blocks_sum_below(&s, probe) != ref_sum_below(&r, probe);
			for (int incl = 0; incl < 2; incl++) {
				size_t i = 0;
				while (i < r.n && (incl ? rs_key_lt(r.key[i], probe) : !rs_key_lt(probe, r.key[i])))
					i++;
				struct rs_key out;
				int64_t w;
				int got = rs_blocks_next(&s, probe, incl, &out, &w);
				bad += got != (i < r.n) || (got && (!same_key(out, r.key[i]) || w != r.w[i]));
			}
			int64_t x = (int64_t)gsl_rng_uniform_int(g, 2600) - 10;
			size_t i = 0;
			int64_t run = 0;
			while (i < r.n && run + r.w[i] <= x)
				run += r.w[i++];
			struct rs_key out;
			int64_t w;
			int got = rs_blocks_first_exceeding(&s, x, &out, &w);
			bad += got != (i < r.n) || (got && (!same_key(out, r.key[i]) || w != r.w[i]));
		}
		rs_blocks_fini(&s);
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT(erased > 5000);           /* the erase path ran */
	CU_ASSERT(max_nb >= 600 / RS_BLOCK); /* blocks split */
	gsl_rng_free(g);
}

/* By hand, with RS_BLOCK 32: elements (i, i) of weight 1 for i = 1 .. 33; the 33rd
 * finds the only block full and splits it into 1 .. 16 and 17 .. 32, then joins the
 * upper half; (0, 0) of weight 0 joins the lower one (17 elements). Sum below
 * (20, 0): 19 (1 .. 19); first exceeding 20: (21, 21), whose running sum is 21;
 * exceeding -1: (0, 0); exceeding 33: none. Next after (16, 16): (17, 17), the upper
 * block's first. Erasing 33 down to 17 never merges (the lower block holds 17, above
 * RS_BLOCK / 2 = 16 with any other) and the last erase empties the upper block: one
 * block is left, 17 elements of sum 16. */
static void test_rankset_blocks_by_hand(void)
{
	struct rs_blocks s;
	rs_blocks_init(&s);
	CU_ASSERT_EQUAL(rs_blocks_sum_below(&s, (struct rs_key){ 5, 0 }), 0);
	for (uint32_t i = 1; i <= RS_BLOCK + 1; i++)
		CU_ASSERT_EQUAL_FATAL(rs_blocks_insert(&s, (struct rs_key){ i, i }, 1), 0);
	CU_ASSERT_EQUAL_FATAL(rs_blocks_insert(&s, (struct rs_key){ 0, 0 }, 0), 0);
	CU_ASSERT_EQUAL(s.nb, 2);
	CU_ASSERT_EQUAL(s.b[0]->n, RS_BLOCK / 2 + 1); /* 0 .. 16 */
	CU_ASSERT_EQUAL(s.total, RS_BLOCK + 1);
	CU_ASSERT_EQUAL(rs_blocks_sum_below(&s, (struct rs_key){ 20, 0 }), 19); /* 1 .. 19 */
	struct rs_key out;
	int64_t w;
	CU_ASSERT(rs_blocks_first_exceeding(&s, 20, &out, &w) && out.k == 21 && w == 1);
	CU_ASSERT(rs_blocks_first_exceeding(&s, -1, &out, &w) && out.k == 0 && w == 0);
	CU_ASSERT(!rs_blocks_first_exceeding(&s, RS_BLOCK + 1, &out, &w));
	CU_ASSERT(rs_blocks_next(&s, (struct rs_key){ 16, 16 }, 0, &out, &w) && out.k == 17);
	CU_ASSERT(rs_blocks_next(&s, (struct rs_key){ 17, 17 }, 1, &out, &w) && out.k == 17);
	CU_ASSERT(!rs_blocks_next(&s, (struct rs_key){ RS_BLOCK + 1, RS_BLOCK + 1 }, 0, &out, &w));
	for (uint32_t i = RS_BLOCK + 1; i > RS_BLOCK / 2; i--)
		CU_ASSERT_EQUAL(rs_blocks_erase(&s, (struct rs_key){ i, i }), 1);
	CU_ASSERT_EQUAL(rs_blocks_erase(&s, (struct rs_key){ RS_BLOCK, RS_BLOCK }), 0);
	CU_ASSERT_EQUAL(s.nb, 1);
	CU_ASSERT_EQUAL(s.total, RS_BLOCK / 2);
	CU_ASSERT_EQUAL(s.size, RS_BLOCK / 2 + 1);
	CU_ASSERT(blocks_consistent(&s));
	rs_blocks_fini(&s);
}

static CU_TestInfo rankset_tests[] = {
	{ "test_rankset_blocks_match_sorted_array", test_rankset_blocks_match_sorted_array },
	{ "test_rankset_blocks_by_hand", test_rankset_blocks_by_hand },
	{ "test_rankset_log_matches_sorted_array", test_rankset_log_matches_sorted_array },
	{ "test_rankset_log_by_hand", test_rankset_log_by_hand },
	{ "test_rankset_cursor_by_hand", test_rankset_cursor_by_hand },
	{ "test_rankset_matches_sorted_array", test_rankset_matches_sorted_array },
	{ "test_rankset_deep_path_fallback", test_rankset_deep_path_fallback },
	{ "test_rankset_sorted_inserts", test_rankset_sorted_inserts },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo rankset_suite = { "rankset", init_rankset, clean_rankset, NULL, NULL, rankset_tests };
