/* version: which ExaDL wrote a result: the release and the git commit it was
 * built from (the Makefile passes EXADL_COMMIT; "-dirty" when the tree had
 * uncommitted changes), recorded in results.yaml so that "what changed after
 * the software update" has an answer in `exadl compare`. */
#ifndef EXADL_HARNESS_VERSION_H
#define EXADL_HARNESS_VERSION_H

const char *exadl_version(void);
const char *exadl_commit(void); /* "unknown" outside a git checkout */

#endif
