/* analysis/report_html.h: the one-page report of a results file (gpusched report
 * RESULTS.h5 --html OUT.html), what a planner attaches to a capacity review.
 *
 * One self-contained HTML file (no script, no link, no image file: nothing outside
 * it is fetched): a header with the file, the software and its version, the schema
 * version, the mode, when the file was written and the config's path; the seeds of
 * every variant; the summary table (one row a run, the columns of `gpusched report`);
 * the replications table (mean ± 95% half-width over a variant's seeds) when some
 * variant has 2 or more runs; every plot of `gpusched plot` drawn as SVG and inlined;
 * one per-queue table a run that has /runs/<run>/queues; and the config
 * (experiment_json) as indented JSON. Numbers are formatted as the text report
 * formats them ("-" where a value is NaN). Text from the file is escaped.
 */
#ifndef ANALYSIS_REPORT_HTML_H
#define ANALYSIS_REPORT_HTML_H

#include <stdio.h>

#include "h5read.h"

struct report_html_opts {
	const char *out;          /* the HTML file: written to a temporary, then renamed */
	const char *analysis_dir; /* plot templates (plot_opts.analysis_dir); NULL: default */
	const char *gnuplot;      /* plot_opts.gnuplot; NULL: "gnuplot" found on PATH */
};

/* Writes the report. Plots are drawn by plot_results (format svg) into a scratch
 * folder beside out, removed afterwards; when gnuplot is missing or fails, the report
 * is still written, with a note in place of the plots (and *plots_note set to 1 when
 * plots_note is not NULL). Returns 0, -SIM_EIO (cannot write), or a reader error
 * (h5read.h), with a message in diag; on failure out is left as it was. */
int report_html(const struct h5read_file *f, const struct report_html_opts *o, int *plots_note,
		struct sim_diag *diag);

/* Appends s to out with &, <, >, " and ' escaped for HTML text and attributes. */
void report_html_escape(FILE *out, const char *s);

#endif
