#ifndef INI_LINE_H
#define INI_LINE_H

enum ini_kind { INI_BLANK, INI_SECTION, INI_PAIR, INI_ERROR };

struct ini_entry {
    char *section; /* set for INI_SECTION */
    char *name;    /* set for INI_PAIR */
    char *value;   /* set for INI_PAIR */
};

/* Classify one line (modified in place); comments and blank lines are
   INI_BLANK. */
enum ini_kind ini_parse_line(char *line, struct ini_entry *out);

#endif
