/* tests/test_capacity.c: capacity that comes and goes (docs/capacity.md): autoscaled
 * node groups against hand-computed timelines, the request rule of each mode, the
 * provisioning draws, the cost of provisioned node-hours, and bad configs. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../experiments/config.h"
#include "../sim/draws.h"
#include "../sim/metrics.h"
#include "testutil.h"

/* One run of variant 0 (quotes ' for ", TRACE for the trace's path) with its event
 * log kept in *log_text (owned by the caller), and its summary. */
static void arun(struct tu_crun *r, const char *config, const char *trace, char **log_text, struct sim_summary *sum)
{
	tu_crun_logged(r, config, trace, log_text);
	CU_ASSERT_EQUAL_FATAL(sim_metrics_summarize(r->t, r->c, sim_engine_now(r->e), sum), 0);
	sim_metrics_set_autoscale(sum, r->t, r->c, r->cfg->variants[0].autoscale, sim_engine_counters(r->e));
}

/* One flavor of nodes of 8 GPUs, price 3600 a node-hour (1 a node-second). */
#define AS_CFG(nodes, autoscale)                                                                        \
	"{'name': 'a', 'trace': {'path': 'TRACE'}, 'cluster': {'flavors': [{'name': 'f', 'nodes': " nodes \
	", 'node': {'gpu': 8}, 'price_per_node_hour': 3600, 'autoscale': " autoscale "}]}, 'output': 'x.h5'}"

/* Scale-up after pending demand, scale-down exactly idle_timeout_s after a node
 * idles, the minimum kept. One node up (min 1, max 3), provisioning 30 s, idle
 * timeout 60 s. a (0 s, 100 s, 8 GPUs) takes node 0. b (10 s, 100 s, 8 GPUs) fits
 * nowhere: one node is asked for at 10 and comes up at 40, b runs 40-140 (waits
 * 30 s). Node 0 is idle from 100 and given back at 160; node 1, idle from 140, is
 * the minimum and stays: c (500 s, 50 s, 4 GPUs) starts at once on it and ends at
 * 550. Node-seconds up: node 0 0-160, node 1 40-550: 160 + 510 = 670, at 1 a
 * node-second 670; the jobs' cost 100 + 100 + 50 x 4/8 = 225; idle 445;
 * useful 8 x 100 x 2 + 4 x 50 = 1800 GPU-s = 0.5 GPU-h: 1340 a useful GPU-hour. */
static void test_scale_up_and_down_hand(void)
{
	struct tu_crun r;
	struct sim_summary s;
	char *log;
	arun(&r, AS_CFG("1", "{'min_nodes': 1, 'max_nodes': 3, 'idle_timeout_s': 60, 'provisioning': {'mean_s': 30}}"),
	     "id,submit_s,duration_s,request\na,0,100,f:gpu=8\nb,10,100,f:gpu=8\nc,500,50,f:gpu=4\n", &log, &s);
	const struct sim_job *b = tu_crun_job(&r, "b"), *c = tu_crun_job(&r, "c");
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(b->start_ns), 40, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(b->end_ns), 140, 1e-9);
	CU_ASSERT_EQUAL(b->alloc.flavor, 0);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(c->start_ns), 500, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(c->end_ns), 550, 1e-9);
	tu_expect_line(log, "[10.000] event=scale_up flavor=f node=1 ready_s=40.000\n");
	tu_expect_line(log, "[40.000] event=node_up flavor=f node=1 how=provisioned\n");
	tu_expect_line(log, "[160.000] event=scale_down flavor=f node=0 idle_s=60.000\n");
	CU_ASSERT_PTR_NULL(strstr(log, "node=1 idle_s")); /* the minimum is never given back */
	const struct sim_engine_counters *k = sim_engine_counters(r.e);
	CU_ASSERT_EQUAL(k->as_requested, 1);
	CU_ASSERT_EQUAL(k->as_removed, 1);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_autoscale_node_h], 670.0 / 3600, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_cost_on_demand], 225, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_cost_autoscaled_idle], 445, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_cost], 670, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_useful_gpu_h], 0.5, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_cost_per_useful_gpu_h], 1340, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_mean_wait_s], 10, 1e-9); /* (0 + 30 + 0) / 3 */
	/* What the capacity cost: the autoscaled node-seconds up, at 1 a node-second. */
	CU_ASSERT_DOUBLE_EQUAL(sim_engine_capacity_cost(r.e), 670, 1e-9);
	free(log);
	tu_crun_free(&r);
}

/* Five jobs of 8 GPUs (100 s each) at 0 on one node up of at most 3; 30 s to
 * provision, idle timeout 60 s. j1 starts at 0; j2..j5 need 4 nodes. */
#define FIVE "id,submit_s,duration_s,request\nj1,0,100,f:gpu=8\nj2,0,100,f:gpu=8\nj3,0,100,f:gpu=8\n" \
	     "j4,0,100,f:gpu=8\nj5,0,100,f:gpu=8\n"

/* Default: the shortfall (4) capped by the room to max_nodes (2): nodes 1 and 2 at
 * 30, j2 and j3 run 30-130; at 30 the room is 0, so nothing more. j4 takes node 0
 * at 100 (j1's end), j5 node 1 at 130; node 2, idle from 130, goes at 190. The run
 * ends at 230 (j5): node-seconds 230 + 200 + 160 = 590. */
static void test_mode_default_max(void)
{
	struct tu_crun r;
	struct sim_summary s;
	char *log;
	arun(&r, AS_CFG("1", "{'min_nodes': 1, 'max_nodes': 3, 'provisioning': {'mean_s': 30}}"), FIVE, &log, &s);
	static const double start[] = { 0, 30, 30, 100, 130 };
	for (int i = 0; i < 5; i++)
		CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(r.t->jobs[i].start_ns), start[i], 1e-9);
	const struct sim_engine_counters *k = sim_engine_counters(r.e);
	CU_ASSERT_EQUAL(k->as_requested, 2); /* never above max_nodes */
	CU_ASSERT_EQUAL(k->as_removed, 1);
	tu_expect_line(log, "[190.000] event=scale_down flavor=f node=2 idle_s=60.000\n");
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(sim_engine_now(r.e)), 230, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(k->as_node_s, 590, 1e-9);
	free(log);
	tu_crun_free(&r);
}

