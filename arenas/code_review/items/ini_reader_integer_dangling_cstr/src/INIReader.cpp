// Read an INI file into easy-to-access name/value pairs.

#include <cstdlib>
#include "INIReader.h"

using std::string;

void INIReader::Set(const string& section, const string& name,
                    const string& value)
{
    _values[MakeKey(section, name)] = value;
}

string INIReader::Get(const string& section, const string& name,
                      const string& default_value) const
{
    std::map<string, string>::const_iterator it =
        _values.find(MakeKey(section, name));
    return it != _values.end() ? it->second : default_value;
}

long INIReader::GetInteger(const string& section, const string& name,
                           long default_value) const
{
    string valstr = Get(section, name, "");
    const char* value = valstr.c_str();
    char* end;
    // This parses "1234" (decimal) and also "0x4D2" (hex)
    long n = strtol(value, &end, 0);
    return end > value ? n : default_value;
}

string INIReader::MakeKey(const string& section, const string& name)
{
    // '=' cannot appear in a key name, so "section=name" keys never collide.
    return section + "=" + name;
}
