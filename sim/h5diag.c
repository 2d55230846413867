/* sim/h5diag.c: see h5diag.h. */
#include "h5diag.h"

#include <hdf5.h>

static herr_t first_err_cb(unsigned n, const H5E_error2_t *e, void *arg)
{
	char *buf = arg;
	if (n == 0 && e->desc)
		snprintf(buf, 256, "%s", e->desc);
	return 0;
}

void sim_h5_diag(struct sim_diag *diag, const char *where, const char *what)
{
	char msg[256] = "";
	H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, first_err_cb, msg);
	H5Eclear2(H5E_DEFAULT);
	if (msg[0])
		sim_diag_add(diag, where, "%s (HDF5: %s)", what, msg);
	else
		sim_diag_add(diag, where, "%s", what);
}