/* Conservative: nodes provisioning at most the nodes up. At 0: 1 up, so 1 asked
 * (node 1, up at 30, j2 runs 30-130); at 30: 2 up, shortfall 3, room 1: node 2, up
 * at 60, j3 runs 60-160. j4 takes node 0 at 100, j5 node 1 at 130; node 2 idle
 * from 160 goes at 220; the run ends at 230. */
static void test_mode_conservative(void)
{
	struct tu_crun r;
	struct sim_summary s;
	char *log;
	arun(&r, AS_CFG("1", "{'min_nodes': 1, 'max_nodes': 3, 'mode': 'conservative', 'provisioning': {'mean_s': 30}}"),
	     FIVE, &log, &s);
	static const double start[] = { 0, 30, 60, 100, 130 };
	for (int i = 0; i < 5; i++)
		CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(r.t->jobs[i].start_ns), start[i], 1e-9);
	tu_expect_line(log, "[0.000] event=scale_up flavor=f node=1 ready_s=30.000\n");
	tu_expect_line(log, "[30.000] event=scale_up flavor=f node=2 ready_s=60.000\n");
	tu_expect_line(log, "[220.000] event=scale_down flavor=f node=2 idle_s=60.000\n");
	CU_ASSERT_EQUAL(sim_engine_counters(r.e)->as_requested, 2);
	CU_ASSERT_EQUAL(sim_engine_counters(r.e)->as_removed, 1);
	free(log);
	tu_crun_free(&r);
}

/* Aggressive: any shortfall asks for every node up to max_nodes. One node up of at
 * most 4; b (10 s) fits nowhere: 3 nodes asked at 10, up at 40; b takes node 1;
 * nodes 2 and 3, idle from 40, go at 100; the run ends at 140 (b's end):
 * node-seconds 140 + 100 + 60 + 60 = 360. With min_nodes 0 and no node at the
 * start, a lone job waits exactly the provisioning delay. */
static void test_mode_aggressive_and_min_zero(void)
{
	struct tu_crun r;
	struct sim_summary s;
	char *log;
	arun(&r, AS_CFG("1", "{'max_nodes': 4, 'mode': 'aggressive', 'provisioning': {'mean_s': 30}}"),
	     "id,submit_s,duration_s,request\na,0,100,f:gpu=8\nb,10,100,f:gpu=8\n", &log, &s);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(tu_crun_job(&r, "b")->start_ns), 40, 1e-9);
	CU_ASSERT_EQUAL(sim_engine_counters(r.e)->as_requested, 3);
	CU_ASSERT_EQUAL(sim_engine_counters(r.e)->as_removed, 2);
	tu_expect_line(log, "[100.000] event=scale_down flavor=f node=2 idle_s=60.000\n");
	tu_expect_line(log, "[100.000] event=scale_down flavor=f node=3 idle_s=60.000\n");
	CU_ASSERT_DOUBLE_EQUAL(sim_engine_counters(r.e)->as_node_s, 360, 1e-9);
	free(log);
	tu_crun_free(&r);

	arun(&r, AS_CFG("0", "{'min_nodes': 0, 'max_nodes': 2, 'provisioning': {'mean_s': 45}}"),
	     "id,submit_s,duration_s,request\na,5,100,f:gpu=16\n", &log, &s);
	const struct sim_job *a = tu_crun_job(&r, "a");
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(a->start_ns), 50, 1e-9); /* 2 nodes for the 16-GPU job */
	CU_ASSERT_EQUAL(a->state, SIM_JOB_COMPLETED);
	CU_ASSERT_EQUAL(sim_engine_counters(r.e)->as_requested, 2);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_cost_autoscaled_idle], 0, 1e-9); /* busy from arrival to the end */
	free(log);
	tu_crun_free(&r);
}

/* Billing starts at the first submit: two nodes up (min 1) idle from 0; node 0 goes
 * at 60, node 1 is the minimum. a (1000 s, 100 s) runs on node 1: 100 node-seconds,
 * all busy. */
static void test_bill_from_first_submit(void)
{
	struct tu_crun r;
	struct sim_summary s;
	char *log;
	arun(&r, AS_CFG("2", "{'min_nodes': 1, 'max_nodes': 2}"), "id,submit_s,duration_s,request\na,1000,100,f:gpu=8\n",
	     &log, &s);
	tu_expect_line(log, "[60.000] event=scale_down flavor=f node=0 idle_s=60.000\n");
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(tu_crun_job(&r, "a")->start_ns), 1000, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(sim_engine_counters(r.e)->as_node_s, 100, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_cost_autoscaled_idle], 0, 1e-9);
	CU_ASSERT_EQUAL(sim_engine_counters(r.e)->as_removed, 1);
	free(log);
	tu_crun_free(&r);
}

/* Small jobs are packed onto new nodes by GPUs, next fit: 3, 3 and 4 GPUs on one
 * busy node of 8 need 2 new nodes (3 + 3 on one, 4 on the next), not 3. */
static void test_packing_next_fit(void)
{
	struct tu_crun r;
	struct sim_summary s;
	char *log;
	arun(&r, AS_CFG("1", "{'max_nodes': 5, 'provisioning': {'mean_s': 10}}"),
	     "id,submit_s,duration_s,request\nbig,0,100,f:gpu=8\nx,1,50,f:gpu=3\ny,1,50,f:gpu=3\nz,1,50,f:gpu=4\n",
	     &log, &s);
	CU_ASSERT_EQUAL(sim_engine_counters(r.e)->as_requested, 2);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(tu_crun_job(&r, "z")->start_ns), 11, 1e-9);
	free(log);
	tu_crun_free(&r);
}

