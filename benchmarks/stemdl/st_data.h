/* st_data: STEMDL's data sets (docs/data.md "The STEMDL CBED set"):
 *   --data cbed        a finite, learnable set made in memory: sample i of a
 *                      split is the CBED-like sample of data.h drawn from
 *                      (seed, split, i), the network reconstructing the
 *                      projected potential of the atoms it shows;
 *   --make-data DIR    that set written as shards (benchmarks/common/shard:
 *                      HDF5 where built, else raw) and a manifest;
 *   --data files:DIR   training from the shards through the shared reader
 *                      (shard_feed.h: reader thread, prefetch, shuffle), so
 *                      that the run and the one from memory see equal samples.
 * Samples are stored as the network takes them, channels first: the shard
 * shape is d = the input channels, h, w, c = 1, and the targets are the
 * c_out x H x W potential maps.  A rank of a spatial group (--spatial) reads
 * whole samples (the network takes its tile from them), so every read is
 * CRC-checked.
 *
 * The network: stemdl_network with the model a st_model (its plan first, so
 * the FC-DenseNet's functions take it as their plan_t) and the samples, the
 * split sizes and the record's io block from the feed.
 *
 * defines: st_model, st_data_opts, st_data_is, st_network, st_data_open,
 *          st_read_only, st_make_data, st_make_missing, st_stage */
#ifndef STEMDL_ST_DATA_H
#define STEMDL_ST_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "benchmarks/common/mpi/comm.h"
#include "benchmarks/common/shard/shard_feed.h"
#include "benchmarks/networks/fcdensenet/plan.h"
#include "benchmarks/train/network.h"

typedef struct {
    plan_t plan;         /* first: the FC-DenseNet's functions take the model as a plan_t */
    shard_feed *feed;    /* --data cbed or files:DIR; NULL: the synthetic stream (data.h) */
} st_model;

typedef struct {
    const char *data;      /* --data synthetic | cbed | files:DIR (default synthetic) */
    const char *make_data; /* --make-data DIR */
    const char *format;    /* --format raw | hdf5 (default hdf5 where built) */
    int64_t samples, val_samples, shard_samples;
    int make_missing;      /* --make-missing true: rank 0 writes the set of files:DIR first */
    const char *stage;     /* --stage DIR: copy the set to node-local DIR first (tstage.h) */
    char staged_data[600]; /* files:DIR after staging */
    shard_feed_opts feed;  /* --shuffle, --prefetch, --verify; the cbed split sizes */
} st_data_opts;

/* 1 when data names a data set (files:DIR or cbed). */
int st_data_is(const char *data);

/* stemdl_network over a st_model. */
const network_t *st_network(void);

/* Open m->feed for this rank (groups of S ranks, group g) with batch b and
 * steps (warm-up included).  0, or -1 with one line in err. */
int st_data_open(st_model *m, const st_data_opts *o, uint64_t seed, int groups, int group,
                 int batch, int64_t steps, char *err, size_t errlen);

/* --read-only true: open m->feed as st_data_open would and read the steps'
 * batches with nothing else (benchmarks/train/tdlio.h: the lines with the
 * job's samples/s and GB/s on rank 0); the S ranks of a spatial group each
 * read whole samples (counted once in samples/s, S times in bytes); with
 * record (--record FILE), the numbers written there.  The exit code (0, 1
 * the record not written); a set refused at open ends in check_usage (2). */
int st_read_only(st_model *m, const st_data_opts *o, uint64_t seed, int S, int batch,
                 int64_t steps, const char *record, const comm_t *comm);

/* --make-data: write the CBED set; the exit code (0, 1 failed, 2 bad input). */
int st_make_data(const plan_t *p, const st_data_opts *o, uint64_t seed);

/* --make-missing: with --data files:DIR, rank 0 writes the set into DIR when
 * DIR has no manifest (the others wait); o->feed.made_s gets its time, which
 * the io block records outside time to train.  0, or -1 when writing failed. */
int st_make_missing(const plan_t *p, st_data_opts *o, uint64_t seed, const comm_t *comm);

/* --stage DIR with --data files:SRC: the set copied to DIR on every node
 * (tstage.h; print: this rank prints the MLLOG lines), o->data then names
 * DIR and o->feed the staging.  0, or -1 when a node failed. */
int st_stage(st_data_opts *o, const comm_t *comm, int print);

#endif
