/* The workload table (workload.h): the one place the harness names its
 * benchmark programs.  A new workload is one entry here; a report section of
 * its own is one file in harness/report/sections/ and one line in
 * sections.h. */
#include "harness/workloads/workload.h"

#include <string.h>

static const char *const stemdl_describes[] = {"forward_conv_flops_per_sample",
                                               "convention_flops_per_sample", "conv_weights",
                                               "parameters", NULL};
static const char *const cosmoflow_describes[] = {
    "forward_conv_flops_per_sample", "forward_dense_flops_per_sample", "convention_flops_per_sample",
    "conv_weights", "dense_weights", "parameters", NULL};
static const char *const modelpar_describes[] = {
    "parameters", "forward_conv_flops_per_sample", "convention_flops_per_sample",
    "mp_parameters_per_rank", "mp_halo_bytes_per_step", "mp_tp_bytes_per_step",
    "mp_memory_formula_bytes", NULL};
static const char *const climate_describes[] = {"forward_conv_flops_per_sample",
                                                "convention_flops_per_sample", "conv_weights",
                                                "parameters", NULL};
static const char *const training_sections[] = {"training", NULL};
/* stemdl: its split runs' grid, plan and shuffle bytes in the spatial section */
static const char *const stemdl_sections[] = {"training", "spatial", NULL};
static const char *const cosmoflow_sections[] = {"training", "spatial", NULL};
/* climate: its split runs' grid, halo bytes and messages in the spatial section */
static const char *const climate_sections[] = {"training", "spatial", NULL};
static const char *const collective_sections[] = {"collectives", NULL};
static const char *const no_sections[] = {NULL};

const workload_t workloads[] = {
    {
        .name = "stemdl",
        .program = "stemdl",
        .kind = "stemdl",
        .check_config = "--check-config",
        .describe = "--describe",
        .describe_metrics = stemdl_describes,
        .exact_reference = "reference/stemdl-exact.yaml",
        .sysinfo = 1,
        .trains = 1,
        .sections = stemdl_sections,
    },
    {
        /* the 3D CNN with spatial parallelism (docs/cosmoflow.md): a training
         * record plus its decomposition; its own model (exadl model
         * --spatial), not the data-parallel engine's, so trains = 0 */
        .name = "cosmoflow",
        .program = "cosmoflow",
        .kind = "cosmoflow",
        .check_config = "--check-config",
        .describe = "--describe",
        .describe_metrics = cosmoflow_describes,
        .exact_reference = "reference/cosmoflow-exact.yaml",
        .sysinfo = 1,
        .sections = cosmoflow_sections,
    },
    {
        /* the climate segmentation network, DeepLabv3+ as MLPerf HPC's DeepCAM
         * (docs/climate.md): a data-parallel training record; its exact
         * counts answered by --describe (trains = 0: exadl model takes its
         * network from stemdl) */
        .name = "climate",
        .program = "climate",
        .kind = "climate",
        .check_config = "--check-config",
        .describe = "--describe",
        .describe_metrics = climate_describes,
        .exact_reference = "reference/climate-exact.yaml",
        .sysinfo = 1,
        .sections = climate_sections,
    },
    {
        /* the compute skeleton (docs/simulate.md): stemdl's gradient engine
         * and MPI calls with device time for kernels, under mpirun or
         * smpirun; a training record, read as stemdl's, in the training
         * section (trains = 0: exadl model takes its network from stemdl) */
        .name = "skeleton",
        .program = "skeleton",
        .kind = "skeleton",
        .check_config = "--check-config",
        .sections = training_sections,
    },
    {
        .name = "collectives",
        .program = "collectives",
        .kind = "collectives",
        .check_config = "--check-config",
        .sections = collective_sections,
    },
    {
        /* the orchestration benchmark: its rows feed the scaling model's
         * negotiation costs, no table of their own */
        .name = "orchestration",
        .program = "orchestration",
        .kind = "orchestration",
        .check_config = "--check-config",
        .sections = no_sections,
    },
    {
        /* the data distribution benchmark (docs/ensembles.md): its rows go to
         * the datadist section of the report */
        .name = "datadist",
        .program = "datadist",
        .kind = "datadist",
        .check_config = "--check-config",
        .sections = no_sections,
    },
    {
        /* many short tasks through a launcher (docs/ensembles.md): the
         * manytask section of the report */
        .name = "manytask",
        .program = "manytask",
        .kind = "manytask",
        .check_config = "--check-config",
        .sections = no_sections,
    },
    {
        /* producers and a trainer at once, through MPI or files
         * (docs/workflow.md): the workflow section of the report */
        .name = "workflow",
        .program = "workflow",
        .kind = "workflow",
        .check_config = "--check-config",
        .sections = no_sections,
    },
    {
        /* an evolutionary search over FC-DenseNet configurations, MENNDL's
         * pattern (docs/search.md): the search section of the report */
        .name = "search",
        .program = "search",
        .kind = "search",
        .check_config = "--check-config",
        .sections = no_sections,
    },
    {
        /* the locally connected autoencoder with its weights sharded over
         * model groups (docs/modelparallel.md): a training record plus its
         * model_parallel block (the model_parallel section of the report);
         * `modelpar --describe --preset P --model-ranks M ...` answers its
         * exact counts (the formulas, never a run) */
        .name = "modelpar",
        .program = "modelpar",
        .kind = "modelpar",
        .describe = "--describe",
        .describe_metrics = modelpar_describes,
        .exact_reference = "reference/modelpar-exact.yaml",
        .sysinfo = 1,
        .sections = training_sections,
    },
    {.name = NULL},
};

const workload_t *workload_of_kind(const char *kind)
{
    for (const workload_t *w = workloads; kind && w->name; w++)
        if (!strcmp(w->kind, kind)) return w;
    return NULL;
}

const workload_t *workload_named(const char *name)
{
    for (const workload_t *w = workloads; name && w->name; w++)
        if (!strcmp(w->name, name) || !strcmp(w->kind, name) || !strcmp(w->program, name))
            return w;
    return NULL;
}

const workload_t *workload_describer(const char *bench)
{
    if (bench) {
        const workload_t *w = workload_named(bench);
        return w && w->describe ? w : NULL;
    }
    for (const workload_t *w = workloads; w->name; w++)
        if (w->describe) return w;
    return NULL;
}

const workload_t *workload_trainer(void)
{
    for (const workload_t *w = workloads; w->name; w++)
        if (w->trains) return w;
    return NULL;
}

int workload_describes(const workload_t *w, const char *metric)
{
    for (const char *const *m = w && w->describe_metrics ? w->describe_metrics : NULL; m && *m; m++)
        if (!strcmp(*m, metric)) return 1;
    return 0;
}

const char *workload_programs(arena_t *a)
{
    sb_t b = {0};
    for (const workload_t *w = workloads; w->name; w++) {
        int seen = 0;
        for (const workload_t *v = workloads; v < w; v++) seen |= !strcmp(v->program, w->program);
        if (!seen) sb_printf(&b, "%s%s", b.len ? ", " : "", w->program);
    }
    char *r = ar_strdup(a, b.len ? sb_str(&b) : "");
    sb_free(&b);
    return r;
}
