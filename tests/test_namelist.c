/* mpi-run ranks: 1 (tests/mpi-run runs this program once per count) */
/* Tests of the namelist reader (services/cryo_namelist.c).
 *
 * Tolerances: none. Every parsed value is compared exactly (== on doubles):
 * the reader converts with a correctly rounded strtod, so 1.5d-3 must give the
 * very double the C literal 1.5e-3 gives. Every bad input is checked for its
 * error class, for a message that begins "bad.nml:<line>: " with the line of
 * the offending token, and for a substring naming the key, value or rule.
 */
#define _POSIX_C_SOURCE 200809L

#include <CUnit/Basic.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cryo_namelist.h"

static int nx, ny, big, run_length, verbose, nlev, nflags, nnames, nr, nl, niv;
static int flags[3], lv[12], iv[8];
static double dt, alpha, levels[4], r[16];
static char model[16], start[24], restart_in[16], names[3][8];

static const char *const models[] = {"seaice", "landice", NULL};

/* Fields: name, type, dest, max_count, count, str_len, min, max, choices, required, units. */
static const cryo_nml_key run_keys[] = {
    {"model", CRYO_NML_STRING, model, 1, NULL, sizeof model, 1, 0, models, 1, NULL},
    {"start", CRYO_NML_STRING, start, 1, NULL, sizeof start, 1, 0, NULL, 0, NULL},
    {"run_length", CRYO_NML_INT, &run_length, 1, NULL, 0, 1, 1e9, NULL, 0, "s"},
    {"restart_in", CRYO_NML_STRING, restart_in, 1, NULL, sizeof restart_in, 1, 0, NULL, 0, NULL},
    {"verbose", CRYO_NML_LOGICAL, &verbose, 1, NULL, 0, 1, 0, NULL, 0, NULL},
    {"dt", CRYO_NML_REAL, &dt, 1, NULL, 0, 0.001, 1e5, NULL, 0, "s"},
};
static const cryo_nml_key grid_keys[] = {
    {"nx", CRYO_NML_INT, &nx, 1, NULL, 0, 2, 100000, NULL, 1, NULL},
    {"ny", CRYO_NML_INT, &ny, 1, NULL, 0, 2, 100000, NULL, 0, NULL},
    {"big", CRYO_NML_INT, &big, 1, NULL, 0, 1, 0, NULL, 0, NULL},
    {"alpha", CRYO_NML_REAL, &alpha, 1, NULL, 0, 1, 100000, NULL, 0, NULL},
    {"levels", CRYO_NML_REAL, levels, 4, &nlev, 0, 1, 0, NULL, 0, "m"},
    {"flags", CRYO_NML_LOGICAL, flags, 3, &nflags, 0, 1, 0, NULL, 0, NULL},
    {"names", CRYO_NML_STRING, names, 3, &nnames, sizeof names[0], 1, 0, NULL, 0, NULL},
};
static const cryo_nml_key extra_keys[] = {
    {"r", CRYO_NML_REAL, r, 16, &nr, 0, 1, 0, NULL, 0, NULL},
    {"l", CRYO_NML_LOGICAL, lv, 12, &nl, 0, 1, 0, NULL, 0, NULL},
    {"iv", CRYO_NML_INT, iv, 8, &niv, 0, 1, 0, NULL, 0, NULL},
};
static const cryo_nml_group groups[] = {
    {"run", run_keys, 6, 1, NULL},
    {"grid", grid_keys, 7, 1, NULL},
    {"extra", extra_keys, 3, 0, NULL},
};

static void set_defaults(void) {
  nx = ny = big = run_length = -7;
  verbose = 0;
  nlev = nflags = nnames = nr = nl = niv = -1;
  for (int i = 0; i < 3; i++)
    flags[i] = -1;
  for (int i = 0; i < 12; i++)
    lv[i] = -1;
  for (int i = 0; i < 8; i++)
    iv[i] = -1;
  dt = 123.25;
  alpha = 42.0;
  for (int i = 0; i < 4; i++)
    levels[i] = -9.0;
  for (int i = 0; i < 16; i++)
    r[i] = -9.0;
  strcpy(model, "default");
  strcpy(start, "2000-01-01 00:00:00");
  strcpy(restart_in, "");
  for (int i = 0; i < 3; i++)
    strcpy(names[i], "dflt");
}

