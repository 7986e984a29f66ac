/* mmdeploy_ops.h - v0.1.0 - MIT licence (see end of file)
   Reference CPU kernels for mmdeploy.h and the table that names them.

   QUICK START
     const mmd_kernel *k = mmd_ops_find("", "Conv", 13);   // NULL when there is no kernel
     for (size_t i = 0; i < mmd_ops_count(); ++i) puts(mmd_ops_at(i)->op_type);

   WHAT IT DOES NOT DO
     No threads, no SIMD intrinsics: plain loops that any C99 compiler vectorises as it can.

   KERNEL CONTRACT
     A kernel is {domain, op_type, min_opset, max_opset, flags, op_data_size, prepare, eval}.
     prepare validates input count, dtypes, ranks, attributes and any input it needs as a
     constant, sets each output's dtype, rank and dims, stores what eval needs in op_data and
     requests scratch. eval reads inputs, writes outputs, op data and scratch, and nothing
     else: no static mutable state, no allocation, no printing; every loop is bounded by
     something prepare checked. eval returns a status only for data-dependent errors (an index
     out of range at run time).

   THREAD SAFETY
     The table is const; kernels keep no state outside their op data.
*/
#ifndef MMDEPLOY_OPS_H
#define MMDEPLOY_OPS_H

#include "mmdeploy_ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The kernel for domain::op_type at this opset, or NULL. "" and "ai.onnx" are one domain. */
MMD_API const mmd_kernel *mmd_ops_find(const char *domain, const char *op_type, int64_t opset);
/* Number of table entries and entry i, for listing what is supported. */
MMD_API size_t mmd_ops_count(void);
MMD_API const mmd_kernel *mmd_ops_at(size_t i);

#ifdef __cplusplus
}
#endif

#define MMD_OPS_DECLS
#if defined(MMD_IMPLEMENTATION) && !defined(MMD_CORE_IMPLEMENTED)
#include "mmdeploy.h"
#endif
#endif /* MMDEPLOY_OPS_H */

#if (defined(MMD_IMPLEMENTATION) || defined(MMD_OPS_IMPLEMENTATION)) && defined(MMD_IR_DECLS) && \
    defined(MMD_OPS_DECLS) && !defined(MMD_OPS_IMPLEMENTED)
#define MMD_OPS_IMPLEMENTED
/* ==== >>ops implementation ==== */

#endif /* MMD_OPS_IMPLEMENTATION */
