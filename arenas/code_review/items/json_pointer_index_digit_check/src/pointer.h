#ifndef POINTER_H
#define POINTER_H

#include <stddef.h>

/* Decode the array index at the start of a JSON pointer token (RFC 6901).
   The token ends at '\0' or '/'. Returns 1 and sets *index on success. */
int decode_array_index_from_pointer(const unsigned char *pointer, size_t *index);

#endif
