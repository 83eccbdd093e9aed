/* kf_dnnl: the oneDNN plumbing that both convolution files of the fast CPU
 * set need (kern_fast_conv.c for 2D, kern_fast_conv3d.c for 3D): memory
 * objects bound to the context's engine, reorders (optionally adding into
 * their destination), a direct convolution's primitive descriptor for one
 * pass, two-argument execution, the cache of primitives by shape, and the
 * release of a cached primitive's objects.  Written once here so that the two files keep the same rules
 * (user scratchpad, 64-byte workspace slots, sum post-op for "+=").
 *
 * defines: kf_dnnl_round64, kf_dnnl_memory, kf_dnnl_attr, kf_dnnl_reorder, kf_dnnl_conv_pd,
 *          kf_dnnl_conv_pd_destroy, kf_dnnl_exec2, kf_dnnl_cache_find,
 *          kf_dnnl_cache_add, kf_dnnl_cache_release, kf_dnnl_destroy */
#ifndef EXADL_TRAIN_KF_DNNL_H
#define EXADL_TRAIN_KF_DNNL_H

#include <stddef.h>
#include <stdint.h>

#include "benchmarks/train/kernels/fast/kf_ctx.h"

/* The passes of a direct convolution that the set runs as primitives. */
enum { KF_DNNL_FWD = 1, KF_DNNL_BWD_DATA = 2, KF_DNNL_BWD_WEIGHTS = 3 };

/* bytes rounded up to a multiple of 64: workspace slots stay 64-byte aligned */
size_t kf_dnnl_round64(size_t bytes);

/* A memory object of md on the context's engine, with no data yet
 * (dnnl_memory_set_data_handle binds it before each call). */
dnnl_memory_t kf_dnnl_memory(kf_ctx *c, const dnnl_memory_desc_t *md);

/* Primitive attributes, with a sum post-op (dst += result) where accumulate;
 * the caller destroys them. */
dnnl_primitive_attr_t kf_dnnl_attr(int accumulate);

/* A reorder from -> to; accumulate: to += from (a sum post-op), else to = from. */
dnnl_primitive_t kf_dnnl_reorder(kf_ctx *c, const dnnl_memory_desc_t *from,
                                 const dnnl_memory_desc_t *to, int accumulate);

/* The primitive descriptor of a direct convolution for one pass (KF_DNNL_*)
 * with src/wei/dst as the forward convolution names them (for the data
 * gradient: src is dx, dst is dy), no bias, the scratchpad in user mode.
 * *fwd receives the forward descriptor, which a backward pass takes as its
 * hint and which must outlive the returned one: release both with
 * kf_dnnl_conv_pd_destroy. */
dnnl_primitive_desc_t kf_dnnl_conv_pd(kf_ctx *c, int pass, const dnnl_memory_desc_t *src,
                                      const dnnl_memory_desc_t *wei,
                                      const dnnl_memory_desc_t *dst, const dnnl_dims_t stride,
                                      const dnnl_dims_t pad_l, const dnnl_dims_t pad_r,
                                      dnnl_primitive_desc_t *fwd);
void kf_dnnl_conv_pd_destroy(dnnl_primitive_desc_t pd, dnnl_primitive_desc_t fwd);

/* Runs p on the context's stream with two arguments (a reorder: FROM, TO). */
void kf_dnnl_exec2(kf_ctx *c, dnnl_primitive_t p, int a0, dnnl_memory_t m0, int a1,
                   dnnl_memory_t m1);

/* The cached entry whose key (its first key_bytes bytes) equals key, or
 * NULL.  Newest first: a layer's calls come together. */
void *kf_dnnl_cache_find(const kf_prim_cache *q, const int64_t *key, size_t key_bytes);
/* Appends e, growing the array to first_cap entries, then by doubling;
 * `what` names the cache in the out-of-memory message. */
void kf_dnnl_cache_add(kf_prim_cache *q, void *e, int first_cap, const char *what);
/* Frees the array (the entries are the caller's to release first). */
void kf_dnnl_cache_release(kf_prim_cache *q);

/* Destroys the primitives and the memory objects that were made (NULL:
 * skipped) of one cached entry. */
void kf_dnnl_destroy(dnnl_primitive_t *prims, size_t nprims, dnnl_memory_t *mems, size_t nmems);

#endif
