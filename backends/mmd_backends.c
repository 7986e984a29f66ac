/* backends/mmd_backends.c - the bundled backends' code in one translation unit, for builds that
   prefer adding a .c file to defining the implementation macros (the CLI is built this way).
   MMD_HAVE_OPENBLAS=0, MMD_HAVE_ONEDNN=0 or MMD_HAVE_XNNPACK=0 turns a backend into a stub that
   reports itself unavailable, so the file builds without any of the libraries. */
#define MMD_OPENBLAS_IMPLEMENTATION
#include "mmd_openblas.h"
#define MMD_ONEDNN_IMPLEMENTATION
#include "mmd_onednn.h"
#define MMD_XNNPACK_IMPLEMENTATION
#include "mmd_xnnpack.h"
