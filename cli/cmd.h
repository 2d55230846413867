/* cli/cmd.h: the verbs of the gpusched command. Each returns the process exit
 * code: 0 ok, 1 runtime failure, 2 bad input. argv[0] is the verb. */
#ifndef CLI_CMD_H
#define CLI_CMD_H

#define GPUSCHED_EXIT_OK 0
#define GPUSCHED_EXIT_RUNTIME 1
#define GPUSCHED_EXIT_BADINPUT 2
/* compare only: 1 means "a gate rule failed" (GPUSCHED_EXIT_GATE_FAILED), so a comparison that could not be made
 * for a reason other than bad input (out of memory, stdout not writable) exits 3. */
#define GPUSCHED_EXIT_GATE_FAILED 1
#define GPUSCHED_EXIT_COMPARE_NORUN 3

int cmd_run(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_trace(int argc, char **argv);
/* gpusched trace gen (cli/cmd_trace_gen.c): argv[0] is "gen". */
int cmd_trace_gen(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_cluster(int argc, char **argv);
int cmd_real(int argc, char **argv);
/* gpusched config import (cli/cmd_config.c). */
int cmd_config(int argc, char **argv);
int cmd_export(int argc, char **argv);

/* An output path against one input of the verb (sim/outpath.h: not the input, not
 * a device node, folder or other non-regular file); prints the refusal. Returns
 * GPUSCHED_EXIT_OK or GPUSCHED_EXIT_BADINPUT. what_in: "trace", "config", ... */
int cmd_check_output(const char *out, const char *what_in, const char *in);
/* The same for an output folder (plot -o DIR). */
int cmd_check_output_dir(const char *dir, const char *what_in, const char *in);

/* A usage error of VERB: "gpusched VERB: MSG", the usage's synopsis (its text up to the
 * first blank line) and a pointer to --help, on stderr. Returns GPUSCHED_EXIT_BADINPUT.
 * The full usage is printed by --help only. */
int cmd_usage_error(const char *verb, const char *usage, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The message for the option getopt_long just refused (optopt, or argv[optind - 1]):
 * "unknown option '-x'" or "option '--table' needs a value". */
int cmd_getopt_error(const char *verb, const char *usage, int c, char **argv);

/* Maps a -SIM_E* to an exit code: PARSE/NOENT/INVAL/RANGE -> 2, others -> 1. */
int cmd_exit_code(int err);
/* 1 when something written to stdout was lost: a failed flush now, or a write that
 * failed earlier (stdio's error flag: a failed write inside fwrite leaves nothing
 * for the final flush to fail on when the output ends on a buffer boundary). */
int cmd_stdout_failed(void);

#endif