/* Exponential provisioning: the same seed gives the same run, bit for bit; another
 * seed other delays (so other starts). Node failures on another flavor draw from
 * their own streams and move no provisioning delay (the scale-up log lines match). */
static void test_provisioning_seeded(void)
{
	static const char *cfg_plain =
		"{'name': 'p', 'trace': {'path': 'TRACE'}, 'cluster': {'flavors': [{'name': 'f', 'nodes': 0,"
		" 'node': {'gpu': 8}, 'autoscale': {'max_nodes': 8, 'provisioning': {'distribution': 'exponential',"
		" 'mean_s': 30}}}, {'name': 'g', 'nodes': 2, 'node': {'gpu': 8}}]}, 'output': 'x.h5'}";
	static const char *cfg_faulty =
		"{'name': 'p', 'trace': {'path': 'TRACE'}, 'cluster': {'flavors': [{'name': 'f', 'nodes': 0,"
		" 'node': {'gpu': 8}, 'autoscale': {'max_nodes': 8, 'provisioning': {'distribution': 'exponential',"
		" 'mean_s': 30}}}, {'name': 'g', 'nodes': 2, 'node': {'gpu': 8}}], 'failures': {'flavors': {'g':"
		" {'mtbf_h': 0.01}}}}, 'output': 'x.h5'}";
	char trace[2048];
	int o = sprintf(trace, "id,submit_s,duration_s,request\n");
	for (int i = 0; i < 12; i++)
		o += sprintf(trace + o, "j%d,%d,%d,f:gpu=8\n", i, 40 * i, 100 + 7 * i);
	double starts[3][12];
	char *logs[3];
	uint64_t seeds[3] = { 1, 1, 2 };
	for (int k = 0; k < 3; k++) {
		FILE *log = tmpfile();
		CU_ASSERT_PTR_NOT_NULL_FATAL(log);
		struct tu_crun r;
		tu_crun_with(&r, cfg_plain, trace, &(struct tu_crun_opts){ .seed = seeds[k], .log = log });
		for (int i = 0; i < 12; i++)
			starts[k][i] = sim_time_to_s(r.t->jobs[i].start_ns);
		tu_crun_free(&r);
		long n = ftell(log);
		logs[k] = calloc((size_t)n + 1, 1);
		rewind(log);
		CU_ASSERT_EQUAL(fread(logs[k], 1, (size_t)n, log), (size_t)n);
		fclose(log);
	}
	CU_ASSERT_EQUAL(memcmp(starts[0], starts[1], sizeof starts[0]), 0);
	CU_ASSERT_STRING_EQUAL(logs[0], logs[1]);
	CU_ASSERT_NOT_EQUAL(memcmp(starts[0], starts[2], sizeof starts[0]), 0);
	/* with failures on g: the scale-up lines (time, node, ready time) are those of seed 1 */
	FILE *log = tmpfile();
	CU_ASSERT_PTR_NOT_NULL_FATAL(log);
	struct tu_crun r;
	tu_crun_with(&r, cfg_faulty, trace, &(struct tu_crun_opts){ .seed = 1, .log = log });
	CU_ASSERT(sim_engine_counters(r.e)->nodes_failed > 0);
	tu_crun_free(&r);
	long n = ftell(log);
	char *flog = calloc((size_t)n + 1, 1);
	rewind(log);
	CU_ASSERT_EQUAL(fread(flog, 1, (size_t)n, log), (size_t)n);
	fclose(log);
	size_t ups = 0;
	for (char *line = strtok(logs[0], "\n"); line; line = strtok(NULL, "\n"))
		if (strstr(line, "event=scale_up")) {
			ups++;
			CU_ASSERT_PTR_NOT_NULL(strstr(flog, line));
		}
	CU_ASSERT(ups >= 1);
	free(flog);
	for (int k = 0; k < 3; k++)
		free(logs[k]);
}

/* The request rule of each mode on its own (sim/autoscale.h). */
static void test_request_rule(void)
{
	/* shortfall, up, provisioning, max */
	CU_ASSERT_EQUAL(sim_autoscale_request(SIM_AS_DEFAULT, 4, 1, 0, 3), 2);
	CU_ASSERT_EQUAL(sim_autoscale_request(SIM_AS_DEFAULT, 1, 1, 0, 3), 1);
	CU_ASSERT_EQUAL(sim_autoscale_request(SIM_AS_DEFAULT, 0, 1, 0, 3), 0);
	CU_ASSERT_EQUAL(sim_autoscale_request(SIM_AS_DEFAULT, 5, 2, 1, 3), 0);
	CU_ASSERT_EQUAL(sim_autoscale_request(SIM_AS_CONSERVATIVE, 10, 4, 1, 100), 3);
	CU_ASSERT_EQUAL(sim_autoscale_request(SIM_AS_CONSERVATIVE, 10, 0, 0, 100), 1);
	CU_ASSERT_EQUAL(sim_autoscale_request(SIM_AS_CONSERVATIVE, 10, 0, 1, 100), 0);
	CU_ASSERT_EQUAL(sim_autoscale_request(SIM_AS_AGGRESSIVE, 1, 1, 0, 4), 3);
	CU_ASSERT_EQUAL(sim_autoscale_request(SIM_AS_AGGRESSIVE, 0, 1, 0, 4), 0);
	CU_ASSERT_EQUAL(sim_as_mode_from_name("conservative"), SIM_AS_CONSERVATIVE);
	CU_ASSERT_EQUAL(sim_as_mode_from_name("Default"), -1);
}

/* Exponential delays: the k-th draw of a flavor depends on (seed, flavor, k) only,
 * so drawing others first, or in another order, changes none; the mean of 20,000
 * draws is within 3% of the law's (the standard error is 0.7%). */
