#include <assert.h>
#include <string.h>
#include "../src/ini_copy.h"

int main(void)
{
    struct ini_state st;
    char dest[4];
    char line[64] = "[network]";

    line[8] = '\0'; /* the parser cuts the line at ']' */
    ini_enter_section(&st, line + 1);
    assert(strcmp(st.section, "network") == 0);
    assert(st.prev_name[0] == '\0');

    ini_remember_name(&st, "timeout");
    assert(strcmp(st.prev_name, "timeout") == 0);

    strncpy0(dest, "abcdef", sizeof(dest)); /* truncated */
    assert(strcmp(dest, "abc") == 0);
    return 0;
}
