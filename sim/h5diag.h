/* sim/h5diag.h: HDF5's own error text in our diagnostics. Shared by the writer
 * (sim/h5out.c) and the reader (analysis/h5read.c); each decides what the failure
 * means (a runtime failure when writing, bad input when reading). */
#ifndef SIM_H5DIAG_H
#define SIM_H5DIAG_H

#include "sim.h"

/* Adds "where: what (HDF5: innermost message)" to diag and clears HDF5's error
 * stack. The innermost message is the specific one ("truncated file: eof = ...");
 * the outer ones only repeat "unable to open file". */
void sim_h5_diag(struct sim_diag *diag, const char *where, const char *what);

#endif
