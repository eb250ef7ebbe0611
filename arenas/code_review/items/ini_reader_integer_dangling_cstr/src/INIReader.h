// Read an INI file into easy-to-access name/value pairs.
#ifndef INIREADER_H
#define INIREADER_H

#include <map>
#include <string>

class INIReader
{
public:
    // Store a value; the parser's handler calls this for each name=value line.
    void Set(const std::string& section, const std::string& name,
             const std::string& value);

    // Get a string value, or default_value if not found.
    std::string Get(const std::string& section, const std::string& name,
                    const std::string& default_value) const;

    // Get an integer (long) value as strtol() with base 0 reads it ("1234",
    // "-12", "0x4D2"), or default_value if not found or if the value does not
    // start with a number.
    long GetInteger(const std::string& section, const std::string& name,
                    long default_value) const;

private:
    static std::string MakeKey(const std::string& section,
                               const std::string& name);
    std::map<std::string, std::string> _values;
};

#endif