static void test_provisioning_draws(void)
{
	struct sim_autoscale *a = sim_autoscale_create(2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	for (int f = 0; f < 2; f++)
		a->fl[f] = (struct sim_as_flavor){ .on = 1, .law = SIM_AS_EXPONENTIAL, .provision_s = 120, .max_nodes = 9 };
	struct sim_autoscale_run *r1 = sim_autoscale_run_create(a, 7), *r2 = sim_autoscale_run_create(a, 7);
	struct sim_autoscale_run *r3 = sim_autoscale_run_create(a, 8);
	sim_time_t d5 = sim_autoscale_draw_delay(r1, 0, 5);
	for (uint64_t k = 0; k < 5; k++)
		(void)sim_autoscale_draw_delay(r2, 1, k);
	CU_ASSERT_EQUAL(sim_autoscale_draw_delay(r2, 0, 5), d5);
	CU_ASSERT_NOT_EQUAL(sim_autoscale_draw_delay(r3, 0, 5), d5);
	CU_ASSERT_NOT_EQUAL(sim_autoscale_draw_delay(r1, 1, 5), d5);
	double sum = 0;
	for (uint64_t k = 0; k < 20000; k++)
		sum += sim_time_to_s(sim_autoscale_draw_delay(r1, 0, k));
	CU_ASSERT(fabs(sum / 20000 / 120 - 1) < 0.03);
	a->fl[0].law = SIM_AS_FIXED;
	CU_ASSERT_EQUAL(sim_autoscale_draw_delay(r1, 0, 3), 120 * SIM_NS_PER_S);
	sim_autoscale_run_destroy(r1);
	sim_autoscale_run_destroy(r2);
	sim_autoscale_run_destroy(r3);
	sim_autoscale_destroy(a);
}

static void expect_config_error(const char *config, const char *want)
{
	tu_expect_config_error("bad_capacity.json", config, want);
}

#define BAD_AS(nodes, autoscale, extra)                                                               \
	"{'name': 'b', 'trace': {'path': 't.csv'}, 'cluster': {'flavors': [{'name': 'a', 'nodes': " nodes \
	", 'node': {'gpu': 8}, 'autoscale': " autoscale "}]" extra "}}"

static void test_bad_autoscale_configs(void)
{
	expect_config_error(BAD_AS("2", "{'min_nodes': 3, 'max_nodes': 2}", ""),
			    "$.cluster.flavors[0].autoscale.min_nodes: expected integer <= max_nodes (2), got 3");
	expect_config_error(BAD_AS("1", "{'max_nodes': 2, 'provisioning': {'mean_s': -5}}", ""),
			    "$.cluster.flavors[0].autoscale.provisioning.mean_s: expected number >= 0, got -5");
	expect_config_error(BAD_AS("1", "{'max_nodes': 2, 'idle_timeout_s': -1}", ""),
			    "$.cluster.flavors[0].autoscale.idle_timeout_s: expected number >= 0, got -1");
	expect_config_error(BAD_AS("1", "{'min_nodes': 1}", ""),
			    "$.cluster.flavors[0].autoscale.max_nodes: expected integer >= 1 (required), got nothing");
	expect_config_error(BAD_AS("5", "{'min_nodes': 1, 'max_nodes': 4}", ""),
			    "$.cluster.flavors[0].nodes: expected integer in [min_nodes, max_nodes] = [1, 4]");
	expect_config_error(BAD_AS("1", "{'max_nodes': 2, 'mode': 'fast'}", ""),
			    "$.cluster.flavors[0].autoscale.mode: expected \"default\", \"conservative\" or "
			    "\"aggressive\", got \"fast\"");
	expect_config_error(BAD_AS("1", "{'max_nodes': 2, 'provisioning': {'distribution': 'gamma', 'mean_s': 1}}", ""),
			    "$.cluster.flavors[0].autoscale.provisioning.distribution: expected \"fixed\" or "
			    "\"exponential\", got \"gamma\"");
	expect_config_error(BAD_AS("1", "{'max_nodes': 2, 'cooldown_s': 1}", ""),
			    "$.cluster.flavors[0].autoscale.cooldown_s: unknown key");
	expect_config_error(BAD_AS("1", "{'max_nodes': 2}", ", 'failures': {'mtbf_h': 10}"),
			    "$.cluster.failures: expected a flavor without autoscale");
}

/* The command line refuses min > max with exit 2, its place in the message, and
 * writes nothing. */
static void test_bad_autoscale_exit_2(void)
{
	char cfg[1024], args[600], *out = NULL;
	const char *tr = tu_write_file("capacity_t.csv", "id,submit_s,duration_s,request\nj,0,10,a:gpu=1\n");
	snprintf(cfg, sizeof cfg,
		 "{\"name\": \"c\", \"trace\": {\"path\": \"%s\"}, \"cluster\": {\"flavors\": [{\"name\": \"a\", "
		 "\"nodes\": 1, \"node\": {\"gpu\": 8}, \"autoscale\": {\"min_nodes\": 4, \"max_nodes\": 2}}]},"
		 " \"output\": \"%s/capacity_bad.h5\"}",
		 tr, tu_tmpdir());
	snprintf(args, sizeof args, "run %s", tu_write_file("capacity_bad.json", cfg));
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "capacity_bad.json: $.cluster.flavors[0].autoscale.min_nodes: "
						  "expected integer <= max_nodes (2), got 4"));
	char h5[600];
	snprintf(h5, sizeof h5, "%s/capacity_bad.h5", tu_tmpdir());
	CU_ASSERT_FALSE(tu_exists(h5));
	free(out);
}


/* ---- spot ---- */

/* One spot node of 8 GPUs (price 3600 a node-hour), a notice at 100 s, taken 120 s
 * later (220), back 60 s after (280); checkpoints cost overhead_s to write and 20 s
 * to restore. */
#define SPOT_CFG(overhead, extra_flavor, fallback)                                                      \
	"{'name': 's', 'trace': {'path': 'TRACE'}, 'cluster': {'flavors': [{'name': 's', 'nodes': 1,"    \
	" 'node': {'gpu': 8}, 'price_per_node_hour': 3600, 'spot': {'times_s': [100], 'notice_s': 120,"   \
	" 'outage_s': 60}}" extra_flavor "]}, 'policies': {'fallback': '" fallback "'}, 'jobs': "           \
	"{'checkpoint': {'overhead_s': " overhead ", 'restore_s': 20}}, 'output': 'x.h5'}"