static int read_text(const char *text, cryo_err *err) {
  set_defaults();
  cryo_err_clear(err);
  return cryo_namelist_read_string(text, "good.nml", groups, 3, err);
}

static void test_scalars_and_defaults(void) {
  cryo_err err;
  int status = read_text("\xEF\xBB\xBF! leading comment line after a UTF-8 byte-order mark\n"
                         "\n"
                         "&GRID   ! a comment after the group name\n"
                         "  NX = 10, Ny = +20 ! and after values\n"
                         "/\n"
                         "   ! between groups\n"
                         "&Run model = 'LandIce', Run_Length = 3600 verbose=.TRUE. /\n",
                         &err);
  CU_ASSERT_EQUAL(status, CRYO_OK);
  CU_ASSERT_STRING_EQUAL(err.msg, "");
  CU_ASSERT_EQUAL(nx, 10);
  CU_ASSERT_EQUAL(ny, 20);
  CU_ASSERT_STRING_EQUAL(model, "landice"); /* choices are stored in the table's spelling */
  CU_ASSERT_EQUAL(run_length, 3600);
  CU_ASSERT_EQUAL(verbose, 1);
  /* Absent keys and the absent optional group keep their defaults. */
  CU_ASSERT_EQUAL(dt, 123.25);
  CU_ASSERT_EQUAL(alpha, 42.0);
  CU_ASSERT_EQUAL(big, -7);
  CU_ASSERT_STRING_EQUAL(start, "2000-01-01 00:00:00");
  CU_ASSERT_EQUAL(nlev, -1);
  CU_ASSERT_EQUAL(levels[0], -9.0);
  CU_ASSERT_EQUAL(nr, -1);
  CU_ASSERT_EQUAL(r[0], -9.0);
  CU_ASSERT_STRING_EQUAL(names[0], "dflt");
}

static void test_reals(void) {
  cryo_err err;
  int status = read_text("&run model='seaice' /\n&grid nx=2 /\n"
                         "&extra r = 1.5, 2., .5, 1e3, 1.5d-3, 1.5D+3, -3.0E2, 7, +2.5e-1, -.25,\n"
                         "           0.1, 1d0, 6.02214076D23 /\n",
                         &err);
  CU_ASSERT_EQUAL_FATAL(status, CRYO_OK);
  CU_ASSERT_EQUAL(nr, 13);
  CU_ASSERT_EQUAL(r[0], 1.5);
  CU_ASSERT_EQUAL(r[1], 2.0);
  CU_ASSERT_EQUAL(r[2], 0.5);
  CU_ASSERT_EQUAL(r[3], 1000.0);
  CU_ASSERT_EQUAL(r[4], 1.5e-3);
  CU_ASSERT_EQUAL(r[5], 1500.0);
  CU_ASSERT_EQUAL(r[6], -300.0);
  CU_ASSERT_EQUAL(r[7], 7.0);
  CU_ASSERT_EQUAL(r[8], 0.25);
  CU_ASSERT_EQUAL(r[9], -0.25);
  CU_ASSERT_EQUAL(r[10], 0.1);
  CU_ASSERT_EQUAL(r[11], 1.0);
  CU_ASSERT_EQUAL(r[12], 6.02214076e23);
  CU_ASSERT_EQUAL(r[13], -9.0); /* beyond the values given: untouched */

  /* Range bounds are inclusive; an integer literal is accepted for a real. */
  status = read_text("&run model='seaice', dt = 1d-3 /\n&grid nx = 100000, alpha = 1 /\n", &err);
  CU_ASSERT_EQUAL(status, CRYO_OK);
  CU_ASSERT_EQUAL(dt, 0.001);
  CU_ASSERT_EQUAL(nx, 100000);
  CU_ASSERT_EQUAL(alpha, 1.0);

  /* A literal's length is no limit: 8000. with 600 zeros after the point is
   * 8000, and 1 with 400 zeros before the exponent e-390 is 1e10. */
  char text[2048];
  int n = snprintf(text, sizeof text, "&run model='seaice' /\n&grid nx=2 /\n&extra r = 8000.");
  for (int i = 0; i < 600; i++)
    text[n++] = '0';
  n += snprintf(text + n, sizeof text - (size_t)n, ", 1");
  for (int i = 0; i < 400; i++)
    text[n++] = '0';
  snprintf(text + n, sizeof text - (size_t)n, "d-390 /\n");
  status = read_text(text, &err);
  CU_ASSERT_EQUAL(status, CRYO_OK);
  if (status != CRYO_OK) fprintf(stderr, "long literal: %s\n", err.msg);
  CU_ASSERT_EQUAL(nr, 2);
  CU_ASSERT_EQUAL(r[0], 8000.0);
  CU_ASSERT_EQUAL(r[1], 1e10);
}

