#include <assert.h>
#include "../src/pointer.h"

static int decode(const char *token, size_t *index)
{
    return decode_array_index_from_pointer((const unsigned char *)token, index);
}

int main(void)
{
    size_t index = 0;

    assert(decode("0", &index) && index == 0);
    assert(decode("12", &index) && index == 12);
    assert(decode("3/name", &index) && index == 3);
    assert(!decode("01", &index));
    assert(!decode("", &index));
    assert(!decode("-", &index));
    assert(!decode("1a", &index));
    assert(!decode("2~", &index));
    assert(!decode("99999999999999999999999", &index));
    return 0;
}