/* A checkpoint inside the notice: j (300 s of work, a checkpoint every 50 s, 10 s
 * to write) wrote one at 50-60; at the notice (100) it has done 50 + 40 = 90 s of
 * work, writes a checkpoint (100-110) and stops at 110, losing nothing. Its node is
 * back at 280: it restarts there, restore 20 + 210 s of work + 4 checkpoints of 10
 * = 270 s, to 550. Overheads: 10 + 10 (the notice's) + 40 = 60 s. */
static void test_spot_checkpoint_inside_notice(void)
{
	struct tu_crun r;
	struct sim_summary s;
	char *log;
	arun(&r, SPOT_CFG("10", "", "strict"), "id,submit_s,duration_s,request,checkpoint_s\nj,0,300,s:gpu=8,50\n",
	     &log, &s);
	const struct sim_job *j = tu_crun_job(&r, "j");
	tu_expect_line(log, "[100.000] event=spot_notice flavor=s node=0 taken_s=220.000\n");
	tu_expect_line(log, "[110.000] job=j event=interrupt reason=spot lost_gpu_s=0.000\n");
	tu_expect_line(log, "[280.000] event=node_up flavor=s node=0 how=spot\n");
	CU_ASSERT_EQUAL(j->state, SIM_JOB_COMPLETED);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(j->last_start_ns), 280, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(j->end_ns), 550, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(j->lost_gpu_s, 0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(j->ckpt_overhead_s, 60, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(j->restore_s, 20, 1e-9);
	CU_ASSERT_EQUAL(j->interruptions, 1);
	const struct sim_engine_counters *k = sim_engine_counters(r.e);
	CU_ASSERT_EQUAL(k->spot_notices, 1);
	CU_ASSERT_EQUAL(k->spot_stops, 1);
	CU_ASSERT_EQUAL(k->spot_saved, 1);
	/* held 110 + 270 s on spot at 1 a node-second */
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_cost], 380, 1e-9);
	free(log);
	tu_crun_free(&r);
	tu_crun(&r, SPOT_CFG("10", "", "strict"), "id,submit_s,duration_s,request,checkpoint_s\nj,0,300,s:gpu=8,50\n");
	sim_metrics_summarize(r.t, r.c, sim_engine_now(r.e), &s);
	sim_metrics_set_spot(&s, r.t, r.c, r.cfg->variants[0].spot, sim_engine_counters(r.e));
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_cost_spot], 380, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_cost_on_demand], 0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_spot_saved], 1, 0);
	tu_crun_free(&r);
}

/* No checkpoint inside the notice: writing one takes 130 s > 120. j runs to the
 * taking (220) and keeps only its periodic checkpoint (50 s of work, written
 * 50-180): it loses 220 - 180 = 40 s x 8 GPUs = 320 GPU-s. It restarts at 280:
 * restore 20 + 250 s + 4 x 130 = 790 s, to 1070. A job without checkpoints (k)
 * loses its whole 220 s (1760 GPU-s) and runs its 300 s again from 280 (no restore),
 * to 580. */
static void test_spot_no_checkpoint_inside_notice(void)
{
	struct tu_crun r;
	struct sim_summary s;
	char *log;
	arun(&r, SPOT_CFG("130", "", "strict"), "id,submit_s,duration_s,request,checkpoint_s\nj,0,300,s:gpu=8,50\n",
	     &log, &s);
	const struct sim_job *j = tu_crun_job(&r, "j");
	tu_expect_line(log, "[220.000] job=j event=interrupt reason=spot lost_gpu_s=320.000\n");
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(j->end_ns), 1070, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(j->lost_gpu_s, 320, 1e-9);
	CU_ASSERT_EQUAL(sim_engine_counters(r.e)->spot_saved, 0);
	CU_ASSERT_DOUBLE_EQUAL(sim_engine_counters(r.e)->spot_lost_gpu_s, 320, 1e-9);
	free(log);
	tu_crun_free(&r);

	arun(&r, SPOT_CFG("10", "", "strict"), "id,submit_s,duration_s,request\nk,0,300,s:gpu=8\n", &log, &s);
	const struct sim_job *k = tu_crun_job(&r, "k");
	tu_expect_line(log, "[220.000] job=k event=interrupt reason=spot lost_gpu_s=1760.000\n");
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(k->end_ns), 580, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(k->restore_s, 0, 1e-9);
	free(log);
	tu_crun_free(&r);
}

/* Fallback to on-demand: j lists spot first, then the on-demand flavor od (price
 * 7200); under first_fit its restart at 110 takes od at once (the spot node is away):
 * restore 20 + 210 + 40 = 270 s, to 380. It ran on od last, so its whole cost (380 s
 * held x 2 a node-second = 760) is on-demand. */
static void test_spot_fallback_on_demand(void)
{
	struct tu_crun r;
	tu_crun(&r,
		SPOT_CFG("10", ", {'name': 'od', 'nodes': 1, 'node': {'gpu': 8}, 'price_per_node_hour': 7200}",
			 "first_fit"),
		"id,submit_s,duration_s,prefs,checkpoint_s\nj,0,300,s:gpu=8;od:gpu=8,50\n");
	const struct sim_job *j = tu_crun_job(&r, "j");
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(j->last_start_ns), 110, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(j->end_ns), 380, 1e-9);
	CU_ASSERT_EQUAL(j->alloc.flavor, 1);
	struct sim_summary s;
	sim_metrics_summarize(r.t, r.c, sim_engine_now(r.e), &s);
	sim_metrics_set_spot(&s, r.t, r.c, r.cfg->variants[0].spot, sim_engine_counters(r.e));
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_cost_on_demand], 760, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_cost_spot], 0, 1e-9);
	tu_crun_free(&r);
}

