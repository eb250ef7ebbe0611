#ifndef POINTER_TOKEN_H
#define POINTER_TOKEN_H

/* Return a malloc'd JSON pointer token (RFC 6901) for an object key, or NULL
   if out of memory. The caller frees it. */
char *pointer_token_for_key(const char *key);

#endif