static void test_logicals(void) {
  cryo_err err;
  int status = read_text("&run model='seaice' /\n&grid nx=2 /\n"
                         "&extra l = .true. .false. .t. .f. T F t f .TRUE. True false .F. /\n",
                         &err);
  CU_ASSERT_EQUAL_FATAL(status, CRYO_OK);
  static const int want[12] = {1, 0, 1, 0, 1, 0, 1, 0, 1, 1, 0, 0};
  CU_ASSERT_EQUAL(nl, 12);
  for (int i = 0; i < 12; i++)
    CU_ASSERT_EQUAL(lv[i], want[i]);
}

static void test_arrays(void) {
  cryo_err err;
  int status = read_text("&run model='seaice' /\n"
                         "&grid nx=4\n"
                         "  levels = 1.0,\n"
                         "           2*2.5   ! a comment inside an array\n"
                         "           -4.0,\n"
                         "  flags = 2*T F\n"
                         "  names = 'a', 2*\"b\"\n"
                         "/\n"
                         "&extra iv = -1 +2, 3*0,2147483647 -2147483648 , /\n",
                         &err);
  CU_ASSERT_EQUAL_FATAL(status, CRYO_OK);
  CU_ASSERT_EQUAL(nlev, 4);
  CU_ASSERT_EQUAL(levels[0], 1.0);
  CU_ASSERT_EQUAL(levels[1], 2.5);
  CU_ASSERT_EQUAL(levels[2], 2.5);
  CU_ASSERT_EQUAL(levels[3], -4.0);
  CU_ASSERT_EQUAL(nflags, 3);
  CU_ASSERT_EQUAL(flags[0], 1);
  CU_ASSERT_EQUAL(flags[1], 1);
  CU_ASSERT_EQUAL(flags[2], 0);
  CU_ASSERT_EQUAL(nnames, 3);
  CU_ASSERT_STRING_EQUAL(names[0], "a");
  CU_ASSERT_STRING_EQUAL(names[1], "b");
  CU_ASSERT_STRING_EQUAL(names[2], "b");
  static const int want[7] = {-1, 2, 0, 0, 0, INT_MAX, INT_MIN};
  CU_ASSERT_EQUAL(niv, 7);
  for (int i = 0; i < 7; i++)
    CU_ASSERT_EQUAL(iv[i], want[i]);
  CU_ASSERT_EQUAL(iv[7], -1);

  /* Fewer values than the capacity: count says how many, the rest stays. */
  status = read_text("&run model='seaice' /\n&grid nx=4, levels = 3*0.5 /\n", &err);
  CU_ASSERT_EQUAL_FATAL(status, CRYO_OK);
  CU_ASSERT_EQUAL(nlev, 3);
  CU_ASSERT_EQUAL(levels[2], 0.5);
  CU_ASSERT_EQUAL(levels[3], -9.0);
}

static void test_strings(void) {
  cryo_err err;
  int status = read_text("&run model = \"SEAICE\"\n"
                         "  start = 'it''s \"ok\" a/b!c&d=e,f'\n"
                         "  restart_in = \"say \"\"hi\"\"\" /\n"
                         "&grid nx = 2, names = '', 'exactly', '''' /\n",
                         &err);
  CU_ASSERT_EQUAL_FATAL(status, CRYO_OK);
  CU_ASSERT_STRING_EQUAL(model, "seaice");
  CU_ASSERT_STRING_EQUAL(start, "it's \"ok\" a/b!c&d=e,f");
  CU_ASSERT_STRING_EQUAL(restart_in, "say \"hi\"");
  CU_ASSERT_EQUAL(nnames, 3);
  CU_ASSERT_STRING_EQUAL(names[0], "");
  CU_ASSERT_STRING_EQUAL(names[1], "exactly"); /* 7 characters: str_len - 1 fits */
  CU_ASSERT_STRING_EQUAL(names[2], "'");
}