/* Rate-driven notices: the k-th time to a node's notice depends on (seed, flavor,
 * node, k) only; the mean of 20,000 draws is within 3% of 1 / rate. */
static void test_spot_draws(void)
{
	struct sim_spot *sp = sim_spot_create(2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
	sp->fl[0] = (struct sim_spot_flavor){ .on = 1, .rate_per_node_h = 2 };
	sp->fl[1] = (struct sim_spot_flavor){ .on = 1 };
	struct sim_draws s5, s6;
	CU_ASSERT_EQUAL_FATAL(sim_draws_init(&s5, 5), 0);
	CU_ASSERT_EQUAL_FATAL(sim_draws_init(&s6, 6), 0);
	sim_time_t d = sim_spot_draw_uptime(sp, &s5, 0, 3, 7);
	CU_ASSERT_EQUAL(sim_spot_draw_uptime(sp, &s6, 0, 3, 6), sim_spot_draw_uptime(sp, &s6, 0, 3, 6));
	CU_ASSERT_EQUAL(sim_spot_draw_uptime(sp, &s5, 0, 3, 7), d); /* other draws between change nothing */
	CU_ASSERT_NOT_EQUAL(sim_spot_draw_uptime(sp, &s5, 0, 4, 7), d);
	CU_ASSERT_NOT_EQUAL(sim_spot_draw_uptime(sp, &s6, 0, 3, 7), d);
	CU_ASSERT_EQUAL(sim_spot_draw_uptime(sp, &s5, 1, 3, 7), SIM_TIME_NONE); /* no rate */
	double sum = 0;
	for (uint64_t k = 0; k < 20000; k++)
		sum += sim_time_to_s(sim_spot_draw_uptime(sp, &s5, 0, 0, k));
	CU_ASSERT(fabs(sum / 20000 / 1800 - 1) < 0.03);
	sim_draws_fini(&s5);
	sim_draws_fini(&s6);
	sim_spot_destroy(sp);
}

#define BAD_SPOT(price, spot, extra)                                                                     \
	"{'name': 'b', 'trace': {'path': 't.csv'}, 'cluster': {'flavors': [{'name': 'a', 'nodes': 1,"      \
	" 'node': {'gpu': 8}" price ", 'spot': " spot "}]" extra "}}"

static void test_bad_spot_configs(void)
{
	expect_config_error(BAD_SPOT("", "{'times_s': [10]}", ""),
			    "$.cluster.flavors[0].price_per_node_hour: expected number > 0 for a spot flavor");
	expect_config_error(BAD_SPOT(", 'price_per_node_hour': 1", "{'notice_s': 60}", ""),
			    "$.cluster.flavors[0].spot: expected \"rate_per_node_h\" or \"times_s\"");
	expect_config_error(BAD_SPOT(", 'price_per_node_hour': 1", "{'times_s': [10], 'notice_s': -1}", ""),
			    "$.cluster.flavors[0].spot.notice_s: expected number >= 0, got -1");
	expect_config_error(BAD_SPOT(", 'price_per_node_hour': 1", "{'times_s': [10, -4]}", ""),
			    "$.cluster.flavors[0].spot.times_s[1]: expected number >= 0, got -4");
	expect_config_error(BAD_SPOT(", 'price_per_node_hour': 1", "{'rate_per_node_h': -2}", ""),
			    "$.cluster.flavors[0].spot.rate_per_node_h: expected number >= 0, got -2");
	expect_config_error(BAD_SPOT(", 'price_per_node_hour': 1", "{'times_s': [1]}", ", 'failures': {'mtbf_h': 1}"),
			    "$.cluster.failures: expected a flavor without spot");
}


/* max_wait_s (SageMaker MaxWaitTimeInSeconds) counts waits and interruptions: the
 * spot job of test_spot_checkpoint_inside_notice would complete at 550. With 500 it
 * is ended at 500, running since 280 (restore to 300, checkpoints at 350, 410, 470:
 * 150 s of work kept, the 20 s since the last lost, x 8 GPUs = 160 GPU-s); with 600
 * it completes. A queued job (q, behind a 300 s job on the only node) with 200 s
 * ends at 210 without having started. */
static void test_max_wait(void)
{
	struct tu_crun r;
	struct sim_summary s;
	char *log;
	arun(&r, SPOT_CFG("10", "", "strict"),
	     "id,submit_s,duration_s,request,checkpoint_s,max_wait_s\nj,0,300,s:gpu=8,50,500\n", &log, &s);
	const struct sim_job *j = tu_crun_job(&r, "j");
	CU_ASSERT_EQUAL(j->state, SIM_JOB_MAX_WAIT_EXCEEDED);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(j->end_ns), 500, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(j->lost_gpu_s, 160, 1e-9);
	tu_expect_line(log, "[500.000] job=j event=max_wait_exceeded lost_gpu_s=160.000\n");
	CU_ASSERT_DOUBLE_EQUAL(s.v[SIM_SUM_max_wait_exceeded], 1, 0);
	free(log);
	tu_crun_free(&r);

	tu_crun(&r, SPOT_CFG("10", "", "strict"),
		"id,submit_s,duration_s,request,checkpoint_s,max_wait_s\nj,0,300,s:gpu=8,50,600\n");
	CU_ASSERT_EQUAL(tu_crun_job(&r, "j")->state, SIM_JOB_COMPLETED);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(sim_engine_now(r.e)), 550, 1e-9); /* the withdrawn limit ends nothing */
	tu_crun_free(&r);

	arun(&r, AS_CFG("1", "{'min_nodes': 1, 'max_nodes': 1}"),
	     "id,submit_s,duration_s,request,max_wait_s\nlong,0,300,f:gpu=8,\nq,10,50,f:gpu=8,200\n", &log, &s);
	const struct sim_job *q = tu_crun_job(&r, "q");
	CU_ASSERT_EQUAL(q->state, SIM_JOB_MAX_WAIT_EXCEEDED);
	CU_ASSERT_EQUAL(q->start_ns, SIM_TIME_NONE);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(q->end_ns), 210, 1e-9);
	tu_expect_line(log, "[210.000] job=q event=max_wait_exceeded lost_gpu_s=0.000 (queued)\n");
	free(log);
	tu_crun_free(&r);
}

