#include <assert.h>
#include <string.h>
#include "../src/ini_line.h"

int main(void)
{
    struct ini_entry e;
    char comment[] = "  ; name = value", hash[] = "# x", blank[] = "   ";
    char section[] = "[ server ]", pair[] = " port : 8080 ", bad[] = "noequals";

    assert(ini_parse_line(comment, &e) == INI_BLANK);
    assert(ini_parse_line(hash, &e) == INI_BLANK);
    assert(ini_parse_line(blank, &e) == INI_BLANK);
    assert(ini_parse_line(section, &e) == INI_SECTION);
    assert(strcmp(e.section, " server ") == 0);
    assert(ini_parse_line(pair, &e) == INI_PAIR);
    assert(strcmp(e.name, "port") == 0 && strcmp(e.value, "8080") == 0);
    assert(ini_parse_line(bad, &e) == INI_ERROR);
    return 0;
}
