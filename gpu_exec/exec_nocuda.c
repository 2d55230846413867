/* gpu_exec/exec_nocuda.c: stands in for exec_cuda.c when the build found no CUDA
 * toolkit (gpu_exec/cuda.cmake). gx_open("cuda") then reports that the backend
 * was not built in; the cpu backend still works. */
#include "exec.h"

const struct gx_backend_ops *const gx_cuda_backend = NULL;
