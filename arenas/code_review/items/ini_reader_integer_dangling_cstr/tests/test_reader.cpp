#include <cassert>
#include "../src/INIReader.h"

int main()
{
    INIReader reader;
    reader.Set("server", "port", "8080");
    reader.Set("server", "mask", "0x4D2");
    reader.Set("server", "name", "localhost");
    // longer than any small-string buffer, so the text lives on the heap
    reader.Set("server", "padded", "                         -1234567");

    assert(reader.GetInteger("server", "port", -1) == 8080);
    assert(reader.GetInteger("server", "mask", -1) == 0x4D2);
    assert(reader.GetInteger("server", "padded", -1) == -1234567);
    assert(reader.GetInteger("server", "name", -1) == -1);
    assert(reader.GetInteger("server", "missing", 42) == 42);
    return 0;
}
