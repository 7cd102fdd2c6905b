/* Fortran namelist reader (namelists/README.md, Syntax).
 *
 * The caller describes each group with a table of keys whose `dest` already
 * hold the defaults; the reader assigns only the values the text gives and
 * checks every value against its key's type, range and choices. The first
 * problem found, in text order, is returned as an error class with a message
 * "<source>:<line>: &group: ..." that names the key, the bad value and what is
 * allowed.
 *
 * Accepted syntax: groups `&name ... /` in any order, `!` comments, strings in
 * '...' or "..." (a doubled quote is a literal quote; a string ends on its own
 * line), integers, reals (`1.5`, `2.`, `.5`, `1e3`, `1.5d-3`), logicals
 * (`.true.`, `.f.`, `T`, `false`, ...), arrays separated by commas and/or
 * blanks with `n*value` repeats, entries over several lines, several entries
 * on one line, a UTF-8 byte-order mark at the start. Not supported (rejected,
 * never silently ignored): null values (`a = 1,,2`), array elements or
 * sections (`a(2) = 1`), derived-type components (`a%b = 1`), unquoted
 * strings, `$group ... $end`.
 *
 * Line numbers: the line of the offending token; for an unterminated group or
 * a missing required key, the line of the group's `&name`; for a missing
 * required group, the last line of the text. Required keys are checked only
 * in groups that appear. An unknown name gets "did you mean '...'?" when a
 * known one is within edit distance 2 (and closer than the name's length),
 * otherwise the list of known names.
 */
#ifndef CRYO_NAMELIST_H
#define CRYO_NAMELIST_H

#include <stddef.h>
#include <sys/stat.h>

#include "cryo_error.h"

typedef enum { CRYO_NML_INT, CRYO_NML_REAL, CRYO_NML_LOGICAL, CRYO_NML_STRING } cryo_nml_type;

typedef struct cryo_nml_key {
  const char *name;   /* lower case; matching is case-insensitive as in Fortran */
  cryo_nml_type type; /* a REAL key also accepts an integer literal */
  void *dest;         /* int *, double *, int * (0/1 for logical), char * (strings) */
  int max_count;      /* 1 for a scalar; capacity for an array (dest holds max_count values) */
  int *count;         /* arrays: set to the number of values read; NULL for scalars */
  size_t
      str_len; /* strings: capacity of each buffer incl. NUL (arrays: char[max_count][str_len]) */
  double min, max;            /* inclusive range for INT/REAL; not checked when min > max */
  const char *const *choices; /* STRING: allowed values, NULL-terminated, or NULL for any; matched
                                 case-insensitively and stored in the spelling of the table */
  int required;               /* 1: must be given whenever its group is present */
  const char *units;          /* documentation only (may be NULL); quoted in range messages */
} cryo_nml_key;

typedef struct cryo_nml_group {
  const char *name; /* without the '&', lower case */
  const cryo_nml_key *keys;
  int nkeys;
  int required; /* 1: the group must appear in the text */
  int *given;   /* NULL, or nkeys ints set to the line where each key was given (0: not given) */
} cryo_nml_group;

/* Parse the namelist file at `path` into the keys' dest (which hold the
 * defaults beforehand; keys not given keep them). Messages use `path` as the
 * source name. Returns CRYO_OK, CRYO_ERR_FILE (cannot read the file), or one
 * of the classes of cryo_namelist_read_string. `err` is written only on error. */
int cryo_namelist_read_file(const char *path, const cryo_nml_group *groups, int ngroups,
                            cryo_err *err);

/* Same from a NUL-terminated string; `source_name` stands in messages where a
 * file name would. Returns CRYO_OK or CRYO_ERR_SYNTAX, CRYO_ERR_UNKNOWN,
 * CRYO_ERR_TYPE, CRYO_ERR_DUPLICATE, CRYO_ERR_RANGE, CRYO_ERR_MISSING (see the
 * file header), CRYO_ERR_ARG (NULL text or an invalid key table),
 * CRYO_ERR_MEMORY. On error some dest may already hold values read before the
 * error. */
int cryo_namelist_read_string(const char *text, const char *source_name,
                              const cryo_nml_group *groups, int ngroups, cryo_err *err);

/* The largest namelist or namcouple read, bytes: the shipped ones hold a few
 * kB, and a device such as /dev/zero named by mistake never ends. */
#define CRYO_TEXT_FILE_MAX (1 << 20)

/* Read a whole text file into a malloc'ed NUL-terminated buffer the caller
 * frees. CRYO_ERR_FILE (message names the path and what is wrong) when the
 * path is empty or a directory, the file cannot be opened or read, is larger
 * than CRYO_TEXT_FILE_MAX, is UTF-16 or holds a NUL byte; CRYO_ERR_MEMORY. */
int cryo_file_read_text(const char *path, char **text, cryo_err *err);

/* What a path that is not a regular file is, for a message ("a character
 * device", "a fifo", ...; mode from lstat): outputs, restarts and logs take
 * only a regular file or no file, and leave anything else as it is. */
const char *cryo_file_kind(mode_t mode);

#endif
