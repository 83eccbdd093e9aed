/* Preloaded into the sanitizer build's test runs only.  Open MPI unloads its
 * component libraries at MPI_Finalize; LeakSanitizer then finds what those
 * components allocated but can no longer name the code ("<unknown module>"),
 * so no suppression can match it and every MPI program would report leaks.
 * Keeping the libraries mapped lets the suppressions in tests/lsan.supp work. */
#include <stddef.h>

int dlclose(void *handle);
int dlclose(void *handle)
{
    (void)handle;
    return 0;
}
