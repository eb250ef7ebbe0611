#include <assert.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "../src/ini_copy.h"

int main(void)
{
    struct ini_state st;
    char dest[4];
    long page = sysconf(_SC_PAGESIZE);
    char *pages = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    assert(pages != MAP_FAILED);
    assert(mprotect(pages + page, page, PROT_NONE) == 0);

    ini_remember_name(&st, "timeout");
    assert(strcmp(st.prev_name, "timeout") == 0);
    strncpy0(dest, "abcdef", sizeof(dest)); /* truncated */
    assert(strcmp(dest, "abc") == 0);
    puts("ok: long names are cut");

    /* "net" and its NUL end right before an unreadable page. */
    char *name = pages + page - 4;
    memcpy(name, "net", 4);
    puts("copying a 3-byte section name that ends right before an unreadable page...");
    fflush(stdout);
    ini_enter_section(&st, name);
    assert(strcmp(st.section, "net") == 0);
    assert(st.prev_name[0] == '\0');
    puts("ok: short names are copied without reading past their end");
    return 0;
}
