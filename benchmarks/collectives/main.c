/* PLACEHOLDER: the collectives benchmark (to be written). */
#include <stdio.h>
int main(void)
{
    fprintf(stderr, "collectives: not built yet\n");
    return 1;
}
