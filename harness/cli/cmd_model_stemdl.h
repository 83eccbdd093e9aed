/* cmd_model_stemdl: `exadl model --spatial --stemdl -- STEMDL-OPTIONS`, the
 * front end of STEMDL's plan model (docs/spatial.md "exadl model --spatial
 * --stemdl"); cmd_model.c hands over when --spatial and --stemdl are given.
 * defines: model_stemdl_main, help_model_stemdl */
#ifndef EXADL_HARNESS_CMD_MODEL_STEMDL_H
#define EXADL_HARNESS_CMD_MODEL_STEMDL_H

extern const char help_model_stemdl[];
/* The arguments after `model`; the exit status. */
int model_stemdl_main(int argc, char **argv);

#endif