/* A queued job ended by its max wait leaves the queue of a policy that keeps one by
 * cause (easy_backfill): the job behind it (r, 10 s after q) starts at 300 when the
 * node frees, and q is never started. */
static void test_max_wait_queued_backfill(void)
{
	struct tu_crun r;
	tu_crun(&r,
		"{'name': 'm', 'trace': {'path': 'TRACE'}, 'cluster': {'flavors': [{'name': 'f', 'nodes': 1,"
		" 'node': {'gpu': 8}}]}, 'policies': {'order': 'easy_backfill'}, 'output': 'x.h5'}",
		"id,submit_s,duration_s,request,max_wait_s\nlong,0,300,f:gpu=8,\nq,10,50,f:gpu=8,200\nr,20,50,f:gpu=8,\n");
	CU_ASSERT_EQUAL(tu_crun_job(&r, "q")->state, SIM_JOB_MAX_WAIT_EXCEEDED);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(tu_crun_job(&r, "r")->start_ns), 300, 1e-9);
	CU_ASSERT_EQUAL(tu_crun_job(&r, "r")->state, SIM_JOB_COMPLETED);
	tu_crun_free(&r);
}

/* max_wait_s must exceed the job's run time limit (estimate_s, else duration_s):
 * refused with its line and column, exit 2. */
static void test_bad_max_wait(void)
{
	char args[600], *out = NULL;
	const char *tr = tu_write_file("maxwait_bad.csv", "id,submit_s,duration_s,request,estimate_s,max_wait_s\n"
							  "a,0,300,x:gpu=1,,300\nb,0,100,x:gpu=1,400,350\nc,0,100,x:gpu=1,,101\n");
	snprintf(args, sizeof args, "trace validate %s", tr);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 2);
	CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "maxwait_bad.csv:2: column max_wait_s: expected seconds > the job's run "
						  "time limit (estimate_s, else duration_s: 300 s), found '300'"));
	CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "maxwait_bad.csv:3: column max_wait_s: expected seconds > the job's run "
						  "time limit (estimate_s, else duration_s: 400 s), found '350'"));
	CU_ASSERT_PTR_NULL(out && strstr(out, "maxwait_bad.csv:4"));
	free(out);
}

/* ---- training plans ---- */

#define PLAN_CFG(nodes, windows)                                                                        \
	"{'name': 't', 'trace': {'path': 'TRACE'}, 'cluster': {'flavors': [{'name': 'p', 'nodes': " nodes \
	", 'node': {'gpu': 8}, 'training_plan': true, 'reservations': " windows "}]}, 'output': 'x.h5'}"

/* The 30-minute cut-off: a one-day plan [3600, 90000) takes its instances back at
 * 88200. a (90,000 s, no checkpoints) starts when the plan opens and is stopped at
 * 88200 (8 x 84600 GPU-s lost); no plan is left, so it ends unfinished. */
static void test_plan_cutoff(void)
{
	struct tu_crun r;
	struct sim_summary s;
	char *log;
	arun(&r, PLAN_CFG("1", "[{'start_s': 3600, 'end_s': 90000}]"), "id,submit_s,duration_s,request\na,0,90000,p:gpu=8\n",
	     &log, &s);
	const struct sim_job *a = tu_crun_job(&r, "a");
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(a->start_ns), 3600, 1e-9);
	tu_expect_line(log, "[88200.000] job=a event=interrupt reason=capacity_removed lost_gpu_s=676800.000\n");
	CU_ASSERT_EQUAL(a->interruptions, 1);
	CU_ASSERT_EQUAL(a->state, SIM_JOB_UNFINISHED);
	free(log);
	tu_crun_free(&r);
}

/* The 2-day wait limit, its clock paused outside the plans: plans [0, 1 d) and
 * [2 d, 5 d), each ending 30 min early (84600 and 430200). hog holds the one node in
 * both. w (submit 10) counts 84600 - 10 = 84590 s pending in the first plan; the
 * 88210 s left of its 172800 run from the second plan's opening (172800): it gives
 * up at 261010 (without the pause it would have at 172810). */
static void test_plan_wait_limit(void)
{
	struct tu_crun r;
	tu_crun(&r, PLAN_CFG("1", "[{'start_s': 0, 'end_s': 86400}, {'start_s': 172800, 'end_s': 432000}]"),
		"id,submit_s,duration_s,request\nhog,0,400000,p:gpu=8\nw,10,100,p:gpu=8\n");
	const struct sim_job *w = tu_crun_job(&r, "w");
	CU_ASSERT_EQUAL(w->state, SIM_JOB_TIMED_OUT_PENDING);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(w->end_ns), 261010, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(tu_crun_job(&r, "hog")->last_start_ns), 172800, 1e-9);
	tu_crun_free(&r);
}

