#ifndef INI_COPY_H
#define INI_COPY_H

#include <stddef.h>

#define MAX_SECTION 50
#define MAX_NAME 50

struct ini_state {
    char section[MAX_SECTION];
    char prev_name[MAX_NAME];
};

char *strncpy0(char *dest, const char *src, size_t size);
void ini_enter_section(struct ini_state *st, const char *name);
void ini_remember_name(struct ini_state *st, const char *name);

#endif