static void test_layout(void) {
  cryo_err err;
  /* Entries across lines, several per line, trailing commas, '/' right after
   * a value, groups in either order, CRLF line ends. */
  int status = read_text("&grid nx =\r\n"
                         "  12, ny\r\n"
                         "  =\r\n"
                         "  14,\r\n"
                         "/\r\n"
                         "&run model='seaice', dt=0.5, run_length=60,/\r\n"
                         "&extra iv=5/\r\n",
                         &err);
  CU_ASSERT_EQUAL_FATAL(status, CRYO_OK);
  CU_ASSERT_EQUAL(nx, 12);
  CU_ASSERT_EQUAL(ny, 14);
  CU_ASSERT_STRING_EQUAL(model, "seaice");
  CU_ASSERT_EQUAL(dt, 0.5);
  CU_ASSERT_EQUAL(run_length, 60);
  CU_ASSERT_EQUAL(niv, 1);
  CU_ASSERT_EQUAL(iv[0], 5);
  CU_ASSERT_EQUAL(iv[1], -1);
}

typedef struct bad_case {
  const char *text;
  int status;
  int line;
  const char *needle;
} bad_case;

#define R "&run model='seaice' /\n"

static const bad_case bad_cases[] = {
    /* CRYO_ERR_SYNTAX */
    {R "&grid nx = 3\n", CRYO_ERR_SYNTAX, 2, "&grid: group is not terminated"},
    {"! c\n! c\n&grid nx = 3\n ny = 4\n\n" R, CRYO_ERR_SYNTAX, 6, "&run begins inside &grid"},
    {"! c\n! c\n&grid nx = 3\n ny = 4\n\n", CRYO_ERR_SYNTAX, 3, "not terminated"},
    {R "&grid\n nx = 3\n ny = 'abc\n/\n", CRYO_ERR_SYNTAX, 4, "unterminated string 'abc"},
    {R "&grid nx = 3, names = \"ab /\n", CRYO_ERR_SYNTAX, 2, "unterminated string \"ab"},
    {R "&grid\n nx 3\n/\n", CRYO_ERR_SYNTAX, 3, "missing '=' after 'nx'"},
    {R "&grid nx = 3\n ny = 4 alpha 5 /\n", CRYO_ERR_SYNTAX, 3, "alpha is not a valid value"},
    {R "&grid nx = @@ /\n", CRYO_ERR_SYNTAX, 2, "nx = @@ is not a valid value"},
    {R "&grid nx = 1.5e /\n", CRYO_ERR_SYNTAX, 2, "nx = 1.5e is not"},
    {R "&grid nx = 3 /\nstray text\n", CRYO_ERR_SYNTAX, 3, "'stray' outside a group"},
    {"junk = 1\n" R "&grid nx=3 /", CRYO_ERR_SYNTAX, 1, "'junk' outside a group"},
    {R "&grid nx = 3 / extra\n", CRYO_ERR_SYNTAX, 2, "'extra' outside a group"},
    {R "&grid nx = 3 / \n/\n", CRYO_ERR_SYNTAX, 3, "'/' outside a group"},
    {R "& grid nx = 3 /\n", CRYO_ERR_SYNTAX, 2, "'&' without a group name"},
    {R "&1grid nx=3 /", CRYO_ERR_SYNTAX, 2, "'&1grid' is not a valid group name"},
    {R "&grid nx = 3\n levels = 0*1.0 /\n", CRYO_ERR_SYNTAX, 3, "levels = 0*1.0: bad repeat"},
    {R "&grid nx = 3\n levels = x*1.0 /\n", CRYO_ERR_SYNTAX, 3, "levels = x*1.0: bad repeat"},
    {R "&grid nx = 3\n levels = 2* 1.0 /\n", CRYO_ERR_SYNTAX, 3, "levels = 2*: bad repeat"},
    {R "&grid nx = 3\n levels = *2.0 /\n", CRYO_ERR_SYNTAX, 3, "bad repeat count"},
    {R "&grid nx = 3\n\n&extra r = 1 /\n", CRYO_ERR_SYNTAX, 4, "&extra begins inside &grid"},
    {R "&grid nx = 3\n names = seaice /\n", CRYO_ERR_SYNTAX, 3, "must be quoted"},
    {R "&grid nx = /\n", CRYO_ERR_SYNTAX, 2, "no value given for nx"},
    {R "&grid nx = 3,\n levels = 1.0,,2.0 /\n", CRYO_ERR_SYNTAX, 3, "levels: empty value"},
    {R "&grid\n = 4 /\n", CRYO_ERR_SYNTAX, 3, "&grid: '=' without a name"},
    {R "&grid nx = 3\n = 4 /\n", CRYO_ERR_SYNTAX, 3, "unexpected '=' in the values of nx"},
    {R "&grid nx = ny = 4 /\n", CRYO_ERR_SYNTAX, 2, "no value given for nx"},
    {R "&grid 'nx' = 3 /\n", CRYO_ERR_SYNTAX, 2, "unexpected string 'nx'"},
    {R "&grid nx = 3\n levels(2) = 1.0 /\n", CRYO_ERR_SYNTAX, 3, "'levels(2)' is not a valid name"},
    {R "&grid nx = 3 = 4 /", CRYO_ERR_SYNTAX, 2, "unexpected '=' in the values of nx"},
    {R "&grid nx = 3 @x /", CRYO_ERR_SYNTAX, 2, "@x"},
    {R "&grid nx = 3\n @x = 4 /", CRYO_ERR_SYNTAX, 3, "'@x' is not a valid name"},
    /* CRYO_ERR_UNKNOWN */
    {"&rnu model='seaice' /\n", CRYO_ERR_UNKNOWN, 1, "unknown group &rnu; did you mean '&run'?"},
    {R "&ocean x = 1 /\n", CRYO_ERR_UNKNOWN, 2, "unknown group &ocean; known: &run, &grid"},
    {R "&grid\n nx = 3\n alhpa = 2 /\n", CRYO_ERR_UNKNOWN, 4, "did you mean 'alpha'?"},
    {R "&grid nx = 3\n zzzzzz = 1 /\n", CRYO_ERR_UNKNOWN, 3, "&grid: unknown name 'zzzzzz'"},
    {R "&grid nx=3, r = 2 /", CRYO_ERR_UNKNOWN, 2, "unknown name 'r'; known: nx, ny"},
    /* CRYO_ERR_TYPE */
    {R "&grid nx = 'ten' /", CRYO_ERR_TYPE, 2, "nx = 'ten' is a string"},
    {R "&grid nx = 1.5 /", CRYO_ERR_TYPE, 2, "nx = 1.5 is a real number"},
    {R "&grid nx = 3 ny = 4e0 /", CRYO_ERR_TYPE, 2, "ny = 4e0 is a real number"},
    {R "&grid nx = .true. /", CRYO_ERR_TYPE, 2, "nx = .true. is a logical"},
    {"&run model='seaice'\n verbose = 1 /\n&grid nx=3 /", CRYO_ERR_TYPE, 2,
     "verbose = 1 is an int"},
    {"&run model = 3 /", CRYO_ERR_TYPE, 1, "model = 3 is an integer"},
    {"&run model='seaice', dt = T /", CRYO_ERR_TYPE, 1, "dt = T is a logical"},
    {"&run model='seaice'\n\n verbose = 'yes' /", CRYO_ERR_TYPE, 3, "verbose = 'yes' is a string"},
    {"&run model = .false. /", CRYO_ERR_TYPE, 1, "model = .false. is a logical"},
    {R "&grid nx = 3\n levels = 1.0,\n 2.0,\n 'x' /\n", CRYO_ERR_TYPE, 5, "levels(3) = 'x'"},
    {R "&grid nx = 3\n flags = T 2 /", CRYO_ERR_TYPE, 3, "flags(2) = 2 is an integer"},
    /* CRYO_ERR_DUPLICATE */
    {R "&grid nx = 3\n nx = 4 /\n", CRYO_ERR_DUPLICATE, 3, "nx given twice, at line 2 and again"},
    {R "&grid NX = 3, nx = 4 /\n", CRYO_ERR_DUPLICATE, 2, "nx given twice"},
    {R "&grid nx=3 /\n&RUN model='landice' /\n", CRYO_ERR_DUPLICATE, 3, "group &run given twice"},
    /* CRYO_ERR_RANGE */
    {R "&grid nx = 1 /", CRYO_ERR_RANGE, 2, "nx = 1 is out of range [2, 100000]"},
    {R "&grid nx = 3, alpha = -3 /", CRYO_ERR_RANGE, 2,
     "&grid: alpha = -3 is out of range [1, 100000]"},
    {"&run model='seaice',\n dt = 1e6 /", CRYO_ERR_RANGE, 2,
     "dt = 1e6 is out of range [0.001, 100000] s"},
    {"&run model='seaice',\n run_length = 0 /", CRYO_ERR_RANGE, 2, "[1, 1000000000] s"},
    {"&run model = 'ocean' /", CRYO_ERR_RANGE, 1, "'ocean' is not one of 'seaice', 'landice'"},
    {R "&grid nx = 3\n levels = 1 2 3 4\n 5 /", CRYO_ERR_RANGE, 4,
     "too many values for levels (at most 4): 5 makes 5"},
    {R "&grid nx = 3\n levels = 5*1.0 /", CRYO_ERR_RANGE, 3, "too many values for levels"},
    {R "&grid nx = 3, names='ab' 'c' 'd' 'e' /", CRYO_ERR_RANGE, 2, "too many values for names"},
    {R "&grid nx = 3 4 /", CRYO_ERR_RANGE, 2, "nx takes a single value"},
    {R "&grid nx = 99999999999 /", CRYO_ERR_RANGE, 2, "99999999999 does not fit"},
    {R "&grid nx=3, big = -2147483649 /", CRYO_ERR_RANGE, 2, "big = -2147483649 does not fit"},
    {"&run model='seaice', dt = 1d999 /", CRYO_ERR_RANGE, 1, "dt = 1d999 is not representable"},
    {"&run model='seaice'\n restart_in = 'abcdefghijklmnop' /", CRYO_ERR_RANGE, 2,
     "restart_in = 'abcdefghijklmnop' is too long"},
    {R "&grid nx = 3, names = 2*'toolongname' /", CRYO_ERR_RANGE, 2,
     "names(1) = 'toolongname' is too long"},
    /* CRYO_ERR_MISSING */
    {"&run start = 'x'\n/\n&grid nx=3 /", CRYO_ERR_MISSING, 1,
     "&run: required name model is missing"},
    {"&grid\n ny = 3\n/\n" R, CRYO_ERR_MISSING, 1, "required name nx"},
    {R "\n! end\n", CRYO_ERR_MISSING, 3, "missing group &grid"},
    {"&grid nx = 3 /\n\n", CRYO_ERR_MISSING, 2, "missing group &run"},
    {"", CRYO_ERR_MISSING, 1, "missing group &run"},
};

