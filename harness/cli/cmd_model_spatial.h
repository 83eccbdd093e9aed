/* cmd_model_spatial: `exadl model RUN --spatial`, the spatial-parallelism
 * model of CosmoFlow (cmd_model.c hands over when --spatial is given).
 * defines: model_spatial_main, help_model_spatial */
#ifndef EXADL_HARNESS_CMD_MODEL_SPATIAL_H
#define EXADL_HARNESS_CMD_MODEL_SPATIAL_H

extern const char help_model_spatial[];
/* The arguments after `model`; the exit status. */
int model_spatial_main(int argc, char **argv);

#endif
