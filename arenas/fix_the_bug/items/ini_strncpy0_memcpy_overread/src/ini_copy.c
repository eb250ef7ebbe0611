/* Bounded copies of section and key names while parsing an INI file. */
#include <string.h>
#include "ini_copy.h"

/* Version of strncpy that ensures dest (size bytes) is null-terminated. */
char *strncpy0(char *dest, const char *src, size_t size)
{
    /* Use memcpy instead of strncpy to avoid gcc warnings (see issue #91) */
    memcpy(dest, src, size - 1);
    dest[size - 1] = '\0';
    return dest;
}

/* A "[section]" line: remember the section, forget the previous key. */
void ini_enter_section(struct ini_state *st, const char *name)
{
    strncpy0(st->section, name, sizeof(st->section));
    st->prev_name[0] = '\0';
}

/* A name=value line: remember the key for continuation lines. */
void ini_remember_name(struct ini_state *st, const char *name)
{
    strncpy0(st->prev_name, name, sizeof(st->prev_name));
}