static void test_bad_inputs(void) {
  int n = (int)(sizeof bad_cases / sizeof bad_cases[0]);
  for (int i = 0; i < n; i++) {
    const bad_case *c = &bad_cases[i];
    cryo_err err;
    set_defaults();
    cryo_err_clear(&err);
    int status = cryo_namelist_read_string(c->text, "bad.nml", groups, 3, &err);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "bad.nml:%d: ", c->line);
    int ok = status == c->status && err.status == c->status &&
             strncmp(err.msg, prefix, strlen(prefix)) == 0 && strstr(err.msg, c->needle) != NULL;
    if (!ok)
      printf("\nbad case %d: got %s \"%s\", want %s at line %d with \"%s\"\n", i,
             cryo_status_name(status), err.msg, cryo_status_name(c->status), c->line, c->needle);
    CU_ASSERT(ok);
  }
  CU_ASSERT(n >= 35);
}

static int write_file(char *path, const char *data, size_t len) {
  strcpy(path, "/tmp/cryo_nml_XXXXXX");
  int fd = mkstemp(path);
  if (fd < 0) return 0;
  ssize_t w = write(fd, data, len);
  close(fd);
  return w == (ssize_t)len;
}

/* cryo_file_read_text and cryo_namelist_read_file on `path` both fail with
 * CRYO_ERR_FILE and `want` in the message. */
