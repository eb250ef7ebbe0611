/* Split one line of an INI file. */
#include <ctype.h>
#include <string.h>
#include "ini_line.h"

/* Strip whitespace chars off end of given string, in place. Return s. */
static char *ini_rstrip(char *s)
{
    char *p = s + strlen(s);
    while (p > s && isspace((unsigned char)(*--p)))
        *p = '\0';
    return s;
}

/* Return pointer to first non-whitespace char in given string. */
static char *ini_lskip(char *s)
{
    while (*s && isspace((unsigned char)(*s)))
        s++;
    return s;
}

enum ini_kind ini_parse_line(char *line, struct ini_entry *out)
{
    char *start = ini_lskip(ini_rstrip(line));
    char *end;

    if (*start == ';' || *start == '#') {
        /* Start-of-line comment */
        return INI_BLANK;
    }
    else if (*start == '[') {
        /* A "[section]" line */
        end = strchr(start + 1, ']');
        if (!end)
            return INI_ERROR;
        *end = '\0';
        out->section = start + 1;
        return INI_SECTION;
    }
    else if (*start) {
        /* Not a comment, must be a name[=:]value pair */
        end = strpbrk(start, "=:");
        if (!end)
            return INI_ERROR;
        *end = '\0';
        out->name = ini_rstrip(start);
        out->value = ini_lskip(end + 1);
        return INI_PAIR;
    }
    return INI_BLANK;
}