static void test_bad_plan_configs(void)
{
	expect_config_error("{'name': 'b', 'trace': {'path': 't.csv'}, 'cluster': {'flavors': [{'name': 'a', 'nodes': 3,"
			    " 'node': {'gpu': 8}, 'training_plan': true, 'reservations': [{'start_s': 0, 'end_s': 86400}]}]}}",
			    "$.cluster.flavors[0].nodes: expected 1, 2, 4, 8, 16, 32 or 64 instances for a training plan, "
			    "got 3");
	expect_config_error("{'name': 'b', 'trace': {'path': 't.csv'}, 'cluster': {'flavors': [{'name': 'a', 'nodes': 4,"
			    " 'node': {'gpu': 8}, 'training_plan': true, 'reservations': [{'start_s': 0, 'end_s': 17280000}]}]}}",
			    "$.cluster.flavors[0].reservations[0]: expected a training plan of 1 to 182 days, got 200 days");
	expect_config_error("{'name': 'b', 'trace': {'path': 't.csv'}, 'cluster': {'flavors': [{'name': 'a', 'nodes': 128,"
			    " 'node': {'gpu': 8}, 'training_plan': true, 'reservations': [{'start_s': 0, 'end_s': 86400}]}]}}",
			    "$.cluster.flavors[0].nodes: expected 1, 2, 4, 8, 16, 32 or 64 instances");
	expect_config_error("{'name': 'b', 'trace': {'path': 't.csv'}, 'cluster': {'flavors': [{'name': 'a', 'nodes': 4,"
			    " 'node': {'gpu': 8}, 'training_plan': true}]}}",
			    "$.cluster.flavors[0].training_plan: expected \"reservations\" beside it");
	expect_config_error("{'name': 'b', 'trace': {'path': 't.csv'}, 'cluster': {'flavors': [{'name': 'a', 'nodes': 4,"
			    " 'node': {'gpu': 8}, 'training_plan': 'yes', 'reservations': [{'start_s': 0, 'end_s': 86400}]}]}}",
			    "$.cluster.flavors[0].training_plan: expected true or false, got \"yes\"");
}

/* cost_capacity (docs/capacity.md, "What the capacity costs") on fixed flavors.
 * Two flavors of 8-GPU nodes: f, 3 nodes at 3600 a node-hour (1 a node-second), and
 * g, 1 node without a price. a (10 s, 100 s, 8 GPUs on f) and b (50 s, 20 s, on g):
 * the run spans 10-110 s, so f costs 3 nodes x 100 s = 300 though one node was
 * busy, and g nothing; the jobs' own cost is 100. */
static void test_capacity_cost_fixed(void)
{
	struct tu_crun r;
	tu_crun_with(&r,
		     "{'name': 'a', 'trace': {'path': 'TRACE'}, 'cluster': {'flavors': [{'name': 'f', 'nodes': 3,"
		     " 'node': {'gpu': 8}, 'price_per_node_hour': 3600}, {'name': 'g', 'nodes': 1, 'node': {'gpu': 8}}]},"
		     " 'output': 'x.h5'}",
		     "id,submit_s,duration_s,request\na,10,100,f:gpu=8\nb,50,20,g:gpu=8\n",
		     &(struct tu_crun_opts){ .seed = 1 });
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(sim_engine_now(r.e)), 110, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(sim_engine_capacity_cost(r.e), 300, 1e-9);
	tu_crun_free(&r);
}

/* A flavor with node failures is billed for its nodes and spares, failed or not:
 * 2 nodes + 1 spare at 1 a node-second; node failures every 250 s of operating
 * time (fixed), the spare replacing a failed node 10 s later, a repair taking an
 * hour. k (0 s, 1000 s of work, 8 GPUs, a checkpoint every 100 s) restarts after
 * each failure; whatever the timeline, the bill is 3 x the run's length. */
static void test_capacity_cost_faults(void)
{
	struct tu_crun r;
	tu_crun_with(&r,
		     "{'name': 'a', 'trace': {'path': 'TRACE'}, 'cluster': {'flavors': [{'name': 'f', 'nodes': 2,"
		     " 'node': {'gpu': 8}, 'price_per_node_hour': 3600}], 'failures': {'distribution': 'fixed',"
		     " 'mtbf_h': 0.06944444444444445, 'spares': 1, 'replacement_s': 10,"
		     " 'repair': {'distribution': 'fixed', 'mean_h': 1}}}, 'output': 'x.h5'}",
		     "id,submit_s,duration_s,request,checkpoint_s\nj,0,100,f:gpu=8,\nk,0,1000,f:gpu=8,100\n",
		     &(struct tu_crun_opts){ .seed = 1 });
	const struct sim_engine_counters *k = sim_engine_counters(r.e);
	CU_ASSERT(k->nodes_failed > 0); /* the case is about billing failed nodes */
	double span = sim_time_to_s(sim_engine_now(r.e));
	CU_ASSERT(span > 1000);
	CU_ASSERT_DOUBLE_EQUAL(sim_engine_capacity_cost(r.e), 3 * span, 1e-6);
	tu_crun_free(&r);
}

static CU_TestInfo capacity_tests[] = {
	{ "test_scale_up_and_down_hand", test_scale_up_and_down_hand },
	{ "test_mode_default_max", test_mode_default_max },
	{ "test_mode_conservative", test_mode_conservative },
	{ "test_mode_aggressive_and_min_zero", test_mode_aggressive_and_min_zero },
	{ "test_bill_from_first_submit", test_bill_from_first_submit },
	{ "test_packing_next_fit", test_packing_next_fit },
	{ "test_provisioning_seeded", test_provisioning_seeded },
	{ "test_request_rule", test_request_rule },
	{ "test_provisioning_draws", test_provisioning_draws },
	{ "test_bad_autoscale_configs", test_bad_autoscale_configs },
	{ "test_bad_autoscale_exit_2", test_bad_autoscale_exit_2 },
	{ "test_spot_checkpoint_inside_notice", test_spot_checkpoint_inside_notice },
	{ "test_spot_no_checkpoint_inside_notice", test_spot_no_checkpoint_inside_notice },
	{ "test_spot_fallback_on_demand", test_spot_fallback_on_demand },
	{ "test_spot_draws", test_spot_draws },
	{ "test_bad_spot_configs", test_bad_spot_configs },
	{ "test_max_wait", test_max_wait },
	{ "test_max_wait_queued_backfill", test_max_wait_queued_backfill },
	{ "test_bad_max_wait", test_bad_max_wait },
	{ "test_plan_cutoff", test_plan_cutoff },
	{ "test_plan_wait_limit", test_plan_wait_limit },
	{ "test_bad_plan_configs", test_bad_plan_configs },
	{ "test_capacity_cost_fixed", test_capacity_cost_fixed },
	{ "test_capacity_cost_faults", test_capacity_cost_faults },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo capacity_suite = { "capacity", NULL, NULL, NULL, NULL, capacity_tests };
