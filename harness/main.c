/* PLACEHOLDER: the exadl harness (to be written). */
#include <stdio.h>
int main(void)
{
    fprintf(stderr, "exadl: not built yet\n");
    return 1;
}
