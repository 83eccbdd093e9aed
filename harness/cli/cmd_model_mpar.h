/* cmd_model_mpar: `exadl model RUN` on a run of modelpar (or with
 * --model-parallel), the model-parallel step model (cmd_model.c hands over).
 * defines: model_mpar_main, model_mpar_wanted, model_mpar_valued,
 *          help_model_mpar */
#ifndef EXADL_HARNESS_CMD_MODEL_MPAR_H
#define EXADL_HARNESS_CMD_MODEL_MPAR_H

#include "harness/util/util.h"

extern const char help_model_mpar[];
/* The arguments after `model`; the exit status. */
int model_mpar_main(int argc, char **argv);
/* Whether opt is one of its options that takes a value (--nodes, ...). */
int model_mpar_valued(const char *opt);
/* Whether RUN holds modelpar records and no stemdl records. */
int model_mpar_wanted(arena_t *a, const char *run);

#endif
