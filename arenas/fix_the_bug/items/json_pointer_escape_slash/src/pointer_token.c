/* Object keys as JSON pointer tokens. */
#include <stdlib.h>
#include "pointer_token.h"

/* calculate the length of a string if encoded as JSON pointer with ~0 and ~1 escape sequences */
static size_t pointer_encoded_length(const unsigned char *string)
{
    size_t length;
    for (length = 0; *string != '\0'; (void)string++, length++) {
        /* character needs to be escaped? */
        if ((*string == '~') || (*string == '/')) {
            length++;
        }
    }
    return length;
}

/* copy a string while escaping '~' and '/' with ~0 and ~1 JSON pointer escape codes */
static void encode_string_as_pointer(unsigned char *destination, const unsigned char *source)
{
    for (; source[0] != '\0'; (void)source++, destination++) {
        if (source[0] == '/') {
            destination[1] = '1';
            destination++;
        } else if (source[0] == '~') {
            destination[0] = '~';
            destination[1] = '0';
            destination++;
        } else {
            destination[0] = source[0];
        }
    }
    destination[0] = '\0';
}

char *pointer_token_for_key(const char *key)
{
    const unsigned char *k = (const unsigned char *)key;
    unsigned char *token = malloc(pointer_encoded_length(k) + 1);
    if (token == NULL) {
        return NULL;
    }
    encode_string_as_pointer(token, k);
    return (char *)token;
}