static void expect_file_error(const char *path, const char *want) {
  cryo_err err;
  char *text = NULL;
  CU_ASSERT_EQUAL(cryo_file_read_text(path, &text, &err), CRYO_ERR_FILE);
  CU_ASSERT_PTR_NULL(text);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, want));
  if (!strstr(err.msg, want)) fprintf(stderr, "'%s': %s, expected '%s'\n", path, err.msg, want);
  free(text);
  CU_ASSERT_EQUAL(cryo_namelist_read_file(path, groups, 3, &err), CRYO_ERR_FILE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, want));
}

static void test_files(void) {
  cryo_err err;
  char path[64];
  const char good[] = "&run model='landice' /\n&grid nx = 8 /\n";
  CU_ASSERT_FATAL(write_file(path, good, sizeof good - 1));
  set_defaults();
  CU_ASSERT_EQUAL(cryo_namelist_read_file(path, groups, 3, &err), CRYO_OK);
  CU_ASSERT_EQUAL(nx, 8);
  CU_ASSERT_STRING_EQUAL(model, "landice");
  char *text = NULL;
  CU_ASSERT_EQUAL(cryo_file_read_text(path, &text, &err), CRYO_OK);
  CU_ASSERT_STRING_EQUAL(text, good);
  free(text);
  remove(path);

  /* Errors in a file name the file. */
  const char bad[] = "&run model='landice' /\n&grid nx = 8\n nx = 9 /\n";
  CU_ASSERT_FATAL(write_file(path, bad, sizeof bad - 1));
  CU_ASSERT_EQUAL(cryo_namelist_read_file(path, groups, 3, &err), CRYO_ERR_DUPLICATE);
  char prefix[80];
  snprintf(prefix, sizeof prefix, "%s:3: ", path);
  CU_ASSERT_EQUAL(strncmp(err.msg, prefix, strlen(prefix)), 0);
  remove(path);

  /* Missing file: class FILE, message names the path and the system's reason. */
  const char *missing = "/nonexistent-cryo-dir/run.nml";
  CU_ASSERT_EQUAL(cryo_namelist_read_file(missing, groups, 3, &err), CRYO_ERR_FILE);
  CU_ASSERT_EQUAL(err.status, CRYO_ERR_FILE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, missing));
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, strerror(ENOENT)));

  /* A directory, an empty path, a NUL byte, UTF-16 text and an endless or
   * huge file are each named for what they are, all CRYO_ERR_FILE. */
  expect_file_error("/tmp", "/tmp: a directory, not a file");
  expect_file_error("", "the path is empty");
  CU_ASSERT_FATAL(write_file(path, "&run\0 /", 7));
  expect_file_error(path, "NUL byte at offset 4");
  remove(path);
  CU_ASSERT_FATAL(write_file(path, "\xFF\xFE&\0r\0u\0n\0", 8));
  expect_file_error(path, "UTF-16 text (little-endian): save it as UTF-8 or ASCII");
  remove(path);
  CU_ASSERT_FATAL(write_file(path, "\0&\0r\0u\0n", 8));
  expect_file_error(path, "UTF-16 text (big-endian): save it as UTF-8 or ASCII");
  remove(path);
  if (access("/dev/zero", R_OK) == 0)
    expect_file_error("/dev/zero", "/dev/zero: more than 1048576 bytes: too large for a namelist");
  CU_ASSERT_FATAL(write_file(path, "&run /", 6));
  CU_ASSERT_FATAL(truncate(path, 3 << 20) == 0);
  expect_file_error(path, "3145728 bytes: too large for a namelist");
  remove(path);
}

