/* Array indices in JSON pointers. */
#include <stdint.h>
#include "pointer.h"

int decode_array_index_from_pointer(const unsigned char *pointer, size_t *index)
{
    size_t parsed_index = 0;
    size_t position = 0;

    if ((pointer[0] == '0') && ((pointer[1] != '\0') && (pointer[1] != '/')))
    {
        /* leading zeroes are not permitted */
        return 0;
    }

    for (position = 0; (pointer[position] >= '0') && (pointer[position] <= '9'); position++)
    {
        size_t digit = (size_t)(pointer[position] - '0');
        if (parsed_index > (SIZE_MAX - digit) / 10)
        {
            return 0; /* does not fit in size_t */
        }
        parsed_index = (10 * parsed_index) + digit;
    }

    if ((position == 0) || ((pointer[position] != '\0') && (pointer[position] != '/')))
    {
        return 0;
    }

    *index = parsed_index;

    return 1;
}