static void test_bad_tables(void) {
  cryo_err err;
  cryo_nml_key no_dest = {"x", CRYO_NML_INT, NULL, 1, NULL, 0, 1, 0, NULL, 0, NULL};
  cryo_nml_group g = {"g", &no_dest, 1, 0, NULL};
  CU_ASSERT_EQUAL(cryo_namelist_read_string("&g x = 1 /", "t", &g, 1, &err), CRYO_ERR_ARG);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "&g key 0 (x)"));
  CU_ASSERT_EQUAL(cryo_namelist_read_string(NULL, "t", groups, 3, &err), CRYO_ERR_ARG);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 2;
  CU_pSuite s = CU_add_suite("namelist", NULL, NULL);
  if (!s || !CU_add_test(s, "scalars and defaults", test_scalars_and_defaults) ||
      !CU_add_test(s, "real literals", test_reals) || !CU_add_test(s, "logicals", test_logicals) ||
      !CU_add_test(s, "arrays and repeats", test_arrays) ||
      !CU_add_test(s, "strings", test_strings) || !CU_add_test(s, "layout", test_layout) ||
      !CU_add_test(s, "bad inputs", test_bad_inputs) || !CU_add_test(s, "files", test_files) ||
      !CU_add_test(s, "bad tables", test_bad_tables)) {
    CU_cleanup_registry();
    return 2;
  }
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  unsigned failures = CU_get_number_of_failures();
  CU_cleanup_registry();
  return failures ? 1 : 0;
}
